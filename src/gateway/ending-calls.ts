// Calls whose answer went out before they ended: a read of such a call soon after waits for its record. Node side.

/**
 * How long a read of a call whose answer already went out waits for the call to end, in milliseconds. The call
 * ends a workflow task after its answer; longer only when the worker was lost just after handing the answer over
 * (a heartbeat timeout, then the next worker).
 */
export const ENDING_WAIT_MS = 5_000;

/** How long after its answer a call is remembered here, in milliseconds: reads after that find it ended. */
const REMEMBERED_MS = 30_000;

/** Waits for the call to end; rejects when `signal` aborts first. */
export type WaitForEnd = (signal: AbortSignal) => Promise<unknown>;

interface Entry {
  readonly wait: WaitForEnd;
  /** The one wait in progress, shared by every read of the call meanwhile. */
  waiting?: Promise<boolean>;
}

/**
 * A caller who got its answer ahead of the call's record and asks for the record at once (`GET /v1/generation`)
 * should read the ended call, as it would have had it waited for the record. The gateway that answered knows
 * which calls are in that state, and waits for their end only when asked, once for all readers and never longer
 * than {@link ENDING_WAIT_MS}. Another gateway's reader may see the call still running for a few milliseconds.
 */
export class EndingCalls {
  private readonly calls = new Map<string, Entry>();

  /** The call's answer went out; `wait` waits for it to end. */
  answered(workflowId: string, wait: WaitForEnd): void {
    const entry: Entry = { wait };
    this.calls.set(workflowId, entry);
    setTimeout(() => {
      if (this.calls.get(workflowId) === entry) this.calls.delete(workflowId);
    }, REMEMBERED_MS).unref();
  }

  /**
   * Waits for the call to end when its answer went out from here lately: resolves to whether it was such a call
   * and has ended since; false at once for any other call, and after {@link ENDING_WAIT_MS} for one still running.
   */
  async settled(workflowId: string): Promise<boolean> {
    const entry = this.calls.get(workflowId);
    if (!entry) return false;
    entry.waiting ??= entry.wait(AbortSignal.timeout(ENDING_WAIT_MS)).then(
      () => {
        if (this.calls.get(workflowId) === entry) this.calls.delete(workflowId);
        return true;
      },
      () => {
        entry.waiting = undefined;
        return false;
      },
    );
    return entry.waiting;
  }
}

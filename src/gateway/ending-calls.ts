// Calls whose answer went out before they ended: a read of such a call soon after waits for its record. Node side.

/**
 * How long a read of a call whose answer already went out waits for the call to end, in milliseconds. The call
 * ends a workflow task after its answer; longer only when the worker was lost just after handing the answer over
 * (a heartbeat timeout, then the next worker).
 */
export const ENDING_WAIT_MS = 5_000;

/** How long after its answer a call is remembered here, in milliseconds: reads after that find it ended. */
const REMEMBERED_MS = 30_000;

/**
 * A caller who got its answer ahead of the call's record and asks for the record at once (`GET /v1/generation`)
 * should read the ended call, as it would have had it waited for the record. The gateway that answered knows
 * which calls are in that state, and waits for their end only when asked: nobody else needs it. Another
 * gateway's reader may see the call still running for a few milliseconds.
 */
export class EndingCalls {
  private readonly calls = new Map<string, () => Promise<unknown>>();

  /** The call's answer went out; `ended` resolves (or rejects) once the call has ended. */
  answered(workflowId: string, ended: () => Promise<unknown>): void {
    this.calls.set(workflowId, ended);
    setTimeout(() => {
      if (this.calls.get(workflowId) === ended) this.calls.delete(workflowId);
    }, REMEMBERED_MS).unref();
  }

  /** Resolves once the call ended, when its answer went out from here lately; at once otherwise. */
  async settled(workflowId: string, maxMs = ENDING_WAIT_MS): Promise<void> {
    const ended = this.calls.get(workflowId);
    if (!ended) return;
    let timer: NodeJS.Timeout | undefined;
    const waited = ended().then(
      () => this.calls.delete(workflowId),
      () => undefined,
    );
    await Promise.race([waited, new Promise<void>((resolve) => (timer = setTimeout(resolve, maxMs)))]);
    clearTimeout(timer);
  }
}

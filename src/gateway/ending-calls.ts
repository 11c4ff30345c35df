// Calls whose answer went out before they ended, until they have: a read of such a call waits for its record. Node side.

/**
 * How long a read of a call whose answer already went out waits for the call to end, in milliseconds. The call
 * ends a workflow task after its answer; longer only when the worker was lost just after handing the answer over
 * (a heartbeat timeout, then the next worker).
 */
export const ENDING_WAIT_MS = 5_000;

/**
 * A caller who got its answer ahead of the call's record and asks for the record at once (`GET /v1/generation`)
 * should read the ended call, as it would have had it waited for the record. The gateway that answered knows
 * which calls are in that state; another gateway's reader may see the call still running for a few milliseconds.
 */
export class EndingCalls {
  private readonly calls = new Map<string, { readonly ended: Promise<void>; readonly end: () => void }>();

  /** The call's answer went out: reads of it wait until {@link ended} (or {@link ENDING_WAIT_MS}). */
  answered(workflowId: string): void {
    if (this.calls.has(workflowId)) return;
    let end!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    this.calls.set(workflowId, { ended, end });
  }

  /** The call ended (or the gateway stopped waiting for it). */
  ended(workflowId: string): void {
    this.calls.get(workflowId)?.end();
    this.calls.delete(workflowId);
  }

  /** Resolves once the call ended, when its answer went out from here and it had not; at once otherwise. */
  async settled(workflowId: string, maxMs = ENDING_WAIT_MS): Promise<void> {
    const call = this.calls.get(workflowId);
    if (!call) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([call.ended, new Promise<void>((resolve) => (timer = setTimeout(resolve, maxMs)))]);
    clearTimeout(timer);
  }
}

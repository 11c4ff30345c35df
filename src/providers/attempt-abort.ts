// One attempt's abort signal: the caller's signal joined with the attempt's own deadline. Worker side.

/** Who aborted an attempt, read when it failed: decides `cancelled` versus `timeout`. */
export interface AbortState {
  /** The caller's signal fired (activity cancellation): the call is `cancelled`. */
  readonly callerAborted: boolean;
  /** The attempt's own `timeoutMs` deadline fired: the attempt `timeout`ed. */
  readonly deadlineExceeded: boolean;
}

export const NOT_ABORTED: AbortState = { callerAborted: false, deadlineExceeded: false };

/**
 * The SDK's own `timeout` only covers the wait for response headers; a stalled body or stream would
 * run on forever. So each attempt also gets a deadline timer over the whole call, joined with the
 * caller's signal into the one signal the SDK sees. Keeping the two sources apart lets the adapter
 * tell a cancellation (caller) from a timeout (deadline) when the SDK reports a bare abort.
 */
export class AttemptAbort {
  readonly signal: AbortSignal;
  private readonly deadline = new AbortController();
  private readonly timer: NodeJS.Timeout;

  /** @param timeoutMs the whole attempt's deadline in milliseconds, headers and body included. */
  constructor(
    private readonly callerSignal: AbortSignal | undefined,
    timeoutMs: number,
  ) {
    this.timer = setTimeout(() => this.deadline.abort(), timeoutMs);
    this.signal = callerSignal ? AbortSignal.any([callerSignal, this.deadline.signal]) : this.deadline.signal;
  }

  state(): AbortState {
    return {
      callerAborted: this.callerSignal?.aborted ?? false,
      deadlineExceeded: this.deadline.signal.aborted,
    };
  }

  /** Stops the deadline timer; call when the attempt settled either way. */
  dispose(): void {
    clearTimeout(this.timer);
  }
}

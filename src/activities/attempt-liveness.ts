// What keeps an attempt's server informed while it runs, and what it learns back: beats it waits for while it
// reserves, and the wait for a cancellation its caller's departure announced. Worker side.
import type { Context } from '@temporalio/activity';
import type { AttemptHeartbeat } from './call-provider';
import type { HeartbeatReceipt } from './sending-mark';

export const EXPIRED = Symbol('expired');

/** `operation`'s result, or {@link EXPIRED} once `timeoutMs` has passed without one. */
export async function within<T>(operation: Promise<T>, timeoutMs: number): Promise<T | typeof EXPIRED> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<typeof EXPIRED>((resolve) => {
    timer = setTimeout(() => resolve(EXPIRED), timeoutMs);
  });
  try {
    return await Promise.race([operation, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Keeps an attempt alive while it reserves, with heartbeats it waits for one at a time (so none can land after the
 * sending mark and hide it), and remembers whether the server asked it to stop meanwhile.
 */
export class ReservingHeartbeat {
  private chain: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;
  receipt: HeartbeatReceipt | undefined;

  constructor(beat: () => Promise<HeartbeatReceipt>, intervalMs: number) {
    this.timer = setInterval(() => {
      this.chain = this.chain.then(async () => {
        const receipt = await beat();
        if (receipt === 'gone' || receipt === 'cancelled') this.receipt = receipt;
      });
    }, intervalMs);
  }

  /** Stops beating; resolves once the last beat has its answer. */
  async stop(): Promise<HeartbeatReceipt | undefined> {
    clearInterval(this.timer);
    await this.chain;
    return this.receipt;
  }
}

/** How long an attempt whose caller left waits for the call's cancellation to reach it, in milliseconds. */
const CANCELLATION_WAIT_MS = 5_000;
/** Between two asks whether the cancellation reached the server, in milliseconds. */
const CANCELLATION_POLL_MS = 50;

/**
 * Waits until Temporal has delivered the call's cancellation to this attempt: asks the server directly (its answer
 * is not throttled like the worker's heartbeats) until it says the attempt is cancelled, then lets one beat of the
 * worker's own bring the cancellation in. Gives up after {@link CANCELLATION_WAIT_MS}: the attempt then ends
 * with its own failure.
 */
export async function awaitCancellation(
  context: Context,
  beat: AttemptHeartbeat,
  ask: () => Promise<HeartbeatReceipt>,
): Promise<void> {
  const until = Date.now() + CANCELLATION_WAIT_MS;
  while (!context.cancellationSignal.aborted && Date.now() < until) {
    const receipt = await ask();
    if (receipt === 'gone') return;
    if (receipt === 'cancelled') {
      // The same details as every beat: the sending mark must stay on the server.
      beat.beat();
      await within(
        context.cancelled.catch(() => undefined),
        Math.max(0, until - Date.now()),
      );
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, CANCELLATION_POLL_MS));
  }
}

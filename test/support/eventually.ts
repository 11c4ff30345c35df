// Polls until a read satisfies a condition: for state that settles asynchronously (visibility, schedules).
import { setTimeout as delay } from 'node:timers/promises';

export interface EventuallyOptions {
  /** Give up after this long, in milliseconds. Generous: the test machine may be busy. @default 90000 */
  readonly timeoutMs?: number;
  /** Pause between reads, in milliseconds. @default 250 */
  readonly intervalMs?: number;
}

/** Reads until `accept` holds and returns that value; fails naming `what` and the last value read. */
export async function eventually<T>(
  what: string,
  read: () => Promise<T>,
  accept: (value: T) => boolean,
  options: EventuallyOptions = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 90_000);
  let last: T | undefined;
  for (;;) {
    last = await read();
    if (accept(last)) return last;
    if (Date.now() > deadline) {
      throw new Error(`${what}: not reached in time; last read: ${JSON.stringify(last)?.slice(0, 2_000)}`);
    }
    await delay(options.intervalMs ?? 250);
  }
}

/** Waits until the wall clock is in a later second than `time`: schedule runs are named by the second. */
export async function nextSecondAfter(time: Date): Promise<void> {
  const wait = Math.floor(time.getTime() / 1000) * 1000 + 1_000 - Date.now();
  if (wait > 0) await delay(wait + 50);
}

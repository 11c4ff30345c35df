// Waits for a promise unless SIGINT or SIGTERM comes first, so a command can exit 130 with a useful note. Node side.

export type Settled<T> =
  | { readonly kind: 'fulfilled'; readonly value: T }
  | { readonly kind: 'rejected'; readonly error: unknown }
  | { readonly kind: 'interrupted' };

/** Where SIGINT / SIGTERM arrive: `process`, or an emitter in tests. */
export interface SignalSource {
  once(signal: 'SIGINT' | 'SIGTERM', listener: () => void): unknown;
  off(signal: 'SIGINT' | 'SIGTERM', listener: () => void): unknown;
}

/**
 * Settles with the promise's outcome, or `interrupted` on the first SIGINT / SIGTERM. The handlers are
 * installed only for the wait, so outside it a signal keeps Node's default (exit at once).
 */
export function untilInterrupted<T>(work: Promise<T>, signals: SignalSource = process): Promise<Settled<T>> {
  return new Promise((resolve) => {
    const settle = (outcome: Settled<T>) => {
      signals.off('SIGINT', onSignal);
      signals.off('SIGTERM', onSignal);
      resolve(outcome);
    };
    const onSignal = () => settle({ kind: 'interrupted' });
    signals.once('SIGINT', onSignal);
    signals.once('SIGTERM', onSignal);
    work.then(
      (value) => settle({ kind: 'fulfilled', value }),
      (error: unknown) => settle({ kind: 'rejected', error }),
    );
  });
}

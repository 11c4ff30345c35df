// The worker's way to close a reservation: settle or release it through the per-worker batcher. Worker side.
import type { AttemptCharge } from '../routing/attempt-cost';
import type { LedgerMessageBatcher } from './ledger-batcher';

/**
 * Closes a reservation from the worker: charges what the attempt cost (the whole reservation when unknown), or
 * releases it when it cost a known zero. It travels in the worker's next update to the ledger, with whatever
 * else is queued for the scope (waiting a moment for company), and resolves once the ledger has applied it.
 */
export function createLedgerSettler(batcher: LedgerMessageBatcher) {
  return async function settleReservation(
    scope: string,
    reservationId: string,
    charge: AttemptCharge,
  ): Promise<void> {
    const linger = { linger: true };
    if (charge.costKnown && charge.costNanoUsd === 0) await batcher.release(scope, reservationId, linger);
    else await batcher.settle(scope, { reservationId, ...charge }, linger);
  };
}

export type LedgerSettler = ReturnType<typeof createLedgerSettler>;

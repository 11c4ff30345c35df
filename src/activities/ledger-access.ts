// The worker's way to a budget ledger: reserve through the batcher, settle and release by signal. Worker side.
import type { Client } from '@temporalio/client';
import type { AttemptCharge } from '../routing/attempt-cost';
import { ledgerWorkflowId, releaseSignal, settleSignal } from '../workflows/ledger/ledger-definitions';

/**
 * Closes a reservation from the worker: charges what the attempt cost (the whole reservation when unknown), or
 * releases it when it cost a known zero. A signal to a running entity is never dropped, unlike one sent by a
 * workflow run that then closes, so an attempt's own worker may settle it and the call need not wait.
 */
export function createLedgerSettler(client: Client) {
  return async function settleReservation(
    scope: string,
    reservationId: string,
    charge: AttemptCharge,
  ): Promise<void> {
    const ledger = client.workflow.getHandle(ledgerWorkflowId(scope));
    if (charge.costKnown && charge.costNanoUsd === 0) await ledger.signal(releaseSignal, { reservationId });
    else await ledger.signal(settleSignal, { reservationId, ...charge });
  };
}

export type LedgerSettler = ReturnType<typeof createLedgerSettler>;

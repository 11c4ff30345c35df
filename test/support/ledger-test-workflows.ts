// Test-only workflow bundle: the ledger entity, and a caller that reserves, then settles, releases, holds or
// abandons its reservation through the ledger gate, as one attempt of the routed call will. Workflow code.
import { condition, defineSignal, setHandler } from '@temporalio/workflow';
import type { ReservationDecision } from '../../src/routing/ledger-state';
import {
  ledgerReservationId,
  releaseOnLedger,
  reserveOnLedger,
  settleOnLedger,
  type LedgerCharge,
} from '../../src/workflows/ledger/ledger-gate';

export { ledgerWorkflow } from '../../src/workflows/ledger/ledger-workflow';

export interface LedgerCallerInput {
  readonly scope: string;
  readonly amountNanoUsd: number;
  /** @default the gate's default lease */
  readonly leaseMs?: number;
  /**
   * After a grant: settle with this charge; `release`; `hold` until {@link finishCallerSignal} says how to
   * settle; `abandon` (end without settling, as a terminated call would).
   */
  readonly then: { readonly settle: LedgerCharge } | 'release' | 'hold' | 'abandon';
}

export const finishCallerSignal = defineSignal<[LedgerCharge]>('finishCaller');

export async function ledgerCallerWorkflow(input: LedgerCallerInput): Promise<ReservationDecision> {
  let finish: LedgerCharge | undefined;
  setHandler(finishCallerSignal, (charge) => void (finish = charge));
  const reservationId = ledgerReservationId(1);
  const decision = await reserveOnLedger(input.scope, {
    reservationId,
    amountNanoUsd: input.amountNanoUsd,
    ...(input.leaseMs !== undefined ? { leaseMs: input.leaseMs } : {}),
  });
  if (!decision.granted || input.then === 'abandon') return decision;
  if (input.then === 'release') {
    await releaseOnLedger(input.scope, reservationId);
  } else if (input.then === 'hold') {
    await condition(() => finish !== undefined);
    await settleOnLedger(input.scope, reservationId, finish!);
  } else {
    await settleOnLedger(input.scope, reservationId, input.then.settle);
  }
  return decision;
}

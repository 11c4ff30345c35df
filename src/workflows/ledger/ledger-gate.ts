// How a routed call spends budget: reserve (local activity), settle and release (signals). Workflow code.
import {
  CancellationScope,
  getExternalWorkflowHandle,
  log,
  proxyLocalActivities,
  workflowInfo,
} from '@temporalio/workflow';
import type { SwitchyardActivities } from '../../activities';
import type { ReservationDecision } from '../../routing/ledger-state';
import type { NanoUsd } from '../../routing/money';
import { ledgerWorkflowId, releaseSignal, settleSignal } from './ledger-definitions';

/** Lease of a reservation when the caller names none: 15 minutes, in milliseconds. */
export const DEFAULT_RESERVATION_LEASE_MS = 15 * 60_000;

// A local activity runs at least once; every try sends the same reservation id, which the ledger grants once.
// The worker's batcher may hold a request behind the scope's in-flight update, hence the generous timeouts.
const { reserveBudget } = proxyLocalActivities<SwitchyardActivities>({
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: '2 minutes',
  retry: {
    initialInterval: '200 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '5 seconds',
    nonRetryableErrorTypes: ['InvalidLedgerMessage'],
  },
});

/**
 * The reservation id of an attempt: deterministic, so a retried reserve never reserves twice, and unique per
 * run, so a reset or re-run of the workflow never reuses a closed id (it would be refused).
 */
export function ledgerReservationId(attempt: number): string {
  const { workflowId, runId } = workflowInfo();
  return `${workflowId}/${runId}#${attempt}`;
}

export interface LedgerReserveOptions {
  /** From {@link ledgerReservationId}. */
  readonly reservationId: string;
  /** The attempt's worst-case bound (`attemptBound`), in nano-USD. */
  readonly amountNanoUsd: NanoUsd;
  /**
   * How long the reservation may stay open before the ledger charges it in full, in milliseconds. Make it
   * outlast the attempt and its settle: the attempt's timeout plus a margin. @default 900000 (15 minutes)
   */
  readonly leaseMs?: number;
  /** Shown to operators beside the reservation. @default this workflow's id */
  readonly holderWorkflowId?: string;
}

export interface LedgerCharge {
  readonly costNanoUsd: NanoUsd;
  /** False when usage is unknown (timeout after send, lost worker, cut stream): the full reservation is charged. */
  readonly costKnown: boolean;
}

/**
 * Reserves an attempt's bound on the scope's ledger (creating the ledger if needed). A grant is deducted
 * before this returns; a refusal carries the numbers for `BudgetExceeded`. If the reserve cannot be made at
 * all, a possible grant is released before the error is rethrown.
 */
export async function reserveOnLedger(
  scope: string,
  options: LedgerReserveOptions,
): Promise<ReservationDecision> {
  try {
    return await reserveBudget({
      scope,
      request: {
        reservationId: options.reservationId,
        amountNanoUsd: options.amountNanoUsd,
        holder: options.holderWorkflowId ?? workflowInfo().workflowId,
        leaseMs: options.leaseMs ?? DEFAULT_RESERVATION_LEASE_MS,
      },
    });
  } catch (error) {
    // The ledger may have granted it even though the answer never came back; the release also makes it
    // refuse a late copy of the request, so nothing waits out a lease.
    await releaseOnLedger(scope, options.reservationId);
    throw error;
  }
}

/** Charges a granted reservation: its real cost, or the whole reservation when the cost is unknown. */
export function settleOnLedger(scope: string, reservationId: string, charge: LedgerCharge): Promise<void> {
  return signalLedger(scope, 'settle', () =>
    getExternalWorkflowHandle(ledgerWorkflowId(scope)).signal(settleSignal, { reservationId, ...charge }),
  );
}

/** Frees a granted reservation without charge: the request was never sent (or was answered with an error status). */
export function releaseOnLedger(scope: string, reservationId: string): Promise<void> {
  return signalLedger(scope, 'release', () =>
    getExternalWorkflowHandle(ledgerWorkflowId(scope)).signal(releaseSignal, { reservationId }),
  );
}

/**
 * Signals survive the caller's cancellation (a cancelled call must still pay for what it sent), and a ledger
 * that no longer exists has nothing to settle, so a failed signal is logged, not thrown.
 */
async function signalLedger(scope: string, what: string, signal: () => Promise<void>): Promise<void> {
  try {
    await CancellationScope.nonCancellable(signal);
  } catch (error) {
    log.warn(`could not ${what} on budget ledger ${scope}`, {
      error: error instanceof Error ? error.message : String(error),
    });
  }
}

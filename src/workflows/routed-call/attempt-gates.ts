// The breaker and budget steps around one attempt. Workflow code.
import type { ResolvedRoute, ResolvedTarget } from '../../config/resolved-route';
import type { AttemptCharge } from '../../routing/attempt-cost';
import { FailureClass } from '../../config/failure-class';
import type { ReservationRefusal } from '../../routing/ledger-state';
import type { NanoUsd } from '../../routing/money';
import { SkipReason } from '../../routing/routing-record';
import {
  admitOnBreaker,
  reportToBreaker,
  type BreakerAdmission,
  type BreakerTicket,
} from '../breaker/breaker-gate';
import { ledgerReservationId, releaseOnLedger, reserveOnLedger, settleOnLedger } from '../ledger/ledger-gate';

/** A reservation outlives its attempt by this much, in milliseconds, so a settle arriving late still finds it. */
const RESERVATION_LEASE_MARGIN_MS = 2 * 60_000;

/** The numbers behind an `over_budget` skip, for `BudgetExceeded`. */
export interface BudgetShortfall {
  /** `ledger` when the scope's limit refused; `call` when the call's own `maxCostUsd` did. */
  readonly limitedBy: 'ledger' | 'call';
  readonly scope?: string;
  readonly requestedNanoUsd: NanoUsd;
  readonly limitNanoUsd: NanoUsd | null;
  readonly availableNanoUsd: NanoUsd | null;
}

export type GateDecision =
  | { readonly admitted: true; readonly pass: AttemptPass }
  | {
      readonly admitted: false;
      readonly reason: typeof SkipReason.circuitOpen;
      readonly retryAtMs: number;
      /** The breaker could not be reached, so the target was treated as open. */
      readonly unreachable?: true;
      /** Not open but paused by a provider's `Retry-After` until `retryAtMs` (recorded as `paused`). */
      readonly paused?: true;
    }
  | {
      readonly admitted: false;
      readonly reason: typeof SkipReason.overBudget;
      readonly shortfall: BudgetShortfall;
    };

/** What an admitted attempt holds until it is settled: the breaker ticket and the reservation, if any. */
export interface AttemptPass {
  readonly ticket: BreakerTicket;
  /**
   * The attempt's reservation: made already, or (`reservingInAttempt`) to be made by the attempt's own
   * activity before it sends anything. Either way, settling closes it by id.
   */
  readonly reservation?: {
    readonly scope: string;
    readonly reservationId: string;
    readonly amountNanoUsd: NanoUsd;
    readonly leaseMs: number;
  };
}

export interface GateRequest {
  readonly route: ResolvedRoute;
  readonly target: ResolvedTarget;
  /** 1-based attempt number within the call. */
  readonly attempt: number;
  /** The attempt's worst-case cost. */
  readonly boundNanoUsd: NanoUsd;
  /** The call's budget scope, if it names one. */
  readonly scope?: string;
  /** What the call's own `maxCostUsd` still allows, if it set one. */
  readonly callAllowanceNanoUsd?: NanoUsd;
  /** The call's own `maxCostUsd`, in nano-USD: the limit a refusal by the allowance names. */
  readonly callLimitNanoUsd?: NanoUsd;
  /** Take the breaker's probe even before its cooldown (`whenAllOpen: probe_first`). */
  readonly forceProbe?: boolean;
  /**
   * Leave the reservation to the attempt's activity (the lean hot path): admission asks only the breaker and
   * the call's own allowance, and the reservation travels with the pass. @default false (reserve here)
   */
  readonly reserveInAttempt?: boolean;
  /** An admission the call already holds for this attempt (made with its route's resolution). */
  readonly admission?: BreakerAdmission;
}

/** Asks the breaker, then reserves the bound: a refusal of either becomes a skip, and nothing is sent. */
export async function admitAttempt(request: GateRequest): Promise<GateDecision> {
  const { route, target, attempt, boundNanoUsd } = request;
  const admission =
    request.admission ??
    (await admitOnBreaker(route, target, attempt, request.forceProbe ? { force: true } : {}));
  if (!admission.admitted)
    return {
      admitted: false,
      reason: SkipReason.circuitOpen,
      retryAtMs: admission.retryAtMs,
      ...(admission.unreachable ? { unreachable: true } : {}),
      ...(admission.paused ? { paused: true } : {}),
    };
  const refuse = async (shortfall: BudgetShortfall): Promise<GateDecision> => {
    // The attempt never happens: give back the probe (or nothing, for a plain admission).
    await reportToBreaker(admission.ticket, { succeeded: false, failureClass: FailureClass.cancelled });
    return { admitted: false, reason: SkipReason.overBudget, shortfall };
  };

  if (request.callAllowanceNanoUsd !== undefined && boundNanoUsd > request.callAllowanceNanoUsd) {
    return refuse({
      limitedBy: 'call',
      requestedNanoUsd: boundNanoUsd,
      limitNanoUsd: request.callLimitNanoUsd ?? null,
      availableNanoUsd: request.callAllowanceNanoUsd,
    });
  }
  if (request.scope === undefined) return { admitted: true, pass: { ticket: admission.ticket } };

  const reservation = {
    scope: request.scope,
    reservationId: ledgerReservationId(attempt),
    amountNanoUsd: boundNanoUsd,
    leaseMs: target.timeoutMs + RESERVATION_LEASE_MARGIN_MS,
  };
  if (request.reserveInAttempt) return { admitted: true, pass: { ticket: admission.ticket, reservation } };
  const decision = await reserveOnLedger(request.scope, reservation);
  if (!decision.granted) return refuse(ledgerShortfall(request.scope, decision));
  return { admitted: true, pass: { ticket: admission.ticket, reservation } };
}

/** The numbers of a refusal by the scope's ledger; nulls when the ledger gave none (it could not be reached). */
export function ledgerShortfall(
  scope: string,
  refusal: ReservationRefusal | undefined,
  requestedNanoUsd: NanoUsd = refusal?.requestedNanoUsd ?? 0,
): BudgetShortfall {
  if (!refusal) {
    return { limitedBy: 'ledger', scope, requestedNanoUsd, limitNanoUsd: null, availableNanoUsd: null };
  }
  return {
    limitedBy: 'ledger',
    scope,
    requestedNanoUsd: refusal.requestedNanoUsd,
    limitNanoUsd: refusal.limitNanoUsd,
    availableNanoUsd: refusal.availableNanoUsd,
  };
}

/**
 * Settles an admitted attempt: the ledger is charged what the record says (or released when that is a known
 * zero), and the breaker hears the outcome. Both survive the caller's cancellation. `done` names what the
 * attempt's own worker already did, which is not done again.
 */
export async function settleAttempt(
  pass: AttemptPass,
  outcome: {
    readonly succeeded: boolean;
    readonly failureClass?: FailureClass;
    readonly charge: AttemptCharge;
    /** A rate limit's `Retry-After`, in milliseconds, for the breaker's pause. */
    readonly retryAfterMs?: number;
  },
  done: { readonly settled?: boolean; readonly reported?: boolean } = {},
): Promise<void> {
  const { reservation } = pass;
  if (reservation && !done.settled) {
    if (outcome.charge.costKnown && outcome.charge.costNanoUsd === 0) {
      await releaseOnLedger(reservation.scope, reservation.reservationId);
    } else {
      await settleOnLedger(reservation.scope, reservation.reservationId, outcome.charge);
    }
  }
  if (done.reported) return;
  await reportToBreaker(pass.ticket, {
    succeeded: outcome.succeeded,
    ...(outcome.failureClass ? { failureClass: outcome.failureClass } : {}),
    ...(outcome.retryAfterMs !== undefined ? { retryAfterMs: outcome.retryAfterMs } : {}),
  });
}

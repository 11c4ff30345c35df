// The budget ledger as a state machine over plain JSON: reserve, settle, release, lease expiry, windows. Pure.
// Every transition takes the state and returns a new one; none throws, so a workflow handler built on them
// can never fail its workflow task. Times are epoch milliseconds; money is integer nano-USD.
import type {
  AllowanceClaims,
  ClaimEffect,
  CloseEffect,
  ReservationDecision,
  ReservationRequest,
  Settlement,
} from './ledger-messages';
import { hasWindow, nextWindowStartAt, windowStartAt } from './ledger-window';
import {
  CLOSED_RESERVATIONS_REMEMBERED,
  ClosedOutcome,
  LimitSource,
  type ClosedReservation,
  type LedgerState,
  type LedgerTotals,
  type OpenReservation,
} from './ledger-types';
import type { NanoUsd } from './money';

// The state's and the messages' shapes belong to the state machine's API: callers may import them from here.
export type {
  AllowanceClaims,
  ClaimEffect,
  CloseEffect,
  ReservationDecision,
  ReservationGrant,
  ReservationRefusal,
  ReservationRequest,
  Settlement,
} from './ledger-messages';

export {
  CLOSED_RESERVATIONS_REMEMBERED,
  ClosedOutcome,
  LimitSource,
  type ClosedReservation,
  type LedgerLimit,
  type LedgerState,
  type LedgerTotals,
  type LeaseExpiry,
  type LedgerWindowSummary,
  type OpenReservation,
} from './ledger-types';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
interface Draft extends Mutable<Omit<LedgerState, 'reservations' | 'closed' | 'totals'>> {
  reservations: Record<string, OpenReservation>;
  closed: ClosedReservation[];
  totals: Mutable<LedgerTotals>;
}

/** Sums never leave the safe-integer range: a ledger at 9 million USD saturates instead of failing. */
function saturatingAdd(a: NanoUsd, b: NanoUsd): NanoUsd {
  return Math.min(a + b, Number.MAX_SAFE_INTEGER);
}

function draftOf(state: LedgerState): Draft {
  return {
    ...state,
    reservations: { ...state.reservations },
    closed: [...state.closed],
    totals: { ...state.totals },
  };
}

export function createLedgerState(
  scope: string,
  now: number,
  options: { windowMs?: number | null } = {},
): LedgerState {
  return {
    scope,
    limitNanoUsd: null,
    period: null,
    windowMs: options.windowMs ?? null,
    limitSource: LimitSource.none,
    configLimit: null,
    windowStartedAt: windowStartAt({ period: null, windowMs: options.windowMs ?? null }, now),
    spentNanoUsd: 0,
    overdraftNanoUsd: 0,
    reservations: {},
    closed: [],
    totals: { granted: 0, settled: 0, released: 0, expired: 0, overdrafts: 0 },
    previousWindow: null,
  };
}

export function reservedNanoUsd(state: Pick<LedgerState, 'reservations'>): NanoUsd {
  return Object.values(state.reservations).reduce(
    (total, open) => saturatingAdd(total, open.amountNanoUsd),
    0,
  );
}

/** Limit − spent − reserved (negative after an overdraft), or null for an unlimited ledger. */
export function availableNanoUsd(state: LedgerState): NanoUsd | null {
  return state.limitNanoUsd === null
    ? null
    : state.limitNanoUsd - state.spentNanoUsd - reservedNanoUsd(state);
}

function findClosed(draft: Pick<Draft, 'closed'>, reservationId: string): ClosedReservation | undefined {
  return draft.closed.find((closed) => closed.reservationId === reservationId);
}

function remember(draft: Draft, closed: ClosedReservation): void {
  draft.closed.push(closed);
  const excess = draft.closed.length - CLOSED_RESERVATIONS_REMEMBERED;
  if (excess > 0) draft.closed.splice(0, excess);
}

/**
 * Charges every reservation whose lease ended at or before `at` in full (or marks it for reconciling). An
 * allowance is only marked: what it holds goes back in a later activation ({@link releaseEndedAllowances}).
 */
function expireDraft(draft: Draft, at: number, now: number): void {
  for (const [reservationId, reservation] of Object.entries(draft.reservations)) {
    if (reservation.leaseExpiresAt > at || reservation.reconciling) continue;
    if (reservation.allowance) {
      if (reservation.expiringSince === undefined) {
        draft.reservations[reservationId] = { ...reservation, expiringSince: now };
      }
      continue;
    }
    if (draft.leaseExpiry === 'reconcile') {
      draft.reservations[reservationId] = { ...reservation, reconciling: true };
      continue;
    }
    chargeInFull(draft, reservationId, reservation.amountNanoUsd);
  }
}

/**
 * Gives back what ended allowances still hold. Only an allowance seen ended in an earlier activation (an
 * earlier instant): a claim is recorded before its worker sends anything, and its worker trusts an allowance
 * only until a margin before the lease ends, so every claim that counts precedes the activation that saw the
 * end, and was applied in it or before, whatever the order of messages within one activation.
 */
function releaseEndedAllowances(draft: Draft, now: number): void {
  for (const [reservationId, reservation] of Object.entries(draft.reservations)) {
    if (!reservation.allowance || reservation.expiringSince === undefined) continue;
    if (reservation.expiringSince >= now) continue;
    delete draft.reservations[reservationId];
    remember(draft, {
      reservationId,
      outcome: ClosedOutcome.released,
      chargedNanoUsd: 0,
      amountNanoUsd: reservation.amountNanoUsd,
    });
  }
}

/** Closes a reservation whose lease ended with no word of its cost: the whole amount, counted as expired. */
function chargeInFull(draft: Draft, reservationId: string, amountNanoUsd: NanoUsd): void {
  delete draft.reservations[reservationId];
  draft.spentNanoUsd = saturatingAdd(draft.spentNanoUsd, amountNanoUsd);
  draft.totals.expired += 1;
  remember(draft, {
    reservationId,
    outcome: ClosedOutcome.expired,
    chargedNanoUsd: amountNanoUsd,
    amountNanoUsd,
  });
}

/**
 * Brings the draft to `now`: closes the window if it ended (leases that ran out in it are charged to it), then
 * expires leases. A ledger that slept through several windows resets once, to the window that contains now.
 */
function advanceDraft(draft: Draft, now: number): void {
  const currentStart = windowStartAt(draft, now);
  if (hasWindow(draft) && currentStart > draft.windowStartedAt) {
    const endedAt = nextWindowStartAt(draft, draft.windowStartedAt) ?? currentStart;
    expireDraft(draft, endedAt - 1, now);
    draft.previousWindow = {
      startedAt: draft.windowStartedAt,
      endedAt,
      spentNanoUsd: draft.spentNanoUsd,
      overdraftNanoUsd: draft.overdraftNanoUsd,
    };
    draft.windowStartedAt = currentStart;
    draft.spentNanoUsd = 0;
    draft.overdraftNanoUsd = 0;
  }
  releaseEndedAllowances(draft, now);
  expireDraft(draft, now, now);
}

/** Expires leases (as `state.leaseExpiry` says) and resets the window as of `now`. */
export function advanceClock(state: LedgerState, now: number): LedgerState {
  const draft = draftOf(state);
  advanceDraft(draft, now);
  return draft;
}

/** The next instant the ledger must act on its own (a lease ends or a window closes), or null. */
export function nextWakeAt(state: LedgerState): number | null {
  let wake = nextWindowStartAt(state, state.windowStartedAt);
  for (const reservation of Object.values(state.reservations)) {
    if (reservation.reconciling) continue;
    const at =
      reservation.expiringSince === undefined ? reservation.leaseExpiresAt : reservation.expiringSince + 1;
    if (wake === null || at < wake) wake = at;
  }
  return wake;
}

/** Whether any worker's allowance is open (given back or not yet). */
export function holdsAllowances(state: Pick<LedgerState, 'reservations'>): boolean {
  return Object.values(state.reservations).some((reservation) => reservation.allowance);
}

/** Reservations whose lease ran out and whose holder's record the ledger is to consult, by id. */
export function reconcilingReservations(state: LedgerState): [string, OpenReservation][] {
  return Object.entries(state.reservations).filter(([, reservation]) => reservation.reconciling);
}

/**
 * What the holder's record says of a reservation whose lease ran out: `charge` closes it with the attempt's
 * cost (the whole reservation when unknown, as a lost attempt is); `extend` gives it a new lease (the holder
 * is still running that attempt).
 */
export type Reconciliation =
  | { readonly kind: 'charge'; readonly costNanoUsd: NanoUsd; readonly costKnown: boolean }
  | { readonly kind: 'extend'; readonly leaseMs: number };

/** Applies a reconciliation; a reservation already closed meanwhile (a late settle) is left as it is. */
export function reconcileReservation(
  state: LedgerState,
  reservationId: string,
  reconciliation: Reconciliation,
  now: number,
): LedgerState {
  const open = state.reservations[reservationId];
  if (!open?.reconciling) return state;
  if (reconciliation.kind === 'extend') {
    const draft = draftOf(state);
    const { reconciling: _reconciling, ...reservation } = open;
    draft.reservations[reservationId] = { ...reservation, leaseExpiresAt: now + reconciliation.leaseMs };
    return draft;
  }
  if (reconciliation.costKnown) {
    return settleReservation(state, { reservationId, ...reconciliation }, now).state;
  }
  const draft = draftOf(state);
  chargeInFull(draft, reservationId, open.amountNanoUsd);
  return draft;
}

/**
 * Decides a batch of reservations in order, each against what the ones before it left, deducting each grant
 * at once. A repeated id that is still open gets its grant again without a second deduction; an id already
 * closed is refused, so one id never pays for two attempts.
 */
export function reserveBatch(
  state: LedgerState,
  requests: readonly ReservationRequest[],
  now: number,
  options: {
    /** Refuse every ask for an allowance (a ledger about to continue as new carries none over). @default false */
    readonly refuseAllowances?: boolean;
  } = {},
): { state: LedgerState; decisions: ReservationDecision[] } {
  const draft = draftOf(state);
  advanceDraft(draft, now);
  let reserved = reservedNanoUsd(draft);
  const decisions = requests.map((request): ReservationDecision => {
    const open = draft.reservations[request.reservationId];
    if (open) {
      return {
        granted: true,
        reservationId: request.reservationId,
        amountNanoUsd: open.amountNanoUsd,
        leaseExpiresAt: open.leaseExpiresAt,
        ...(open.allowance ? { allowance: true as const } : {}),
      };
    }
    // An allowance leaves at least as much as it takes to everyone else: near exhaustion, calls reserve one by one.
    const committed = draft.spentNanoUsd + reserved + request.amountNanoUsd * (request.allowance ? 2 : 1);
    const fits =
      Number.isSafeInteger(committed) && (draft.limitNanoUsd === null || committed <= draft.limitNanoUsd);
    const closed = findClosed(draft, request.reservationId);
    if (closed || !fits || (request.allowance && options.refuseAllowances)) {
      return {
        granted: false,
        reservationId: request.reservationId,
        reason: closed ? 'closed' : 'over_budget',
        requestedNanoUsd: request.amountNanoUsd,
        limitNanoUsd: draft.limitNanoUsd,
        availableNanoUsd:
          draft.limitNanoUsd === null ? null : draft.limitNanoUsd - draft.spentNanoUsd - reserved,
        spentNanoUsd: draft.spentNanoUsd,
        reservedNanoUsd: reserved,
        overdraftNanoUsd: draft.overdraftNanoUsd,
      };
    }
    const leaseExpiresAt = now + request.leaseMs;
    draft.reservations[request.reservationId] = {
      amountNanoUsd: request.amountNanoUsd,
      holder: request.holder,
      reservedAt: now,
      leaseExpiresAt,
      ...(request.allowance ? { allowance: true as const } : {}),
    };
    reserved += request.amountNanoUsd;
    // The totals count attempts' reservations: an allowance is counted through its claims.
    if (!request.allowance) draft.totals.granted += 1;
    return {
      granted: true,
      reservationId: request.reservationId,
      amountNanoUsd: request.amountNanoUsd,
      leaseExpiresAt,
      ...(request.allowance ? { allowance: true as const } : {}),
    };
  });
  return { state: draft, decisions };
}

/**
 * Moves claimed reservations out of an allowance, each becoming a reservation of its own, in order. A claim the
 * allowance cannot cover (gone, or holding less) or whose id is already open or closed holds nothing: its
 * worker sent nothing on it unless it was recorded while the allowance held it (see `releaseEndedAllowances`).
 */
export function claimFromAllowance(
  state: LedgerState,
  claims: AllowanceClaims,
  now: number,
): { state: LedgerState; effects: ClaimEffect[] } {
  const draft = draftOf(state);
  advanceDraft(draft, now);
  const effects = claims.claims.map((claim): ClaimEffect => {
    const allowance = draft.reservations[claims.allowanceId];
    if (!allowance?.allowance) return 'no_allowance';
    if (draft.reservations[claim.reservationId] || findClosed(draft, claim.reservationId)) return 'duplicate';
    if (claim.amountNanoUsd > allowance.amountNanoUsd) return 'exceeds_allowance';
    draft.reservations[claims.allowanceId] = {
      ...allowance,
      amountNanoUsd: allowance.amountNanoUsd - claim.amountNanoUsd,
    };
    draft.reservations[claim.reservationId] = {
      amountNanoUsd: claim.amountNanoUsd,
      holder: claim.holder,
      reservedAt: now,
      leaseExpiresAt: now + claim.leaseMs,
    };
    draft.totals.granted += 1;
    return 'claimed';
  });
  return { state: draft, effects };
}

/**
 * Closes a reservation with its cost: the real cost when known (anything beyond the reservation is charged
 * too and recorded as overdraft), else the whole reservation. A repeated or late settle charges nothing. An
 * unknown id is remembered as settled for nothing, so a reservation that arrives after its own settle (an
 * attempt lost while its reservation was still on the way, settled by its call) is refused, never granted
 * to a request nobody will settle.
 */
export function settleReservation(
  state: LedgerState,
  settlement: Settlement,
  now: number,
): { state: LedgerState; effect: CloseEffect } {
  const draft = draftOf(state);
  advanceDraft(draft, now);
  const open = draft.reservations[settlement.reservationId];
  if (!open) {
    const seen = findClosed(draft, settlement.reservationId);
    if (!seen) {
      remember(draft, {
        reservationId: settlement.reservationId,
        outcome: ClosedOutcome.settled,
        chargedNanoUsd: 0,
      });
      return { state: draft, effect: { kind: 'unmatched' } };
    }
    return topUp(draft, seen, settlement);
  }
  const charged = settlement.costKnown ? settlement.costNanoUsd : open.amountNanoUsd;
  const overdraft = Math.max(0, charged - open.amountNanoUsd);
  delete draft.reservations[settlement.reservationId];
  draft.spentNanoUsd = saturatingAdd(draft.spentNanoUsd, charged);
  draft.overdraftNanoUsd = saturatingAdd(draft.overdraftNanoUsd, overdraft);
  draft.totals.settled += 1;
  if (overdraft > 0) draft.totals.overdrafts += 1;
  remember(draft, {
    reservationId: settlement.reservationId,
    outcome: ClosedOutcome.settled,
    chargedNanoUsd: charged,
    amountNanoUsd: open.amountNanoUsd,
  });
  return { state: draft, effect: { kind: 'closed', chargedNanoUsd: charged, overdraftNanoUsd: overdraft } };
}

/**
 * A second close of one reservation charges the most any of them asked, never the sum. Both ends of an attempt
 * may close it: its worker (what the call cost, or a release) and its workflow, which charges the whole bound
 * when it lost sight of the attempt (a worker or engine gone mid-call) and records that bound. Whichever
 * arrives first, the ledger ends at the record's charge; a repeat of the same close charges nothing.
 */
function topUp(
  draft: Draft,
  seen: ClosedReservation,
  settlement: Settlement,
): { state: LedgerState; effect: CloseEffect } {
  // An id closed before it was ever granted held nothing: there is nothing to top up.
  if (seen.amountNanoUsd === undefined) return { state: draft, effect: { kind: 'duplicate' } };
  const asked = settlement.costKnown ? settlement.costNanoUsd : seen.amountNanoUsd;
  const extra = asked - seen.chargedNanoUsd;
  if (extra <= 0) return { state: draft, effect: { kind: 'duplicate' } };
  const overdraft =
    Math.max(0, asked - seen.amountNanoUsd) - Math.max(0, seen.chargedNanoUsd - seen.amountNanoUsd);
  draft.spentNanoUsd = saturatingAdd(draft.spentNanoUsd, extra);
  draft.overdraftNanoUsd = saturatingAdd(draft.overdraftNanoUsd, overdraft);
  const index = draft.closed.indexOf(seen);
  draft.closed[index] = { ...seen, outcome: ClosedOutcome.settled, chargedNanoUsd: asked };
  return { state: draft, effect: { kind: 'closed', chargedNanoUsd: extra, overdraftNanoUsd: overdraft } };
}

/**
 * Closes a reservation without charge (nothing was sent). An unknown id is remembered as released, so a
 * reservation that arrives after its own release (a retried reserve racing the caller's clean-up) is refused.
 */
export function releaseReservation(
  state: LedgerState,
  reservationId: string,
  now: number,
): { state: LedgerState; effect: CloseEffect } {
  const draft = draftOf(state);
  advanceDraft(draft, now);
  if (findClosed(draft, reservationId)) return { state: draft, effect: { kind: 'duplicate' } };
  const open = draft.reservations[reservationId];
  delete draft.reservations[reservationId];
  if (open && !open.allowance) draft.totals.released += 1;
  remember(draft, {
    reservationId,
    outcome: ClosedOutcome.released,
    chargedNanoUsd: 0,
    ...(open ? { amountNanoUsd: open.amountNanoUsd } : {}),
  });
  return {
    state: draft,
    effect: open ? { kind: 'closed', chargedNanoUsd: 0, overdraftNanoUsd: 0 } : { kind: 'unmatched' },
  };
}

// The ledger state machine: atomic reservations, settle rules, overdraft, leases, windows, limits, idempotency.
import {
  advanceClock,
  availableNanoUsd,
  CLOSED_RESERVATIONS_REMEMBERED,
  createLedgerState,
  nextWakeAt,
  reconcileReservation,
  reconcilingReservations,
  releaseReservation,
  reserveBatch,
  reservedNanoUsd,
  settleReservation,
  type LedgerState,
  type ReservationRequest,
} from '../../../src/routing/ledger-state';
import { applyConfigLimit, setOperatorLimit } from '../../../src/routing/ledger-limits';
import { ledgerSnapshot } from '../../../src/routing/ledger-snapshot';
import { nextWindowStartAt, windowStartAt } from '../../../src/routing/ledger-window';

const T0 = Date.UTC(2025, 0, 15, 12, 0, 0);
const BOUND = 350_000; // nano-USD, one attempt's worst case
const MINUTE = 60_000;

function request(id: string, amountNanoUsd = BOUND, leaseMs = 10 * MINUTE): ReservationRequest {
  return { reservationId: id, amountNanoUsd, holder: `call-${id}`, leaseMs };
}

function limited(limitNanoUsd: number, period: 'day' | 'month' | null = null, now = T0): LedgerState {
  return setOperatorLimit(createLedgerState('team', now), { limitNanoUsd, period }, now);
}

function reserve(state: LedgerState, id: string, amount = BOUND, now = T0) {
  return reserveBatch(state, [request(id, amount)], now);
}

test('10 reservations against a budget for 3.5 grant exactly the first 3, each deducted at once', () => {
  const state = limited(3.5 * BOUND);
  const requests = Array.from({ length: 10 }, (_, index) => request(`r${index}`));
  const { state: after, decisions } = reserveBatch(state, requests, T0);
  expect(decisions.map((decision) => decision.granted)).toEqual([
    true,
    true,
    true,
    false,
    false,
    false,
    false,
    false,
    false,
    false,
  ]);
  expect(decisions[3]).toMatchObject({
    granted: false,
    reason: 'over_budget',
    requestedNanoUsd: BOUND,
    limitNanoUsd: 3.5 * BOUND,
    availableNanoUsd: 0.5 * BOUND,
    spentNanoUsd: 0,
    reservedNanoUsd: 3 * BOUND,
  });
  expect(reservedNanoUsd(after)).toBe(3 * BOUND);
  // The input state is untouched: the validator can run the same decision without committing it.
  expect(reservedNanoUsd(state)).toBe(0);
});

test('a later, smaller request still fits after a larger one is refused', () => {
  const { decisions } = reserveBatch(limited(1_000), [request('big', 2_000), request('small', 600)], T0);
  expect(decisions.map((decision) => decision.granted)).toEqual([false, true]);
});

test('an unlimited ledger grants everything and still tracks spend', () => {
  let state = createLedgerState('free', T0);
  const reserved = reserveBatch(state, [request('a'), request('b')], T0);
  expect(reserved.decisions.every((decision) => decision.granted)).toBe(true);
  state = settleReservation(
    reserved.state,
    { reservationId: 'a', costNanoUsd: 120, costKnown: true },
    T0,
  ).state;
  expect(state.spentNanoUsd).toBe(120);
  expect(availableNanoUsd(state)).toBeNull();
});

test('a repeated reserve of an open id returns its grant without deducting twice', () => {
  const first = reserve(limited(3 * BOUND), 'same');
  const again = reserveBatch(first.state, [request('same'), request('same')], T0 + 1_000);
  expect(again.decisions).toEqual([first.decisions[0], first.decisions[0]]);
  expect(reservedNanoUsd(again.state)).toBe(BOUND);
});

test('a reserve of an id already closed is refused: one id never pays for two attempts', () => {
  let state = reserve(limited(10 * BOUND), 'x').state;
  state = settleReservation(state, { reservationId: 'x', costNanoUsd: 10, costKnown: true }, T0).state;
  const { decisions } = reserve(state, 'x');
  expect(decisions[0]).toMatchObject({ granted: false, reason: 'closed' });
});

test('known usage is charged at its real cost and frees the rest of the reservation', () => {
  let state = reserve(limited(3.5 * BOUND), 'a').state;
  const settled = settleReservation(state, { reservationId: 'a', costNanoUsd: 1_234, costKnown: true }, T0);
  state = settled.state;
  expect(settled.effect).toEqual({ kind: 'closed', chargedNanoUsd: 1_234, overdraftNanoUsd: 0 });
  expect(state.spentNanoUsd).toBe(1_234);
  expect(reservedNanoUsd(state)).toBe(0);
  expect(state.spentNanoUsd + availableNanoUsd(state)!).toBe(3.5 * BOUND);
});

test('unknown usage is charged the full reservation, whatever cost comes with it', () => {
  const state = reserve(limited(3.5 * BOUND), 'a').state;
  const { state: after, effect } = settleReservation(
    state,
    { reservationId: 'a', costNanoUsd: 7, costKnown: false },
    T0,
  );
  expect(effect).toEqual({ kind: 'closed', chargedNanoUsd: BOUND, overdraftNanoUsd: 0 });
  expect(after.spentNanoUsd).toBe(BOUND);
});

test('a repeated or unknown settle charges nothing', () => {
  let state = reserve(limited(3.5 * BOUND), 'a').state;
  state = settleReservation(state, { reservationId: 'a', costNanoUsd: 100, costKnown: true }, T0).state;
  const repeated = settleReservation(state, { reservationId: 'a', costNanoUsd: 100, costKnown: true }, T0);
  expect(repeated.effect).toEqual({ kind: 'duplicate' });
  expect(repeated.state.spentNanoUsd).toBe(100);
  const stray = settleReservation(state, { reservationId: 'never', costNanoUsd: 100, costKnown: true }, T0);
  expect(stray.effect).toEqual({ kind: 'unmatched' });
  expect(stray.state.spentNanoUsd).toBe(100);
});

test('two closes of one reservation charge the most either asked, in either order, never the sum', () => {
  // The worker charged what the call cost (or released it) while its workflow, which lost sight of the attempt,
  // charged the whole bound and recorded that: the ledger ends at the record's charge.
  const real = { reservationId: 'a', costNanoUsd: 1_000, costKnown: true };
  const lost = { reservationId: 'a', costNanoUsd: 0, costKnown: false };
  const opened = reserve(limited(3.5 * BOUND), 'a').state;

  const realFirst = settleReservation(opened, real, T0).state;
  const toppedUp = settleReservation(realFirst, lost, T0);
  expect(toppedUp.effect).toEqual({ kind: 'closed', chargedNanoUsd: BOUND - 1_000, overdraftNanoUsd: 0 });
  expect(toppedUp.state.spentNanoUsd).toBe(BOUND);
  expect(settleReservation(toppedUp.state, lost, T0).state.spentNanoUsd).toBe(BOUND);
  expect(settleReservation(toppedUp.state, real, T0).state.spentNanoUsd).toBe(BOUND);

  const lostFirst = settleReservation(opened, lost, T0).state;
  expect(settleReservation(lostFirst, real, T0)).toMatchObject({
    effect: { kind: 'duplicate' },
    state: { spentNanoUsd: BOUND },
  });

  const released = releaseReservation(opened, 'a', T0).state;
  const afterRelease = settleReservation(released, lost, T0).state;
  expect(afterRelease.spentNanoUsd).toBe(BOUND);
  expect(releaseReservation(afterRelease, 'a', T0).state.spentNanoUsd).toBe(BOUND);
  expect(afterRelease.totals).toMatchObject({ granted: 1, released: 1, settled: 0 });
  expect(reservedNanoUsd(afterRelease)).toBe(0);
});

test('a close of an id that was never granted holds nothing to top up', () => {
  const early = releaseReservation(limited(BOUND), 'never', T0).state;
  const settled = settleReservation(early, { reservationId: 'never', costNanoUsd: 0, costKnown: false }, T0);
  expect(settled.effect).toEqual({ kind: 'duplicate' });
  expect(settled.state.spentNanoUsd).toBe(0);
});

test('a settle that comes before its reservation makes the late reservation refused', () => {
  // The attempt's worker died while its reservation was on the way; the call settled it as lost first.
  const early = settleReservation(
    limited(BOUND),
    { reservationId: 'lost', costNanoUsd: 0, costKnown: false },
    T0,
  );
  expect(early.effect).toEqual({ kind: 'unmatched' });
  expect(early.state.spentNanoUsd).toBe(0);
  expect(reserve(early.state, 'lost').decisions[0]).toMatchObject({ granted: false, reason: 'closed' });
  expect(availableNanoUsd(early.state)).toBe(BOUND);
});

test('more than the bound is charged in full, recorded as overdraft, and the next reservation is refused', () => {
  let state = reserve(limited(3.5 * BOUND), 'a').state;
  const settled = settleReservation(
    state,
    { reservationId: 'a', costNanoUsd: 3 * BOUND, costKnown: true },
    T0,
  );
  state = settled.state;
  expect(settled.effect).toEqual({ kind: 'closed', chargedNanoUsd: 3 * BOUND, overdraftNanoUsd: 2 * BOUND });
  expect(state.overdraftNanoUsd).toBe(2 * BOUND);
  expect(state.totals.overdrafts).toBe(1);
  const next = reserve(state, 'b');
  expect(next.decisions[0]).toMatchObject({
    granted: false,
    reason: 'over_budget',
    availableNanoUsd: 0.5 * BOUND,
    overdraftNanoUsd: 2 * BOUND,
  });
  // A second overdraft drives the available amount below zero; every number stays exact.
  const over = settleReservation(
    reserve(limited(BOUND), 'c').state,
    { reservationId: 'c', costNanoUsd: 3 * BOUND, costKnown: true },
    T0,
  ).state;
  expect(availableNanoUsd(over)).toBe(-2 * BOUND);
});

test('release frees without charge; a release that comes first makes the late reserve refused', () => {
  let state = reserve(limited(BOUND), 'a').state;
  state = releaseReservation(state, 'a', T0).state;
  expect(state.spentNanoUsd).toBe(0);
  expect(availableNanoUsd(state)).toBe(BOUND);
  expect(releaseReservation(state, 'a', T0).effect).toEqual({ kind: 'duplicate' });

  const early = releaseReservation(state, 'lost', T0);
  expect(early.effect).toEqual({ kind: 'unmatched' });
  expect(reserve(early.state, 'lost').decisions[0]).toMatchObject({ granted: false, reason: 'closed' });
});

test('an expired lease is charged in full, and its late settle charges nothing more', () => {
  let state = reserveBatch(limited(3.5 * BOUND), [request('held', BOUND, MINUTE)], T0).state;
  expect(nextWakeAt(state)).toBe(T0 + MINUTE);
  expect(advanceClock(state, T0 + MINUTE - 1).spentNanoUsd).toBe(0);
  state = advanceClock(state, T0 + MINUTE);
  expect(state.spentNanoUsd).toBe(BOUND);
  expect(state.reservations).toEqual({});
  expect(state.totals.expired).toBe(1);
  const late = settleReservation(
    state,
    { reservationId: 'held', costNanoUsd: 10, costKnown: true },
    T0 + 2 * MINUTE,
  );
  expect(late.effect).toEqual({ kind: 'duplicate' });
  expect(late.state.spentNanoUsd).toBe(BOUND);
});

test('every transition applies the clock first: a reserve sees leases that ran out before it', () => {
  const state = reserveBatch(limited(BOUND), [request('held', BOUND, MINUTE)], T0).state;
  const { decisions, state: after } = reserveBatch(state, [request('next', 1)], T0 + MINUTE);
  expect(decisions[0]).toMatchObject({ granted: false, availableNanoUsd: 0 });
  expect(after.spentNanoUsd).toBe(BOUND);
});

test('a daily window resets spend at UTC midnight and keeps open reservations', () => {
  let state = limited(10 * BOUND, 'day');
  expect(state.windowStartedAt).toBe(Date.UTC(2025, 0, 15));
  state = reserveBatch(
    state,
    [
      request('spent'),
      request('open', BOUND, 24 * 60 * MINUTE),
      request('runs-out', BOUND, 11 * 60 * MINUTE + 59 * MINUTE),
    ],
    T0,
  ).state;
  state = settleReservation(state, { reservationId: 'spent', costNanoUsd: 500, costKnown: true }, T0).state;
  const midnight = Date.UTC(2025, 0, 16);
  expect(nextWakeAt(state)).toBe(T0 + 11 * 60 * MINUTE + 59 * MINUTE);
  state = advanceClock(state, midnight);
  expect(state.windowStartedAt).toBe(midnight);
  expect(state.spentNanoUsd).toBe(0);
  // The lease that ran out before midnight was charged to the day it ran out in.
  expect(state.previousWindow).toEqual({
    startedAt: Date.UTC(2025, 0, 15),
    endedAt: midnight,
    spentNanoUsd: 500 + BOUND,
    overdraftNanoUsd: 0,
  });
  expect(Object.keys(state.reservations)).toEqual(['open']);
  expect(ledgerSnapshot(state).nextResetAt).toBe('2025-01-17T00:00:00.000Z');
});

test('a ledger asleep for several windows resets once, to the window that contains now', () => {
  const state = advanceClock(limited(BOUND, 'day'), Date.UTC(2025, 0, 20, 5));
  expect(state.windowStartedAt).toBe(Date.UTC(2025, 0, 20));
  expect(state.previousWindow?.startedAt).toBe(Date.UTC(2025, 0, 15));
});

test('monthly windows follow the UTC calendar, across month and year ends', () => {
  const month = { period: 'month' as const, windowMs: null };
  expect(windowStartAt(month, Date.UTC(2025, 0, 31, 23, 59))).toBe(Date.UTC(2025, 0, 1));
  expect(nextWindowStartAt(month, Date.UTC(2025, 0, 1))).toBe(Date.UTC(2025, 1, 1));
  expect(nextWindowStartAt(month, Date.UTC(2025, 11, 1))).toBe(Date.UTC(2026, 0, 1));
  expect(nextWindowStartAt({ period: 'day', windowMs: null }, Date.UTC(2024, 1, 28))).toBe(
    Date.UTC(2024, 1, 29),
  );
  expect(nextWindowStartAt({ period: null, windowMs: null }, T0)).toBeNull();
});

test('a fixed test window replaces the calendar period', () => {
  let state = setOperatorLimit(createLedgerState('t', T0, { windowMs: 1_000 }), { limitNanoUsd: BOUND }, T0);
  state = settleReservation(
    reserve(state, 'a').state,
    { reservationId: 'a', costNanoUsd: BOUND, costKnown: true },
    T0,
  ).state;
  expect(nextWakeAt(state)).toBe(T0 + 1_000);
  expect(advanceClock(state, T0 + 1_000).spentNanoUsd).toBe(0);
});

test('a ledger without a period never resets', () => {
  const state = settleReservation(
    reserve(limited(BOUND), 'a').state,
    { reservationId: 'a', costNanoUsd: 5, costKnown: true },
    T0,
  ).state;
  expect(nextWakeAt(state)).toBeNull();
  expect(advanceClock(state, T0 + 400 * 24 * 60 * MINUTE).spentNanoUsd).toBe(5);
});

test('the config declaration applies once per change; an operator limit holds until the config changes', () => {
  let state = createLedgerState('team', T0);
  state = applyConfigLimit(state, { limitNanoUsd: 5_000, period: 'day' }, T0);
  expect(state).toMatchObject({ limitNanoUsd: 5_000, period: 'day', limitSource: 'config' });
  state = setOperatorLimit(state, { limitNanoUsd: 9_000 }, T0);
  expect(state).toMatchObject({ limitNanoUsd: 9_000, period: 'day', limitSource: 'operator' });
  expect(applyConfigLimit(state, { limitNanoUsd: 5_000, period: 'day' }, T0)).toBe(state);
  state = applyConfigLimit(state, { limitNanoUsd: 6_000, period: null }, T0);
  expect(state).toMatchObject({ limitNanoUsd: 6_000, period: null, limitSource: 'config' });
});

test('changing the period keeps the spend and starts the window that contains now', () => {
  let state = settleReservation(
    reserve(limited(10 * BOUND), 'a').state,
    { reservationId: 'a', costNanoUsd: 77, costKnown: true },
    T0,
  ).state;
  state = setOperatorLimit(state, { limitNanoUsd: 10 * BOUND, period: 'month' }, T0);
  expect(state.windowStartedAt).toBe(Date.UTC(2025, 0, 1));
  expect(state.spentNanoUsd).toBe(77);
});

test('sums that would leave the safe-integer range are refused, not rounded', () => {
  let state = createLedgerState('huge', T0);
  state = reserveBatch(state, [request('a', Number.MAX_SAFE_INTEGER - 10)], T0).state;
  expect(reserveBatch(state, [request('b', 100)], T0).decisions[0]).toMatchObject({
    granted: false,
    reason: 'over_budget',
  });
});

test('the closed-id memory is bounded, oldest first', () => {
  let state = createLedgerState('busy', T0);
  for (let index = 0; index < CLOSED_RESERVATIONS_REMEMBERED + 5; index += 1)
    state = releaseReservation(state, `r${index}`, T0).state;
  expect(state.closed).toHaveLength(CLOSED_RESERVATIONS_REMEMBERED);
  expect(state.closed[0]?.reservationId).toBe('r5');
});

test('state and snapshot are plain JSON: they survive the payload converter unchanged', () => {
  const state = reserveBatch(limited(3.5 * BOUND, 'day'), [request('a'), request('b')], T0).state;
  expect(JSON.parse(JSON.stringify(state))).toEqual(state);
  const snapshot = ledgerSnapshot(state);
  expect(JSON.parse(JSON.stringify(snapshot))).toEqual(snapshot);
  expect(snapshot).toMatchObject({
    scope: 'team',
    limitNanoUsd: 3.5 * BOUND,
    limitUsd: 0.001225,
    spentNanoUsd: 0,
    reservedNanoUsd: 2 * BOUND,
    availableNanoUsd: 1.5 * BOUND,
    period: 'day',
    windowStartedAt: '2025-01-15T00:00:00.000Z',
  });
  expect(snapshot.openReservations.map((open) => open.reservationId)).toEqual(['a', 'b']);
});

describe('a ledger that reconciles expired leases', () => {
  const reconciling = (limit = 3.5 * BOUND) => ({ ...limited(limit), leaseExpiry: 'reconcile' as const });
  const held = () => reserveBatch(reconciling(), [request('lost', BOUND, MINUTE)], T0).state;

  test('a lease that ran out is held, marked for reconciling, and wakes the ledger no more', () => {
    const expired = advanceClock(held(), T0 + MINUTE);
    expect(expired.reservations.lost).toMatchObject({ reconciling: true, amountNanoUsd: BOUND });
    expect(reservedNanoUsd(expired)).toBe(BOUND);
    expect(expired.spentNanoUsd).toBe(0);
    expect(nextWakeAt(expired)).toBeNull();
    expect(reconcilingReservations(expired).map(([id]) => id)).toEqual(['lost']);
  });

  test('the holder’s record decides the charge: its known cost, or the whole reservation', () => {
    const expired = advanceClock(held(), T0 + MINUTE);
    const known = reconcileReservation(
      expired,
      'lost',
      { kind: 'charge', costNanoUsd: 42, costKnown: true },
      T0,
    );
    expect(known).toMatchObject({ spentNanoUsd: 42, reservations: {} });
    expect(known.totals).toMatchObject({ settled: 1, expired: 0 });
    const unknown = reconcileReservation(
      expired,
      'lost',
      { kind: 'charge', costNanoUsd: 0, costKnown: false },
      T0,
    );
    expect(unknown).toMatchObject({ spentNanoUsd: BOUND, reservations: {} });
    expect(unknown.totals).toMatchObject({ expired: 1 });
    // Closed either way: a late copy of the reservation is refused.
    expect(reserve(known, 'lost').decisions[0]).toMatchObject({ granted: false, reason: 'closed' });
  });

  test('a holder still on the attempt gets a new lease', () => {
    const expired = advanceClock(held(), T0 + MINUTE);
    const extended = reconcileReservation(expired, 'lost', { kind: 'extend', leaseMs: MINUTE }, T0 + MINUTE);
    expect(extended.reservations.lost).toEqual({
      amountNanoUsd: BOUND,
      holder: 'call-lost',
      reservedAt: T0,
      leaseExpiresAt: T0 + 2 * MINUTE,
    });
    expect(nextWakeAt(extended)).toBe(T0 + 2 * MINUTE);
  });

  test('a settle that arrives while reconciling closes it; the reconciliation after it changes nothing', () => {
    const expired = advanceClock(held(), T0 + MINUTE);
    const settled = settleReservation(
      expired,
      { reservationId: 'lost', costNanoUsd: 7, costKnown: true },
      T0,
    ).state;
    expect(settled.spentNanoUsd).toBe(7);
    const after = reconcileReservation(
      settled,
      'lost',
      { kind: 'charge', costNanoUsd: 0, costKnown: false },
      T0,
    );
    expect(after).toBe(settled);
  });

  test('a ledger that does not say charges an expired lease in full, as before', () => {
    const state = reserveBatch(limited(3.5 * BOUND), [request('lost', BOUND, MINUTE)], T0).state;
    expect(advanceClock(state, T0 + MINUTE)).toMatchObject({ spentNanoUsd: BOUND, reservations: {} });
  });
});

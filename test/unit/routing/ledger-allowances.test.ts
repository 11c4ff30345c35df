// Allowances in the ledger state machine: granted only while they leave as much for others, claims moved out of
// them by id, and what is left given back only in an activation after the one that saw the lease end.
import {
  advanceClock,
  claimFromAllowance,
  createLedgerState,
  nextWakeAt,
  releaseReservation,
  reserveBatch,
  reservedNanoUsd,
  settleReservation,
  type LedgerState,
  type ReservationRequest,
} from '../../../src/routing/ledger-state';
import { setOperatorLimit } from '../../../src/routing/ledger-limits';
import { ledgerSnapshot } from '../../../src/routing/ledger-snapshot';

const T0 = Date.UTC(2026, 11, 6, 12, 0, 0);
const BOUND = 100_000;
const LEASE = 3_000;

function limited(limitNanoUsd: number | null): LedgerState {
  return setOperatorLimit(createLedgerState('team', T0), { limitNanoUsd, period: null }, T0);
}

function allowance(id: string, amountNanoUsd: number): ReservationRequest {
  return { reservationId: id, amountNanoUsd, holder: 'worker w1', leaseMs: LEASE, allowance: true };
}

function claim(id: string, amountNanoUsd = BOUND): ReservationRequest {
  return { reservationId: id, amountNanoUsd, holder: `call-${id}`, leaseMs: 60_000 };
}

function granted(limit: number | null, amount: number, now = T0): LedgerState {
  const { state, decisions } = reserveBatch(limited(limit), [allowance('a1', amount)], now);
  expect(decisions[0]).toMatchObject({ granted: true, allowance: true, amountNanoUsd: amount });
  return state;
}

test('an allowance is granted only while it leaves at least as much for everyone else', () => {
  const state = limited(10 * BOUND);
  expect(reserveBatch(state, [allowance('a1', 6 * BOUND)], T0).decisions[0]!.granted).toBe(false);
  expect(reserveBatch(state, [allowance('a1', 5 * BOUND)], T0).decisions[0]!.granted).toBe(true);
  // A call's own reservation before it in the same batch counts: 4 left, so 2 at most.
  const batch = reserveBatch(state, [claim('c0', 6 * BOUND), allowance('a1', 3 * BOUND)], T0);
  expect(batch.decisions.map((decision) => decision.granted)).toEqual([true, false]);
  // Unlimited scopes grant any allowance; the totals count attempts, not allowances.
  const unlimited = reserveBatch(limited(null), [allowance('a1', 1e12)], T0).state;
  expect(unlimited.totals.granted).toBe(0);
});

test('a claim moves its amount out of the allowance into a reservation of its own: nothing more is held', () => {
  const state = granted(10 * BOUND, 4 * BOUND);
  const { state: after, effects } = claimFromAllowance(
    state,
    { allowanceId: 'a1', claims: [claim('c1'), claim('c2')] },
    T0 + 10,
  );
  expect(effects).toEqual(['claimed', 'claimed']);
  expect(reservedNanoUsd(after)).toBe(4 * BOUND);
  expect(after.reservations['a1']!.amountNanoUsd).toBe(2 * BOUND);
  expect(after.reservations['c1']).toMatchObject({ amountNanoUsd: BOUND, holder: 'call-c1' });
  expect(after.totals.granted).toBe(2);
  // Settled like any reservation: the real cost is spent, the rest frees.
  const settled = settleReservation(
    after,
    { reservationId: 'c1', costNanoUsd: 30, costKnown: true },
    T0 + 20,
  );
  expect(settled.state.spentNanoUsd).toBe(30);
  expect(ledgerSnapshot(after).openReservations.find((open) => open.reservationId === 'a1')).toMatchObject({
    allowance: true,
  });
});

test('a claim the allowance cannot cover, or on an id already open or closed, holds nothing', () => {
  let state = granted(10 * BOUND, 2 * BOUND);
  state = claimFromAllowance(state, { allowanceId: 'a1', claims: [claim('c1')] }, T0).state;
  state = releaseReservation(state, 'c9', T0).state;
  const { state: after, effects } = claimFromAllowance(
    state,
    {
      allowanceId: 'a1',
      claims: [claim('c1'), claim('c9'), claim('c2', 2 * BOUND), claim('c3')],
    },
    T0,
  );
  expect(effects).toEqual(['duplicate', 'duplicate', 'exceeds_allowance', 'claimed']);
  expect(reservedNanoUsd(after)).toBe(2 * BOUND);
  expect(claimFromAllowance(after, { allowanceId: 'nope', claims: [claim('c4')] }, T0).effects).toEqual([
    'no_allowance',
  ]);
});

test('the lease ending only marks the allowance: a claim in the same activation still counts, and the rest goes back in a later one', () => {
  const state = granted(10 * BOUND, 4 * BOUND);
  const end = T0 + LEASE;
  expect(nextWakeAt(state)).toBe(end);
  // The activation that sees the end: whatever order its messages run in, a claim in it is honoured.
  let seen = advanceClock(state, end);
  expect(seen.reservations['a1']).toMatchObject({ expiringSince: end, amountNanoUsd: 4 * BOUND });
  expect(nextWakeAt(seen)).toBe(end + 1);
  const claimed = claimFromAllowance(seen, { allowanceId: 'a1', claims: [claim('c1')] }, end);
  expect(claimed.effects).toEqual(['claimed']);
  seen = claimed.state;
  // Still the same instant: nothing goes back yet.
  expect(advanceClock(seen, end).reservations['a1']).toBeDefined();
  // A later activation gives back what no claim took; a claim arriving then holds nothing.
  const later = advanceClock(seen, end + 1);
  expect(later.reservations['a1']).toBeUndefined();
  expect(reservedNanoUsd(later)).toBe(BOUND);
  expect(later.totals.released).toBe(0);
  expect(claimFromAllowance(later, { allowanceId: 'a1', claims: [claim('c2')] }, end + 1).effects).toEqual([
    'no_allowance',
  ]);
  // The id is remembered: a copy of the ask cannot be granted again.
  expect(reserveBatch(later, [allowance('a1', BOUND)], end + 2).decisions[0]).toMatchObject({
    granted: false,
    reason: 'closed',
  });
});

test('a claim that comes after its worker gave the allowance back holds nothing', () => {
  let state = granted(10 * BOUND, 4 * BOUND);
  state = releaseReservation(state, 'a1', T0 + 5).state;
  expect(reservedNanoUsd(state)).toBe(0);
  expect(claimFromAllowance(state, { allowanceId: 'a1', claims: [claim('c1')] }, T0 + 6).effects).toEqual([
    'no_allowance',
  ]);
});

test('an expired allowance is never charged or reconciled: it held nobody’s attempt', () => {
  const state = { ...granted(10 * BOUND, 4 * BOUND), leaseExpiry: 'reconcile' as const };
  const later = advanceClock(advanceClock(state, T0 + LEASE), T0 + LEASE + 5);
  expect(later.spentNanoUsd).toBe(0);
  expect(later.totals.expired).toBe(0);
  expect(Object.keys(later.reservations)).toEqual([]);
});

test('a ledger about to continue as new refuses asks for allowances and still grants reservations', () => {
  const { decisions } = reserveBatch(limited(10 * BOUND), [claim('c1'), allowance('a1', BOUND)], T0, {
    refuseAllowances: true,
  });
  expect(decisions.map((decision) => decision.granted)).toEqual([true, false]);
});

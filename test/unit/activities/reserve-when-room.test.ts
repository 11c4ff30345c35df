// When an attempt asks the ledger again: only while the budget it needs is held by others, never once it is spent.
import { heldNotSpent, reserveWhenRoom } from '../../../src/activities/reserve-when-room';
import type { ReservationDecision, ReservationRefusal } from '../../../src/routing/ledger-state';

const refusal = (fields: Partial<ReservationRefusal>): ReservationRefusal => ({
  granted: false,
  reservationId: 'r1',
  reason: 'over_budget',
  requestedNanoUsd: 100,
  limitNanoUsd: 350,
  availableNanoUsd: 50,
  spentNanoUsd: 0,
  reservedNanoUsd: 300,
  overdraftNanoUsd: 0,
  ...fields,
});
const grant: ReservationDecision = {
  granted: true,
  reservationId: 'r1',
  amountNanoUsd: 100,
  leaseExpiresAt: 0,
};

/** A ledger that answers from a script, counting the asks; a missing answer repeats the last. */
function scripted(answers: readonly ReservationDecision[]) {
  let asks = 0;
  return {
    reserve: () => Promise.resolve(answers[Math.min(asks++, answers.length - 1)]!),
    get asks() {
      return asks;
    },
  };
}
const noSleep = () => Promise.resolve();

test('a refusal is held-not-spent only when the request fits in what is unspent and others hold the rest', () => {
  expect(heldNotSpent(refusal({}))).toBe(true);
  // Spent past the request: exhausted, whatever is in flight.
  expect(heldNotSpent(refusal({ spentNanoUsd: 300, reservedNanoUsd: 40, availableNanoUsd: 10 }))).toBe(false);
  // Nothing in flight: nothing will come back.
  expect(heldNotSpent(refusal({ reservedNanoUsd: 0, availableNanoUsd: 50 }))).toBe(false);
  expect(heldNotSpent(refusal({ reason: 'closed' }))).toBe(false);
  expect(heldNotSpent(refusal({ limitNanoUsd: null, availableNanoUsd: null }))).toBe(false);
});

test('asks again while the budget is held, and takes the grant when it comes', async () => {
  const ledger = scripted([refusal({}), refusal({}), grant]);
  await expect(reserveWhenRoom(ledger.reserve, { sleep: noSleep })).resolves.toEqual(grant);
  expect(ledger.asks).toBe(3);
});

test('an exhausted scope is refused at the first answer', async () => {
  const spent = refusal({ spentNanoUsd: 300, reservedNanoUsd: 0, availableNanoUsd: 50 });
  const ledger = scripted([spent, grant]);
  await expect(reserveWhenRoom(ledger.reserve, { sleep: noSleep })).resolves.toEqual(spent);
  expect(ledger.asks).toBe(1);
});

test('stops asking once the wait is over or the attempt no longer wants it', async () => {
  const held = scripted([refusal({})]);
  await expect(reserveWhenRoom(held.reserve, { waitMs: 0, sleep: noSleep })).resolves.toMatchObject({
    granted: false,
  });
  expect(held.asks).toBe(1);
  const unwanted = scripted([refusal({})]);
  let wanted = 2;
  await reserveWhenRoom(unwanted.reserve, { sleep: noSleep, wanted: () => wanted-- > 0 });
  expect(unwanted.asks).toBe(3);
});

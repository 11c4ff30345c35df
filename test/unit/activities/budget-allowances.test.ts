// A worker's allowances, against a ledger state machine in memory: claims granted without a ledger update,
// recorded before they are trusted, never trusted late, and the allowance given back only after its claims.
import {
  BudgetAllowances,
  type BudgetAllowanceOptions,
  type SendClaims,
} from '../../../src/activities/budget-allowances';
import { LedgerMessageBatcher, type SendLedgerBatch } from '../../../src/activities/ledger-batcher';
import {
  claimFromAllowance,
  createLedgerState,
  releaseReservation,
  reserveBatch,
  reservedNanoUsd,
  type LedgerState,
  type ReservationRequest,
} from '../../../src/routing/ledger-state';
import { setOperatorLimit } from '../../../src/routing/ledger-limits';

const BOUND = 1_000;

function call(id: string): ReservationRequest {
  return { reservationId: id, amountNanoUsd: BOUND, holder: `call-${id}`, leaseMs: 60_000 };
}

/** One scope's ledger as the state machine, with every message it received in order. */
function memoryLedger(limitNanoUsd: number | null) {
  let state: LedgerState = setOperatorLimit(createLedgerState('team', 0), { limitNanoUsd, period: null }, 0);
  const messages: string[] = [];
  let claimGate: Promise<void> | undefined;
  let failClaims = false;
  const send: SendLedgerBatch = async (_scope, batch) => {
    for (const { reservationId } of batch.releases) {
      messages.push(`release ${reservationId}`);
      state = releaseReservation(state, reservationId, 0).state;
    }
    for (const { reservationId } of batch.settlements) messages.push(`settle ${reservationId}`);
    for (const request of batch.requests) messages.push(`reserve ${request.reservationId}`);
    const outcome = reserveBatch(state, batch.requests, 0);
    state = outcome.state;
    return outcome.decisions;
  };
  const sendClaims: SendClaims = async (_scope, claims) => {
    await claimGate;
    if (failClaims) throw new Error('unavailable');
    for (const { reservationId } of claims.settlements ?? []) messages.push(`settle ${reservationId}`);
    for (const { reservationId } of claims.releases ?? []) {
      messages.push(`release ${reservationId}`);
      state = releaseReservation(state, reservationId, 0).state;
    }
    messages.push(`claim ${claims.claims.map((each) => each.reservationId).join(',')}`);
    state = claimFromAllowance(state, claims, 0).state;
  };
  return {
    send,
    sendClaims,
    messages,
    state: () => state,
    holdClaims(gate: Promise<void>) {
      claimGate = gate;
    },
    failClaims() {
      failClaims = true;
    },
  };
}

/** A memory ledger, a batcher and the allowances over them; `options` are the allowances' own. */
function setup(limit: number | null, clock = { now: 0 }, lingerMs = 0, options: BudgetAllowanceOptions = {}) {
  const ledger = memoryLedger(limit);
  const batcher = new LedgerMessageBatcher(ledger.send, { lingerMs });
  const allowances = new BudgetAllowances(batcher, ledger.sendClaims, {
    now: () => clock.now,
    idleMs: 60_000,
    ...options,
  });
  return { ledger, allowances, clock, batcher };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

/** A settle of `reservationId` that waits in the batcher for company (a claim or an update to ride with). */
function lingeringSettle(batcher: LedgerMessageBatcher, reservationId: string, costNanoUsd: number) {
  return batcher.settle('team', { reservationId, costNanoUsd, costKnown: true }, { linger: true });
}

test('after the first call asks beside its own reservation, the next calls are claims, not reserve updates', async () => {
  const { ledger, allowances } = setup(1_000 * BOUND);
  expect(await allowances.reserve('team', call('c1'))).toMatchObject({ granted: true });
  await settle();
  for (const id of ['c2', 'c3', 'c4']) {
    expect(await allowances.reserve('team', call(id))).toMatchObject({ granted: true, reservationId: id });
  }
  const reserves = ledger.messages.filter((message) => message.startsWith('reserve'));
  expect(reserves).toHaveLength(2); // c1 and the ask beside it
  expect(ledger.messages.filter((message) => message.startsWith('claim'))).toEqual([
    'claim c2',
    'claim c3',
    'claim c4',
  ]);
  // The ledger holds the same total as one reservation per call would, plus what the allowance has left.
  const state = ledger.state();
  expect(Object.keys(state.reservations).filter((id) => id.startsWith('c'))).toHaveLength(4);
  expect(state.totals.granted).toBe(4);
});

test('a claim is trusted only once recorded; one recorded after the claim window goes to the ledger by its id', async () => {
  const { ledger, allowances, clock } = setup(1_000 * BOUND);
  await allowances.reserve('team', call('c1'));
  await settle();
  let open!: () => void;
  ledger.holdClaims(new Promise<void>((resolve) => (open = resolve)));
  let answered = false;
  const late = allowances.reserve('team', call('c2')).then((decision) => {
    answered = true;
    return decision;
  });
  await settle();
  expect(answered).toBe(false);
  clock.now = 2_500; // past the 2 s window before the claim is recorded
  open();
  expect(await late).toMatchObject({ granted: true, reservationId: 'c2' });
  // The ledger was asked for c2 itself: it already held it from the claim, so it answered with that grant.
  expect(ledger.messages).toContain('reserve c2');
  expect(reservedNanoUsd(ledger.state())).toBeGreaterThanOrEqual(2 * BOUND);
});

test('a claim whose signal fails is asked of the ledger the usual way', async () => {
  const { ledger, allowances } = setup(1_000 * BOUND);
  await allowances.reserve('team', call('c1'));
  await settle();
  ledger.failClaims();
  expect(await allowances.reserve('team', call('c2'))).toMatchObject({ granted: true, reservationId: 'c2' });
  expect(ledger.messages.slice(-1)).toEqual(['reserve c2']);
});

test('an allowance goes back only after every claim on it was recorded, so no claim can follow its release', async () => {
  const { ledger, allowances, clock } = setup(1_000 * BOUND);
  await allowances.reserve('team', call('c1'));
  await settle();
  let open!: () => void;
  ledger.holdClaims(new Promise<void>((resolve) => (open = resolve)));
  const claimed = allowances.reserve('team', call('c2'));
  await settle();
  // The window ends while c2's claim is out: the worker retires the allowance but must not release it yet.
  clock.now = 2_100;
  const after = allowances.reserve('team', call('c3'));
  await settle();
  expect(ledger.messages.some((message) => message.startsWith('release allowance'))).toBe(false);
  open();
  await claimed;
  await after;
  await settle();
  const claimAt = ledger.messages.indexOf('claim c2');
  const releaseAt = ledger.messages.findIndex((message) => message.startsWith('release allowance'));
  expect(claimAt).toBeGreaterThanOrEqual(0);
  expect(releaseAt).toBeGreaterThan(claimAt);
});

test('near exhaustion no allowance is granted and every call reserves on the ledger, exactly', async () => {
  const { ledger, allowances } = setup(3.5 * BOUND);
  const decisions = await Promise.all(
    Array.from({ length: 10 }, (_, index) => allowances.reserve('team', call(`c${index}`))),
  );
  expect(decisions.filter((decision) => decision.granted)).toHaveLength(3);
  expect(ledger.messages.some((message) => message.startsWith('claim'))).toBe(false);
});

test('a ledger that grants the ask without the allowance mark (older than allowances) gets it back at once', async () => {
  const { ledger, allowances } = setup(1_000 * BOUND);
  const oldSend = ledger.send;
  const batcher = new LedgerMessageBatcher(
    async (scope, batch) =>
      (await oldSend(scope, batch)).map((decision) => {
        if (!decision.granted) return decision;
        const { allowance: _mark, ...plain } = decision;
        return plain;
      }),
    { lingerMs: 0 },
  );
  const old = new BudgetAllowances(batcher, ledger.sendClaims);
  await old.reserve('team', call('c1'));
  await settle();
  await old.reserve('team', call('c2'));
  await settle();
  expect(ledger.messages.filter((message) => message.startsWith('claim'))).toEqual([]);
  expect(ledger.messages.some((message) => message.startsWith('release allowance'))).toBe(true);
  expect(allowances.openAllowances).toBe(0);
});

test('a settle waiting for company leaves with the next claim instead of an update of its own', async () => {
  const { ledger, allowances, batcher } = setup(1_000 * BOUND, { now: 0 }, 60_000);
  await allowances.reserve('team', call('c1'));
  await settle();
  await allowances.reserve('team', call('c2'));
  const settled = lingeringSettle(batcher, 'c2', 7);
  await allowances.reserve('team', call('c3'));
  await settled;
  expect(ledger.messages.slice(-2)).toEqual(['settle c2', 'claim c3']);
  expect(ledger.messages.filter((message) => message.startsWith('reserve'))).toHaveLength(2);
});

test('a claim that fails gives the settles it carried back to the batcher, which sends them', async () => {
  const { ledger, allowances, batcher } = setup(1_000 * BOUND, { now: 0 }, 60_000);
  await allowances.reserve('team', call('c1'));
  await settle();
  const settled = lingeringSettle(batcher, 'c1', 7);
  ledger.failClaims();
  await allowances.reserve('team', call('c2'));
  await settled;
  expect(ledger.messages).toContain('settle c1');
});

test('claims queued behind a slow signal leave in signals of at most 500 messages, settles included', async () => {
  const ledger = memoryLedger(null);
  const batcher = new LedgerMessageBatcher(ledger.send, { lingerMs: 60_000 });
  const sizes: number[] = [];
  const allowances = new BudgetAllowances(
    batcher,
    async (scope, claims) => {
      sizes.push(claims.claims.length + (claims.settlements?.length ?? 0) + (claims.releases?.length ?? 0));
      await ledger.sendClaims(scope, claims);
    },
    { now: () => 0, idleMs: 60_000, initialMultiple: 2_000, maxMultiple: 2_000 },
  );
  await allowances.reserve('team', call('c0'));
  await settle();
  let open!: () => void;
  ledger.holdClaims(new Promise<void>((resolve) => (open = resolve)));
  const first = allowances.reserve('team', call('c1'));
  await settle();
  const settles = Array.from({ length: 300 }, (_, index) => lingeringSettle(batcher, `s${index}`, 1));
  const queued = Array.from({ length: 600 }, (_, index) => allowances.reserve('team', call(`q${index}`)));
  open();
  const decisions = await Promise.all([first, ...queued]);
  await Promise.all(settles);
  expect(decisions.every((decision) => decision.granted)).toBe(true);
  expect(Math.max(...sizes)).toBeLessThanOrEqual(500);
  expect(Object.keys(ledger.state().reservations).filter((id) => /^(c|q)\d/.test(id))).toHaveLength(602);
});

test('a wall clock that moved past the claim window makes a claim untrusted though the monotonic clock did not', async () => {
  const wall = { now: 0 };
  const { ledger, allowances } = setup(1_000 * BOUND, { now: 0 }, 0, { wallNow: () => wall.now });
  await allowances.reserve('team', call('c1'));
  await settle();
  let open!: () => void;
  ledger.holdClaims(new Promise<void>((resolve) => (open = resolve)));
  const late = allowances.reserve('team', call('c2'));
  await settle();
  wall.now = 2_500; // a suspended machine: the monotonic clock stood still
  open();
  await late;
  expect(ledger.messages).toContain('reserve c2');
});

test('an allowance too small for the next call goes back at once, before that call reserves on the ledger', async () => {
  const { ledger, allowances } = setup(1_000 * BOUND, { now: 0 }, 0, { initialMultiple: 2 });
  await allowances.reserve('team', call('c1'));
  await settle();
  const big = { ...call('big'), amountNanoUsd: 3 * BOUND };
  await allowances.reserve('team', big);
  await settle();
  const releaseAt = ledger.messages.findIndex((message) => message.startsWith('release allowance'));
  expect(releaseAt).toBeGreaterThanOrEqual(0);
  expect(releaseAt).toBeLessThan(ledger.messages.indexOf('reserve big'));
});

test('a settle taken by a claim that fails is sent again while the scope still has an update in flight', async () => {
  const ledger = memoryLedger(1_000 * BOUND);
  const gate: { hold?: Promise<void> } = {};
  const batcher = new LedgerMessageBatcher(
    async (scope, batch) => {
      await gate.hold;
      return ledger.send(scope, batch);
    },
    { lingerMs: 60_000 },
  );
  const allowances = new BudgetAllowances(batcher, ledger.sendClaims, { now: () => 0, idleMs: 60_000 });
  await allowances.reserve('team', call('c1'));
  await settle();
  let open!: () => void;
  gate.hold = new Promise<void>((resolve) => (open = resolve));
  const inFlight = batcher.reserve('team', call('x1')); // an update in flight keeps the lane
  await settle();
  const settled = lingeringSettle(batcher, 'c1', 7);
  ledger.failClaims();
  const fallback = allowances.reserve('team', call('c2'));
  await settle();
  open();
  await Promise.all([inFlight, fallback, settled]);
  expect(ledger.messages).toContain('settle c1');
});

// The ledger entity on a real dev server: settle rules, overdraft, lease expiry, window reset, continue-as-new with
// reservations open, idempotency, limits from config and operator, and the client API.
import type { ReservationRequest } from '../../src/routing/ledger-state';
import { createLedgerSender } from '../../src/activities/reserve-budget';
import { InvalidRequestError } from '../../src/client/errors';
import { Ledgers } from '../../src/client/ledgers';
import { ledgerWorkflowId } from '../../src/workflows/ledger/ledger-definitions';
import { startLedgerHarness, waitFor, type LedgerHarness } from '../support/ledger-harness';
import { finishCallerSignal } from '../support/ledger-test-workflows';
import { uniqueName } from '../support/temporal';

/** One attempt's worst-case bound: 0.35 USD. */
const BOUND = 350_000_000;

let harness: LedgerHarness;
beforeAll(async () => {
  harness = await startLedgerHarness();
});
afterAll(async () => harness?.close());

test('known usage is charged at its real cost, unknown usage at the full reservation, a release at nothing', async () => {
  const scope = uniqueName('settle');
  await harness.withWorkers({ budgets: { [scope]: { limitUsd: 5 } } }, async ({ callers, ledgers }) => {
    const decisions = await callers([
      { scope, amountNanoUsd: BOUND, then: { settle: { costNanoUsd: 12_345, costKnown: true } } },
      { scope, amountNanoUsd: BOUND, then: { settle: { costNanoUsd: 0, costKnown: false } } },
      { scope, amountNanoUsd: BOUND, then: 'release' },
    ]);
    expect(decisions.every((decision) => decision.granted)).toBe(true);
    await waitFor('the settles and the release', async () => {
      const totals = (await ledgers.get(scope))?.totals;
      return totals?.settled === 2 && totals.released === 1;
    });
    const snapshot = (await ledgers.get(scope))!;
    // The known cost exactly, plus the whole bound of the attempt whose usage is unknown (timeout after send).
    expect(snapshot).toMatchObject({ spentNanoUsd: 12_345 + BOUND, reservedNanoUsd: 0, overdraftNanoUsd: 0 });
    expect(snapshot.spentNanoUsd + snapshot.availableNanoUsd!).toBe(5_000_000_000);
  });
});

test('a cost beyond the bound is charged in full as overdraft, and the next reservation is refused with the numbers', async () => {
  const scope = uniqueName('overdraft');
  await harness.withWorkers({ budgets: { [scope]: { limitUsd: 1.225 } } }, async ({ callers, ledgers }) => {
    const [first] = await callers([
      { scope, amountNanoUsd: BOUND, then: { settle: { costNanoUsd: 3 * BOUND, costKnown: true } } },
    ]);
    expect(first?.granted).toBe(true);
    await waitFor('the settle', async () => (await ledgers.get(scope))?.totals.settled === 1);
    expect(await ledgers.get(scope)).toMatchObject({
      spentNanoUsd: 3 * BOUND,
      overdraftNanoUsd: 2 * BOUND,
      totals: { overdrafts: 1 },
    });

    const [next] = await callers([{ scope, amountNanoUsd: BOUND, then: 'release' }]);
    expect(next).toMatchObject({
      granted: false,
      reason: 'over_budget',
      requestedNanoUsd: BOUND,
      limitNanoUsd: 1_225_000_000,
      availableNanoUsd: 175_000_000,
      spentNanoUsd: 3 * BOUND,
      overdraftNanoUsd: 2 * BOUND,
    });
  });
});

test('an abandoned reservation is charged in full when its lease runs out, on a durable timer', async () => {
  const scope = uniqueName('lease');
  await harness.withWorkers({ budgets: { [scope]: { limitUsd: 5 } } }, async ({ callers, ledgers }) => {
    const [decision] = await callers([{ scope, amountNanoUsd: BOUND, leaseMs: 1_500, then: 'abandon' }]);
    expect(decision?.granted).toBe(true);
    await waitFor('the lease to expire', async () => (await ledgers.get(scope))?.totals.expired === 1);
    const snapshot = (await ledgers.get(scope))!;
    expect(snapshot).toMatchObject({ spentNanoUsd: BOUND, reservedNanoUsd: 0 });
    expect(snapshot.openReservations).toEqual([]);
  });
});

test('a window resets the spend on a durable timer and keeps the ended window as previousWindow', async () => {
  const scope = uniqueName('window');
  await harness.withWorkers({}, async ({ client, taskQueue, callers, ledgers }) => {
    // Test-only 2-second windows stand in for a day or a month.
    await client.workflow.start('ledgerWorkflow', {
      taskQueue,
      workflowId: ledgerWorkflowId(scope),
      args: [{ scope, windowMs: 2_000 }],
    });
    await ledgers.setLimit(scope, { limitUsd: 0.5, period: 'day' });
    const [spend] = await callers([
      { scope, amountNanoUsd: BOUND, then: { settle: { costNanoUsd: BOUND, costKnown: true } } },
    ]);
    expect(spend?.granted).toBe(true);
    await waitFor('the window to reset', async () => {
      const snapshot = await ledgers.get(scope);
      return snapshot?.spentNanoUsd === 0 && snapshot.previousWindow?.spentNanoUsd === BOUND;
    });
    expect((await ledgers.get(scope))?.nextResetAt).not.toBeNull();
    // The spend is back: a reservation that would not have fitted before the reset fits now.
    const [again] = await callers([{ scope, amountNanoUsd: BOUND, then: 'release' }]);
    expect(again?.granted).toBe(true);
  });
});

test('continue-as-new carries open reservations: they settle in the new run and nothing is dropped', async () => {
  const scope = uniqueName('carry');
  await harness.withWorkers({}, async ({ client, taskQueue, startCaller, ledgers }) => {
    const ledger = await client.workflow.start('ledgerWorkflow', {
      taskQueue,
      workflowId: ledgerWorkflowId(scope),
      args: [{ scope, continueAsNewAfterMessages: 20 }],
    });
    await ledgers.setLimit(scope, { limitUsd: 5 });
    const holders = await Promise.all(
      Array.from({ length: 4 }, () => startCaller({ scope, amountNanoUsd: BOUND, then: 'hold' })),
    );
    await waitFor(
      'four open reservations',
      async () => (await ledgers.get(scope))?.openReservations.length === 4,
    );
    const { runId: heldIn } = await ledger.describe();
    const openBefore = (await ledgers.get(scope))!.openReservations;

    // Operator messages push the run past its message limit while the four are open.
    for (let change = 0; change < 20; change += 1) await ledgers.setLimit(scope, { limitUsd: 5 });
    await waitFor('a new run', async () => (await ledger.describe()).runId !== heldIn);
    expect((await ledgers.get(scope))!.openReservations).toEqual(openBefore);

    await Promise.all(
      holders.map((holder) => holder.signal(finishCallerSignal, { costNanoUsd: 1_000, costKnown: true })),
    );
    await Promise.all(holders.map((holder) => holder.result()));
    await waitFor('the settles', async () => (await ledgers.get(scope))?.totals.settled === 4);
    expect(await ledgers.get(scope)).toMatchObject({
      spentNanoUsd: 4_000,
      reservedNanoUsd: 0,
      totals: { granted: 4, settled: 4 },
    });
  });
});

test('a repeated reservation id is granted once and deducted once; a closed id is refused', async () => {
  const scope = uniqueName('idempotent');
  await harness.withWorkers(
    { budgets: { [scope]: { limitUsd: 1 } } },
    async ({ client, taskQueue, config, ledgers }) => {
      const sendBatch = createLedgerSender(client, taskQueue, config);
      const send = (scope: string, requests: ReservationRequest[]) =>
        sendBatch(scope, { requests, settlements: [], releases: [] });
      const request = { reservationId: 'call-1#1', amountNanoUsd: BOUND, holder: 'test', leaseMs: 60_000 };
      // A local activity retried after its first try was granted sends the same id again.
      const [first, second] = await Promise.all([send(scope, [request]), send(scope, [request])]);
      expect(first).toEqual(second);
      expect(await ledgers.get(scope)).toMatchObject({ reservedNanoUsd: BOUND, totals: { granted: 1 } });

      await client.workflow
        .getHandle(ledgerWorkflowId(scope))
        .signal('release', { reservationId: 'call-1#1' });
      await waitFor('the release', async () => (await ledgers.get(scope))?.totals.released === 1);
      expect((await send(scope, [request]))[0]).toMatchObject({ granted: false, reason: 'closed' });
    },
  );
});

test('a scope with no limit anywhere is unlimited but tracked', async () => {
  const scope = uniqueName('open');
  await harness.withWorkers({}, async ({ callers, ledgers }) => {
    expect(await ledgers.get(scope)).toBeUndefined();
    const decisions = await callers([
      { scope, amountNanoUsd: 5 * BOUND, then: { settle: { costNanoUsd: 777, costKnown: true } } },
    ]);
    expect(decisions[0]?.granted).toBe(true);
    await waitFor('the settle', async () => (await ledgers.get(scope))?.totals.settled === 1);
    expect(await ledgers.get(scope)).toMatchObject({
      limitNanoUsd: null,
      availableNanoUsd: null,
      limitSource: 'none',
      spentNanoUsd: 777,
    });
  });
});

test('setLimit creates the ledger, rounds the limit down to whole nano-USD and validates its input', async () => {
  const scope = uniqueName('operator');
  await harness.withWorkers({}, async ({ ledgers }) => {
    const snapshot = await ledgers.setLimit(scope, { limitUsd: 2.0000000019, period: 'month' });
    expect(snapshot).toMatchObject({
      limitNanoUsd: 2_000_000_001,
      period: 'month',
      limitSource: 'operator',
      spentNanoUsd: 0,
    });
    expect((await ledgers.setLimit(scope, { limitUsd: null })).limitNanoUsd).toBeNull();
    expect((await ledgers.get(scope))?.period).toBe('month');
    await expect(ledgers.setLimit(scope, { limitUsd: -1 })).rejects.toThrow(InvalidRequestError);
    await expect(ledgers.get('')).rejects.toThrow(InvalidRequestError);
  });
});

test("a Ledgers given only a client starts ledgers on the entities' queue of SWITCHYARD_TASK_QUEUE", async () => {
  const scope = uniqueName('defaults');
  const previous = process.env.SWITCHYARD_TASK_QUEUE;
  try {
    delete process.env.SWITCHYARD_TASK_QUEUE;
    expect(new Ledgers({ client: harness.temporal.client }).taskQueue).toBe('switchyard-entities');
    await harness.withWorkers({}, async ({ client, callTaskQueue, taskQueue }) => {
      // What a user's own code holds: the calls' queue in the environment, as the workers have it.
      process.env.SWITCHYARD_TASK_QUEUE = callTaskQueue;
      const ledgers = new Ledgers({ client });
      expect(ledgers.taskQueue).toBe(taskQueue);
      await ledgers.setLimit(scope, { limitUsd: 1 });
      const description = await client.workflow.getHandle(ledgerWorkflowId(scope)).describe();
      expect(description.taskQueue).toBe(taskQueue);
    });
  } finally {
    if (previous === undefined) delete process.env.SWITCHYARD_TASK_QUEUE;
    else process.env.SWITCHYARD_TASK_QUEUE = previous;
  }
});

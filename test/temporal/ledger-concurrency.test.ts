// Tests written to break the ledger's guarantee under concurrency: concurrent reservations on one scope, straight
// to the entity and through the worker path (local activity + batcher), must never over-grant or error.
import { createReservationSender } from '../../src/activities/reserve-budget';
import type { ReservationRefusal } from '../../src/routing/ledger-state';
import { startLedgerHarness, waitFor, type LedgerHarness } from '../support/ledger-harness';
import { uniqueName } from '../support/temporal';

/** One attempt's worst-case bound: 0.35 USD. A budget "for 3.5 calls" is 1.225 USD. */
const BOUND = 350_000_000;
const settleAtBound = { settle: { costNanoUsd: BOUND, costKnown: true } } as const;

let harness: LedgerHarness;
beforeAll(async () => {
  harness = await startLedgerHarness();
});
afterAll(async () => harness?.close());

function expectRefusal(decision: unknown, limitNanoUsd: number, availableNanoUsd: number): void {
  expect(decision).toMatchObject({
    granted: false,
    reason: 'over_budget',
    requestedNanoUsd: BOUND,
    limitNanoUsd,
    availableNanoUsd,
  } satisfies Partial<ReservationRefusal>);
}

test('10 concurrent updates straight to the entity against a budget for 3.5: exactly 3 granted', async () => {
  const scope = uniqueName('direct10');
  await harness.withWorkers({}, async ({ client, taskQueue, config, ledgers }) => {
    await ledgers.setLimit(scope, { limitUsd: 1.225 });
    // No batcher: ten updates in flight at once (Temporal's limit is 10), each deciding one reservation.
    const send = createReservationSender(client, taskQueue, config);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        send(scope, [
          { reservationId: `direct-${index}`, amountNanoUsd: BOUND, holder: 'test', leaseMs: 60_000 },
        ]),
      ),
    );
    const decisions = answers.map((answer) => answer[0]!);
    expect(decisions.filter((decision) => decision.granted)).toHaveLength(3);
    for (const refusal of decisions.filter((decision) => !decision.granted))
      expectRefusal(refusal, 1_225_000_000, 175_000_000);
    const snapshot = await ledgers.get(scope);
    expect(snapshot).toMatchObject({
      reservedNanoUsd: 3 * BOUND,
      spentNanoUsd: 0,
      availableNanoUsd: 175_000_000,
    });
    expect(snapshot?.openReservations).toHaveLength(3);
  });
});

test('10 concurrent callers through the worker path, budget for 3.5 from the config: 3 granted, 7 refused, none left open', async () => {
  const scope = uniqueName('team10');
  await harness.withWorkers({ budgets: { [scope]: { limitUsd: 1.225 } } }, async ({ callers, ledgers }) => {
    const decisions = await callers(
      Array.from({ length: 10 }, () => ({ scope, amountNanoUsd: BOUND, then: settleAtBound })),
    );
    expect(decisions.filter((decision) => decision.granted)).toHaveLength(3);
    const refusals = decisions.filter((decision) => !decision.granted);
    expect(refusals).toHaveLength(7);
    for (const refusal of refusals) expectRefusal(refusal, 1_225_000_000, 175_000_000);

    await waitFor(
      'every settle to reach the ledger',
      async () => (await ledgers.get(scope))?.totals.settled === 3,
    );
    const snapshot = (await ledgers.get(scope))!;
    expect(snapshot).toMatchObject({
      limitSource: 'config',
      limitNanoUsd: 1_225_000_000,
      spentNanoUsd: 3 * BOUND,
      reservedNanoUsd: 0,
    });
    expect(snapshot.openReservations).toEqual([]);
    expect(snapshot.spentNanoUsd + snapshot.availableNanoUsd!).toBe(snapshot.limitNanoUsd);
  });
});

test('100 concurrent callers on one scope across two workers: no over-grant, no error but refusals', async () => {
  const scope = uniqueName('team100');
  await harness.withWorkers(
    { workers: 2, budgets: { [scope]: { limitUsd: 37.5 * 0.35 } } },
    async ({ callers, ledgers }) => {
      const limitNanoUsd = 37.5 * BOUND;
      // Every caller must come back with a decision: a surfaced RESOURCE_EXHAUSTED would reject here.
      const decisions = await callers(
        Array.from({ length: 100 }, () => ({ scope, amountNanoUsd: BOUND, then: settleAtBound })),
      );
      expect(decisions.filter((decision) => decision.granted)).toHaveLength(37);
      for (const refusal of decisions.filter((decision) => !decision.granted))
        expectRefusal(refusal, limitNanoUsd, 0.5 * BOUND);

      await waitFor(
        'every settle to reach the ledger',
        async () => (await ledgers.get(scope))?.totals.settled === 37,
      );
      const snapshot = (await ledgers.get(scope))!;
      expect(snapshot).toMatchObject({ spentNanoUsd: 37 * BOUND, reservedNanoUsd: 0, overdraftNanoUsd: 0 });
      expect(snapshot.spentNanoUsd + snapshot.availableNanoUsd!).toBe(limitNanoUsd);
    },
  );
});

test('concurrent callers racing forced continue-as-new: nothing lost, nothing granted twice', async () => {
  const scope = uniqueName('team-can');
  await harness.withWorkers({}, async ({ client, taskQueue, callers, ledgers }) => {
    // A ledger that continues as new after every 2 messages, so the 30 callers keep straddling new runs.
    const first = await client.workflow.start('ledgerWorkflow', {
      taskQueue,
      workflowId: `switchyard-ledger-${scope}`,
      args: [{ scope, continueAsNewAfterMessages: 2 }],
    });
    await ledgers.setLimit(scope, { limitUsd: 10.5 * 0.35 });
    const decisions = await callers(
      Array.from({ length: 30 }, () => ({ scope, amountNanoUsd: BOUND, then: settleAtBound })),
    );
    expect(decisions.filter((decision) => decision.granted)).toHaveLength(10);

    await waitFor(
      'every settle to reach the ledger',
      async () => (await ledgers.get(scope))?.totals.settled === 10,
    );
    const snapshot = (await ledgers.get(scope))!;
    expect(snapshot).toMatchObject({
      spentNanoUsd: 10 * BOUND,
      reservedNanoUsd: 0,
      totals: { granted: 10, settled: 10 },
    });
    expect((await client.workflow.getHandle(first.workflowId).describe()).runId).not.toBe(
      first.firstExecutionRunId,
    );
  });
});

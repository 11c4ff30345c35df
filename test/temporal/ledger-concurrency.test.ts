// Tests written to break the ledger's guarantee under concurrency: concurrent reservations on one scope, straight
// to the entity and through the worker path (local activity + batcher), must never over-grant or error.
import type { temporal } from '@temporalio/proto';
import type { ReservationRequest } from '../../src/routing/ledger-state';
import { LedgerMessageBatcher } from '../../src/activities/ledger-batcher';
import { createLedgerSender } from '../../src/activities/reserve-budget';
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
    const sendBatch = createLedgerSender(client, taskQueue, config);
    const send = (scope: string, requests: ReservationRequest[]) =>
      sendBatch(scope, { requests, settlements: [], releases: [] });
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

/** Every run of a ledger, oldest first, following continue-as-new from its first run. */
async function ledgerRuns(
  client: LedgerTestContextClient,
  workflowId: string,
  firstRunId: string,
): Promise<{ runId: string; events: HistoryEvent[] }[]> {
  const runs: { runId: string; events: HistoryEvent[] }[] = [];
  for (let runId: string | undefined = firstRunId; runId !== undefined; ) {
    const events: HistoryEvent[] =
      (await client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
    runs.push({ runId, events });
    const last: HistoryEvent | undefined = events[events.length - 1];
    runId = last?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  return runs;
}
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
type LedgerTestContextClient = Parameters<Parameters<LedgerHarness['withWorkers']>[1]>[0]['client'];

test('workers reserving and settling while the ledger keeps continuing as new: no workflow task fails', async () => {
  // Before settles travelled in updates, every settle signal that reached the ledger during its continue-as-new
  // task failed that task (UnhandledCommand): the ledger was evicted, replayed, and senders backed off a second.
  const scope = uniqueName('team-handover');
  await harness.withWorkers({}, async ({ client, taskQueue, config, ledgers }) => {
    const first = await client.workflow.start('ledgerWorkflow', {
      taskQueue,
      workflowId: `switchyard-ledger-${scope}`,
      args: [{ scope, continueAsNewAfterMessages: 5 }],
    });
    // Three "workers", each with its own batcher, and 45 callers reserving and settling in a loop.
    const batchers = Array.from(
      { length: 3 },
      () => new LedgerMessageBatcher(createLedgerSender(client, taskQueue, config)),
    );
    let granted = 0;
    await Promise.all(
      Array.from({ length: 45 }, async (_, caller) => {
        const batcher = batchers[caller % batchers.length]!;
        for (let round = 0; round < 4; round += 1) {
          const reservationId = `handover/${caller}/${round}`;
          const decision = await batcher.reserve(scope, {
            reservationId,
            amountNanoUsd: BOUND,
            holder: 'test',
            leaseMs: 60_000,
          });
          if (!decision.granted) throw new Error(`refused: ${JSON.stringify(decision)}`);
          granted += 1;
          await batcher.settle(scope, { reservationId, costNanoUsd: BOUND, costKnown: true });
        }
      }),
    );
    expect(granted).toBe(180);
    const snapshot = (await ledgers.get(scope))!;
    expect(snapshot).toMatchObject({
      spentNanoUsd: 180 * BOUND,
      reservedNanoUsd: 0,
      totals: { granted: 180, settled: 180 },
    });
    const runs = await ledgerRuns(client, first.workflowId, first.firstExecutionRunId);
    expect(runs.length).toBeGreaterThan(3);
    const failedTasks = runs.flatMap((run) =>
      run.events.filter((event) => event.workflowTaskFailedEventAttributes),
    );
    expect(failedTasks).toHaveLength(0);
  });
});

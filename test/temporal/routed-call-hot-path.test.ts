// The lean hot path on a real dev server: what a routed call costs in history, and what its attempt settles itself.
import type { temporal } from '@temporalio/proto';
import { Ledgers } from '../../src/client/ledgers';
import { breakerWorkflowId } from '../../src/workflows/breaker/definitions';
import { entityTaskQueue } from '../../src/workflows/definitions';
import { stateQuery } from '../../src/workflows/breaker/definitions';
import { startHarness, type Harness } from '../support/harness';
import { uniqueName } from '../support/temporal';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

const request = { messages: [{ role: 'user' as const, content: 'Say hello' }], maxOutputTokens: 64 };
const twoTargets = {
  targets: [
    { provider: 'openai', model: 'gpt-primary', timeoutMs: 5_000 },
    { provider: 'anthropic', model: 'claude-primary', timeoutMs: 5_000 },
  ],
  breaker: { failureThreshold: 3, cooldownMs: 600_000 },
};

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => harness?.close());
beforeEach(() => harness.fake.reset());

async function historyOf(workflowId: string): Promise<HistoryEvent[]> {
  return (await harness.temporal.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
}

/** The event types of a history, as short names (`WORKFLOW_TASK_STARTED` → `WorkflowTaskStarted`). */
function eventTypes(events: readonly HistoryEvent[]): string[] {
  return events.map((event) =>
    Object.keys(event)
      .find((key) => key.endsWith('EventAttributes') && event[key as keyof HistoryEvent])!
      .replace(/EventAttributes$/, ''),
  );
}

/** The scope's ledger once nothing is left reserved (settles are signals, applied a moment later). */
async function settledLedger(scope: string) {
  const ledgers = new Ledgers({ client: harness.temporal.client, taskQueue: entityTaskQueue('unused') });
  let snapshot = await ledgers.get(scope);
  for (let reads = 0; snapshot?.reservedNanoUsd !== 0 && reads < 50; reads += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    snapshot = await ledgers.get(scope);
  }
  return snapshot;
}

/** The activity types of the local-activity markers in a history. */
function localActivities(events: readonly HistoryEvent[]): string[] {
  return events.flatMap((event) => {
    const data = event.markerRecordedEventAttributes?.details?.data?.payloads?.[0]?.data;
    return data ? [JSON.parse(Buffer.from(data).toString('utf8')).activity_type as string] : [];
  });
}

test('a healthy call with a budget is two workflow tasks, one activity and one local activity', async () => {
  const scope = uniqueName('hot-path');
  const { record, snapshot } = await harness.withWorker(async (switchyard) => {
    const result = await switchyard.generate({ route: 'support', request, budget: scope });
    return { record: result.record, snapshot: await settledLedger(scope) };
  });
  const events = await historyOf(record.workflowId);
  const types = eventTypes(events);
  expect(types.filter((type) => type === 'workflowTaskCompleted')).toHaveLength(2);
  expect(types.filter((type) => type === 'activityTaskScheduled')).toHaveLength(1);
  expect(localActivities(events)).toEqual(['beginCall']);
  // Nothing waits on the ledger or the breaker: no signal leaves the call, no report activity runs.
  expect(types).not.toContain('signalExternalWorkflowExecutionInitiated');
  // The starter set the route and `running`; the call upserts its outcome once, as it ends.
  expect(types.filter((type) => type === 'upsertWorkflowSearchAttributes')).toHaveLength(1);
  // The attempt's own worker charged the ledger: spent is what the record says, nothing is left reserved.
  expect(record.totalCostNanoUsd).toBeGreaterThan(0);
  expect(snapshot).toMatchObject({ spentNanoUsd: record.totalCostNanoUsd, reservedNanoUsd: 0 });
});

test('a failed attempt settles and reports from its own worker; the failover costs one more task', async () => {
  harness.fake.script('gpt-primary', { kind: 'error', error: 'server_error' });
  const scope = uniqueName('hot-path');
  const { record, failures } = await harness.withWorker(async (switchyard) => {
    const result = await switchyard.generate({ route: twoTargets, request, budget: scope });
    const snapshot = await harness.temporal.client.workflow
      .getHandle(breakerWorkflowId('openai', 'gpt-primary'))
      .query(stateQuery);
    return { record: result.record, failures: snapshot.state.consecutiveFailures };
  });
  expect(record.attempts.map((attempt) => attempt.outcome)).toEqual(['failed', 'succeeded']);
  expect(failures).toBe(1);
  const events = await historyOf(record.workflowId);
  const types = eventTypes(events);
  expect(types.filter((type) => type === 'workflowTaskCompleted')).toHaveLength(3);
  // The second target's admission is the only local activity the failover adds.
  expect(localActivities(events)).toEqual(['beginCall', 'admitTarget']);
  expect(types).not.toContain('signalExternalWorkflowExecutionInitiated');
});

test('a success between failures ends the streak, so alternating failures never open the breaker', async () => {
  // Threshold 3 with completions failure, success, failure, success, failure: never three in a row.
  const outcomes = ['server_error', null, 'server_error', null, 'server_error'] as const;
  const route = {
    targets: [{ provider: 'openai', model: 'gpt-primary', timeoutMs: 5_000 }],
    breaker: { failureThreshold: 3, cooldownMs: 600_000 },
  };
  const state = await harness.withWorker(async (switchyard) => {
    for (const outcome of outcomes) {
      if (outcome) harness.fake.script('gpt-primary', { kind: 'error', error: outcome });
      await switchyard.generate({ route, request }).catch(() => undefined);
    }
    return (
      await harness.temporal.client.workflow
        .getHandle(breakerWorkflowId('openai', 'gpt-primary'))
        .query(stateQuery)
    ).state;
  });
  expect(state.status).toBe('closed');
  expect(state.consecutiveFailures).toBe(1);
  expect(harness.fake.counters('gpt-primary').requests).toBe(outcomes.length);
});

test('a call cancelled during its attempt is charged what its worker settled, once', async () => {
  harness.fake.script('gpt-primary', { kind: 'hang' });
  const scope = uniqueName('hot-path');
  const { error, snapshot } = await harness.withWorker(async (switchyard) => {
    const handle = await switchyard.start({ route: 'support', request, budget: scope });
    // Wait until the request is held at the provider, then cancel the call.
    for (let tries = 0; harness.fake.counters('gpt-primary').requests === 0 && tries < 100; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await handle.cancel();
    const failure = await handle.result().catch((caught: unknown) => caught);
    const read = await settledLedger(scope);
    return { error: failure as { type?: string; record?: { totalCostNanoUsd: number } }, snapshot: read };
  });
  expect(error.type).toBe('Cancelled');
  // The request was sent: its usage is unknown, so its whole bound is charged, and the record says the same.
  expect(error.record?.totalCostNanoUsd).toBeGreaterThan(0);
  expect(snapshot).toMatchObject({ spentNanoUsd: error.record?.totalCostNanoUsd, reservedNanoUsd: 0 });
  expect(snapshot?.totals).toMatchObject({ granted: 1, settled: 1 });
});

// The breaker entity itself on a real dev server, driven through its messages: concurrency, continue-as-new,
// validation. Each test uses its own (provider, model) key.
import { WorkflowUpdateFailedError } from '@temporalio/client';
import type { BreakerOutcome } from '../../src/routing/breaker-state';
import type { breakerWorkflow } from '../../src/workflows/breaker/breaker-workflow';
import {
  admitUpdate,
  breakerWorkflowId,
  outcomeSignal,
  resetUpdate,
  stateQuery,
  type BreakerWorkflowInput,
} from '../../src/workflows/breaker/definitions';
import {
  startBreakerHarness,
  uniqueKey,
  waitUntil,
  type BreakerHarness,
  type BreakerKey,
} from '../support/breaker-harness';

let harness: BreakerHarness;
beforeAll(async () => {
  harness = await startBreakerHarness();
});
afterAll(async () => harness?.close());

const LEASE_MS = 60_000;

async function startEntity(taskQueue: string, key: BreakerKey, extra: Partial<BreakerWorkflowInput> = {}) {
  return harness.temporal.client.workflow.start<typeof breakerWorkflow>('breakerWorkflow', {
    taskQueue,
    workflowId: breakerWorkflowId(key.provider, key.model),
    args: [{ ...key, ...extra }],
  });
}

type EntityHandle = Awaited<ReturnType<typeof startEntity>>;

function askFor(
  handle: EntityHandle,
  caller: string,
  policy: { failureThreshold: number; cooldownMs: number },
  probeLeaseMs = LEASE_MS,
) {
  return handle.executeUpdate(admitUpdate, { args: [{ caller, policy, probeLeaseMs }] });
}

function report(
  handle: EntityHandle,
  caller: string,
  outcome: BreakerOutcome,
  policy: { failureThreshold: number; cooldownMs: number },
  reportId = `${caller}:${outcome}`,
) {
  return handle.signal(outcomeSignal, {
    reportId,
    caller,
    policy,
    outcome,
    ...(outcome === 'counted_failure' ? { failureClass: 'unavailable' as const } : {}),
  });
}

test('10 concurrent admits on a breaker past its cooldown: exactly one gets the probe', async () => {
  const key = uniqueKey();
  const policy = { failureThreshold: 1, cooldownMs: 200 };
  await harness.withWorker({}, async (taskQueue) => {
    const handle = await startEntity(taskQueue, key);
    await report(handle, 'first#1', 'counted_failure', policy);
    const opened = await harness.waitForSnapshot(key, (s) => s.state.status === 'open');
    await waitUntil(opened.state.openedAtMs! + policy.cooldownMs);

    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, index) => askFor(handle, `caller-${index}#1`, policy)),
    );
    const probes = answers.filter((answer) => answer.decision === 'probe');
    expect(probes).toHaveLength(1);
    expect(answers.filter((answer) => answer.decision === 'deny')).toHaveLength(9);
    const snapshot = await handle.query(stateQuery);
    expect(snapshot.state.status).toBe('half_open');
    expect(snapshot.state.counts.probesGranted).toBe(1);
    // Every denial names the probe's lease expiry as the earliest retry.
    const holderIndex = answers.findIndex((answer) => answer.decision === 'probe');
    expect(snapshot.state.probe?.holder).toBe(`caller-${holderIndex}#1`);
    for (const answer of answers)
      if (answer.decision === 'deny') expect(answer.retryAtMs).toBe(snapshot.state.probe!.leaseExpiresAtMs);
  });
});

test('forced continue-as-new keeps every outcome signalled around it and still ignores duplicates', async () => {
  const key = uniqueKey();
  const policy = { failureThreshold: 1_000, cooldownMs: 60_000 };
  await harness.withWorker({}, async (taskQueue) => {
    const handle = await startEntity(taskQueue, key, { continueAsNewAfterEvents: 25 });
    const firstRunId = handle.firstExecutionRunId;
    // Batches of 10 concurrent reports; each batch crosses the limit partway, so reports keep arriving
    // while the entity continues as new.
    for (let batch = 0; batch < 6; batch += 1) {
      await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          report(handle, `call-${batch}-${index}#1`, 'counted_failure', policy),
        ),
      );
      await harness.waitForSnapshot(key, (s) => s.state.consecutiveFailures >= 10 * (batch + 1));
    }
    const after = await harness.waitForSnapshot(key, (s) => s.generation >= 2);
    expect(after.state.consecutiveFailures).toBe(60);
    expect((await handle.describe()).runId).not.toBe(firstRunId);

    // The same reports delivered again (a retried local activity) are recognised across runs.
    await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        report(handle, `call-5-${index}#1`, 'counted_failure', policy),
      ),
    );
    await report(handle, 'marker#1', 'counted_failure', policy);
    const final = await harness.waitForSnapshot(key, (s) => s.state.counts.countedFailures >= 61);
    expect(final.state.consecutiveFailures).toBe(61);
    expect(final.state.counts.countedFailures).toBe(61);
    expect(final.state.status).toBe('closed');
    // A run stays short: history is bounded by the limit, not by the number of reports.
    expect(final.historyLength).toBeLessThan(60);
  });
});

test('a probe taken before continue-as-new is still held after it, and its report closes the breaker', async () => {
  const key = uniqueKey();
  const policy = { failureThreshold: 1, cooldownMs: 100 };
  await harness.withWorker({}, async (taskQueue) => {
    const handle = await startEntity(taskQueue, key, { continueAsNewAfterEvents: 20 });
    await report(handle, 'first#1', 'counted_failure', policy);
    const opened = await harness.waitForSnapshot(key, (s) => s.state.status === 'open');
    await waitUntil(opened.state.openedAtMs! + policy.cooldownMs);
    expect((await askFor(handle, 'prober#1', policy)).decision).toBe('probe');

    // Late failures from calls admitted earlier push the run past its limit.
    for (let index = 0; index < 20; index += 1)
      await report(handle, `late-${index}#1`, 'counted_failure', policy);
    const moved = await harness.waitForSnapshot(
      key,
      (s) => s.generation >= 1 && s.state.counts.countedFailures === 21,
    );
    expect(moved.state.probe?.holder).toBe('prober#1');
    expect((await askFor(handle, 'other#1', policy)).decision).toBe('deny');

    await report(handle, 'prober#1', 'success', policy);
    const closed = await harness.waitForSnapshot(key, (s) => s.state.status === 'closed');
    expect(closed.state.transitions.map((transition) => transition.reason)).toEqual([
      'failure_threshold',
      'cooldown_elapsed',
      'probe_succeeded',
    ]);
  });
});

test('the update limit per run also triggers continue-as-new, keeping state', async () => {
  const key = uniqueKey();
  const policy = { failureThreshold: 5, cooldownMs: 60_000 };
  await harness.withWorker({}, async (taskQueue) => {
    const handle = await startEntity(taskQueue, key, { continueAsNewAfterUpdates: 3 });
    await report(handle, 'f#1', 'counted_failure', policy);
    await harness.waitForSnapshot(key, (s) => s.state.consecutiveFailures === 1);
    for (let index = 0; index < 8; index += 1)
      expect((await askFor(handle, `a-${index}#1`, policy)).decision).toBe('allow');
    const snapshot = await harness.waitForSnapshot(key, (s) => s.generation >= 2);
    expect(snapshot.state).toMatchObject({ status: 'closed', consecutiveFailures: 1 });
  });
});

test('a malformed admit is refused by the validator and leaves no trace in history; reset closes and logs', async () => {
  const key = uniqueKey();
  const policy = { failureThreshold: 1, cooldownMs: 60_000 };
  await harness.withWorker({}, async (taskQueue) => {
    const handle = await startEntity(taskQueue, key);
    await report(handle, 'f#1', 'counted_failure', policy);
    await harness.waitForSnapshot(key, (s) => s.state.status === 'open');
    const before = (await handle.describe()).historyLength;
    await expect(
      handle.executeUpdate(admitUpdate, { args: [{ caller: '', policy, probeLeaseMs: -1 } as never] }),
    ).rejects.toBeInstanceOf(WorkflowUpdateFailedError);
    expect((await handle.describe()).historyLength).toBe(before);

    const reset = await handle.executeUpdate(resetUpdate, {
      args: [{ by: 'test', detail: 'provider recovered' }],
    });
    expect(reset.state).toMatchObject({ status: 'closed', consecutiveFailures: 0 });
    expect(reset.state.transitions.at(-1)).toMatchObject({
      from: 'open',
      to: 'closed',
      reason: 'reset',
      by: 'test',
      detail: 'provider recovered',
    });
    expect((await askFor(handle, 'after#1', policy)).decision).toBe('allow');
  });
});

test('a run started from state carried by the earlier code (no version, one status) migrates it and keeps its probe', async () => {
  const key = uniqueKey();
  const policy = { failureThreshold: 1, cooldownMs: 60_000 };
  const nowMs = Date.now();
  // The shape the entity carried over continue-as-new before policies were per route (see the replay fixtures).
  const legacy = {
    status: 'half_open',
    consecutiveFailures: 1,
    lastFailureClass: 'unavailable',
    lastFailureAtMs: nowMs - 5_000,
    openedAtMs: nowMs - 5_000,
    reopenAtMs: nowMs - 4_000,
    probe: { holder: 'old-prober#1', grantedAtMs: nowMs - 1_000, leaseExpiresAtMs: nowMs + LEASE_MS },
    transitions: [
      { from: 'closed', to: 'open', reason: 'failure_threshold', at: new Date(nowMs - 5_000).toISOString() },
      {
        from: 'open',
        to: 'half_open',
        reason: 'cooldown_elapsed',
        at: new Date(nowMs - 1_000).toISOString(),
      },
    ],
    counts: {
      countedFailures: 1,
      openings: 1,
      probesGranted: 1,
      probesSucceeded: 0,
      probesFailed: 0,
      probeLeasesExpired: 0,
      probesReleased: 0,
      resets: 0,
    },
  } as unknown as BreakerWorkflowInput['state'];
  await harness.withWorker({}, async (taskQueue) => {
    const handle = await startEntity(taskQueue, key, { state: legacy, generation: 3 });
    const started = await handle.query(stateQuery);
    expect(started.state).toMatchObject({ version: 2, status: 'half_open', policies: [] });
    expect(started.generation).toBe(3);
    expect((await askFor(handle, 'other#1', policy)).decision).toBe('deny');

    await report(handle, 'old-prober#1', 'success', policy);
    const closed = await harness.waitForSnapshot(key, (s) => s.state.status === 'closed');
    expect(closed.state.transitions.map((transition) => transition.reason)).toEqual([
      'failure_threshold',
      'cooldown_elapsed',
      'probe_succeeded',
    ]);
    expect(closed.state.policies).toEqual([expect.objectContaining(policy)]);
  });
});

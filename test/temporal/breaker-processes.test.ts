// Breakers across worker processes on a real dev server: two processes share one breaker, and a worker
// process killed while holding the probe does not wedge it.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { uniqueName } from '../support/temporal';
import { startWorkerProcess } from '../support/worker-process';
import {
  gatedInput,
  startBreakerHarness,
  targetFor,
  uniqueKey,
  waitFor,
  waitUntil,
  type BreakerHarness,
} from '../support/breaker-harness';

let harness: BreakerHarness;
beforeAll(async () => {
  harness = await startBreakerHarness();
});
afterAll(async () => harness?.close());

const children = new Set<ChildProcess>();
afterEach(() => {
  for (const child of children) child.kill('SIGKILL');
  children.clear();
});

/** Starts a worker in its own process on `taskQueue` and waits until it polls. */
async function startBreakerWorker(taskQueue: string, entityTaskQueue: string): Promise<ChildProcess> {
  return startWorkerProcess({
    script: 'test/support/breaker-worker-process.ts',
    environment: {
      BREAKER_TEST_TASK_QUEUE: taskQueue,
      BREAKER_TEST_ENTITY_TASK_QUEUE: entityTaskQueue,
      BREAKER_TEST_FAKE_URL: harness.fake.url,
      BREAKER_TEST_BUNDLE_PATH: harness.bundle.codePath,
      SWITCHYARD_BREAKER_HINT_TTL_MS: '200',
    },
    onSpawn: (child) => children.add(child),
  });
}

async function kill(child: ChildProcess): Promise<void> {
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
  children.delete(child);
}

test('two worker processes share one breaker: failures from both count towards one threshold', async () => {
  const key = uniqueKey();
  const policy = { failureThreshold: 2, cooldownMs: 60_000 };
  harness.fake.scriptAlways(key.model, { kind: 'error', error: 'server_error' });
  const entityQueue = uniqueName('breaker-entities');
  const otherProcessQueue = uniqueName('breaker-process');
  await startBreakerWorker(otherProcessQueue, entityQueue);

  // This process runs the entity's queue and a second call queue, with its own hint cache.
  await harness.withWorker({ taskQueue: entityQueue, hintTtlMs: 200 }, () =>
    harness.withWorker({ entityTaskQueue: entityQueue, hintTtlMs: 200 }, async (thisProcessQueue) => {
      expect((await harness.gatedCall(otherProcessQueue, gatedInput(key, policy))).outcome).toBe(
        'unavailable',
      );
      await harness.waitForSnapshot(key, (s) => s.state.consecutiveFailures === 1);
      expect((await harness.gatedCall(thisProcessQueue, gatedInput(key, policy))).outcome).toBe(
        'unavailable',
      );
      const opened = await harness.waitForSnapshot(key, (s) => s.state.status === 'open');
      expect(opened.state.consecutiveFailures).toBe(2);

      // Once their hints have expired, both processes skip the target.
      await waitUntil(Date.now() + 200);
      expect((await harness.gatedCall(otherProcessQueue, gatedInput(key, policy))).admitted).toBe(false);
      expect((await harness.gatedCall(thisProcessQueue, gatedInput(key, policy))).admitted).toBe(false);
    }),
  );
  expect(harness.fake.counters(key.model).requests).toBe(2);
});

test('a worker process killed while its call holds the probe does not wedge the breaker', async () => {
  const key = uniqueKey();
  const policy = { failureThreshold: 1, cooldownMs: 300 };
  const entityQueue = uniqueName('breaker-entities');
  const callQueue = uniqueName('breaker-process');

  await harness.withWorker({ taskQueue: entityQueue }, async () => {
    const doomed = await startBreakerWorker(callQueue, entityQueue);
    harness.fake.script(key.model, { kind: 'error', error: 'overloaded' });
    await harness.gatedCall(callQueue, gatedInput(key, policy));
    const opened = await harness.waitForSnapshot(key, (s) => s.state.status === 'open');
    await waitUntil(opened.state.openedAtMs! + policy.cooldownMs);

    // The probe hangs on a long timeout; the lease (timeout + grace) is far longer than this test waits.
    harness.fake.script(key.model, { kind: 'hang' });
    const call = await harness.startGatedCall(
      callQueue,
      gatedInput(key, policy, { target: targetFor(key, 60_000) }),
    );
    await harness.waitForSnapshot(key, (s) => s.state.probe?.holder === `${call.workflowId}#1`);
    // Kill the process while its attempt is out at the provider.
    await waitFor(() => harness.fake.counters(key.model).requests === 2);
    await kill(doomed);

    // Another worker takes over the call: the attempt's heartbeat times out, the call reports the probe failed.
    await harness.withWorker({ taskQueue: callQueue, entityTaskQueue: entityQueue }, async () => {
      expect(await call.result()).toEqual({ admitted: true, probe: true, outcome: 'timeout' });
      const reopened = await harness.waitForSnapshot(key, (s) => s.state.counts.probesFailed === 1);
      expect(reopened.state.status).toBe('open');
      await waitUntil(reopened.state.openedAtMs! + policy.cooldownMs);
      expect(await harness.gatedCall(callQueue, gatedInput(key, policy))).toEqual({
        admitted: true,
        probe: true,
        outcome: 'succeeded',
      });
    });
    const closed = await harness.waitForSnapshot(key, (s) => s.state.status === 'closed');
    expect(closed.state.transitions.map((transition) => transition.reason)).toEqual([
      'failure_threshold',
      'cooldown_elapsed',
      'probe_failed',
      'cooldown_elapsed',
      'probe_succeeded',
    ]);
  });
  expect(harness.fake.counters(key.model).requests).toBe(3);
});

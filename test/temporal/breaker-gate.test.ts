// The breaker as a routed call meets it, on a real dev server with the fake provider: admit through the
// worker's hint or the entity, call, report. Each test uses its own (provider, model) key.
import { WorkflowNotFoundError } from '@temporalio/common';
import { BreakerTransitionReason } from '../../src/routing/breaker-state';
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

/**
 * A denial decided from the worker's hint computes its retry time from the worker's own copy of the opening,
 * which the worker applied when it sent the report: the same moment give or take the signal's trip.
 */
function expectRetryNear(actual: number | undefined, expected: number): void {
  expect(actual).toBeDefined();
  expect(Math.abs(actual! - expected)).toBeLessThan(1_000);
}

test('opens after exactly N consecutive counted failures; then the target is skipped and nothing reaches the provider', async () => {
  const key = uniqueKey();
  const policy = { failureThreshold: 3, cooldownMs: 60_000 };
  harness.fake.scriptAlways(key.model, { kind: 'error', error: 'server_error' });

  await harness.withWorker({}, async (taskQueue) => {
    for (let failures = 1; failures <= 2; failures += 1) {
      expect(await harness.gatedCall(taskQueue, gatedInput(key, policy))).toEqual({
        admitted: true,
        probe: false,
        outcome: 'unavailable',
      });
      const snapshot = await harness.waitForSnapshot(key, (s) => s.state.consecutiveFailures === failures);
      expect(snapshot.state.status).toBe('closed');
    }
    expect(await harness.gatedCall(taskQueue, gatedInput(key, policy))).toMatchObject({
      admitted: true,
      outcome: 'unavailable',
    });
    const opened = await harness.waitForSnapshot(key, (s) => s.state.status === 'open');
    expect(opened.state.consecutiveFailures).toBe(3);
    expect(opened.state.transitions).toEqual([
      expect.objectContaining({ from: 'closed', to: 'open', reason: 'failure_threshold' }),
    ]);

    const skipped = await harness.gatedCall(taskQueue, gatedInput(key, policy));
    expect(skipped.admitted).toBe(false);
    expectRetryNear(skipped.retryAtMs, opened.state.openedAtMs! + policy.cooldownMs);
  });
  expect(harness.fake.counters(key.model).requests).toBe(3);
});

test('classes that do not count never open the breaker, and never even create it', async () => {
  const key = uniqueKey();
  const policy = { failureThreshold: 2, cooldownMs: 60_000 };
  harness.fake.script(key.model, [
    { kind: 'error', error: 'bad_request' },
    { kind: 'error', error: 'context_overflow' },
    { kind: 'refusal' },
    { kind: 'content_filter' },
    { kind: 'error', error: 'unprocessable' },
  ]);
  const outcomes = await harness.withWorker({}, async (taskQueue) => {
    const results = [];
    for (let index = 0; index < 5; index += 1)
      results.push((await harness.gatedCall(taskQueue, gatedInput(key, policy))).outcome);
    return results;
  });
  expect(outcomes).toEqual([
    'invalid_request',
    'context_overflow',
    'refused',
    'content_policy',
    'invalid_request',
  ]);
  expect(harness.fake.counters(key.model).requests).toBe(5);
  // Nothing that could change the breaker happened, so nothing was sent and no entity was started.
  await expect(harness.breakerHandle(key).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
});

test('an answered request between counted failures ends the streak', async () => {
  const key = uniqueKey();
  const policy = { failureThreshold: 3, cooldownMs: 60_000 };
  harness.fake.script(key.model, [
    { kind: 'error', error: 'rate_limited' },
    { kind: 'error', error: 'overloaded' },
    { kind: 'error', error: 'bad_request' },
    { kind: 'error', error: 'server_error' },
    { kind: 'error', error: 'server_error' },
  ]);
  await harness.withWorker({}, async (taskQueue) => {
    for (let index = 0; index < 5; index += 1) await harness.gatedCall(taskQueue, gatedInput(key, policy));
    // The 400 showed the provider answering; the two failures after it are a streak of 2, below 3.
    const snapshot = await harness.waitForSnapshot(key, (s) => s.state.counts.countedFailures === 4);
    expect(snapshot.state).toMatchObject({
      status: 'closed',
      consecutiveFailures: 2,
      lastFailureClass: 'unavailable',
    });
  });
});

test('after the cooldown, of 10 concurrent calls exactly one probe reaches the provider; its success closes', async () => {
  const key = uniqueKey();
  const policy = { failureThreshold: 1, cooldownMs: 300 };
  await harness.withWorker({}, async (taskQueue) => {
    harness.fake.script(key.model, { kind: 'error', error: 'service_unavailable' });
    await harness.gatedCall(taskQueue, gatedInput(key, policy));
    const opened = await harness.waitForSnapshot(key, (s) => s.state.status === 'open');
    await waitUntil(opened.state.openedAtMs! + policy.cooldownMs);

    // The probe answers slowly, so every other call asks while it is out.
    harness.fake.scriptAlways(key.model, { kind: 'answer', text: 'probe ok', delayMs: 3_000 });
    const results = await Promise.all(
      Array.from({ length: 10 }, () => harness.gatedCall(taskQueue, gatedInput(key, policy))),
    );
    const probes = results.filter((result) => result.probe);
    expect(probes).toEqual([{ admitted: true, probe: true, outcome: 'succeeded' }]);
    expect(results.filter((result) => !result.admitted)).toHaveLength(9);
    expect(harness.fake.counters(key.model).requests).toBe(2);

    const closed = await harness.waitForSnapshot(key, (s) => s.state.status === 'closed');
    expect(closed.state.transitions.map((transition) => transition.reason)).toEqual([
      BreakerTransitionReason.failureThreshold,
      BreakerTransitionReason.cooldownElapsed,
      BreakerTransitionReason.probeSucceeded,
    ]);
    expect(closed.state.counts.probesGranted).toBe(1);
  });
});

test('a failed probe reopens with a fresh cooldown, and the next call is skipped', async () => {
  const key = uniqueKey();
  const policy = { failureThreshold: 1, cooldownMs: 300 };
  harness.fake.scriptAlways(key.model, { kind: 'error', error: 'rate_limited' });
  await harness.withWorker({}, async (taskQueue) => {
    await harness.gatedCall(taskQueue, gatedInput(key, policy));
    const opened = await harness.waitForSnapshot(key, (s) => s.state.status === 'open');
    await waitUntil(opened.state.openedAtMs! + policy.cooldownMs);

    expect(await harness.gatedCall(taskQueue, gatedInput(key, policy))).toEqual({
      admitted: true,
      probe: true,
      outcome: 'rate_limited',
    });
    const reopened = await harness.waitForSnapshot(key, (s) => s.state.counts.probesFailed === 1);
    expect(reopened.state.status).toBe('open');
    expect(reopened.state.openedAtMs!).toBeGreaterThan(opened.state.openedAtMs!);
    expect(reopened.state.transitions.at(-1)).toMatchObject({
      from: 'half_open',
      to: 'open',
      reason: 'probe_failed',
    });

    // Asked at once, the fresh cooldown has not passed (a 60 s route: its cooldown counts from the reopening).
    const skipped = await harness.gatedCall(
      taskQueue,
      gatedInput(key, { failureThreshold: 1, cooldownMs: 60_000 }),
    );
    expect(skipped.admitted).toBe(false);
    expectRetryNear(skipped.retryAtMs, reopened.state.openedAtMs! + 60_000);
  });
  expect(harness.fake.counters(key.model).requests).toBe(2);
});

test('two routes with different thresholds share one breaker: the counts are shared, each judges them by its own threshold', async () => {
  const key = uniqueKey();
  const lenient = { failureThreshold: 4, cooldownMs: 60_000 };
  const strict = { failureThreshold: 2, cooldownMs: 60_000 };
  harness.fake.scriptAlways(key.model, { kind: 'error', error: 'server_error' });
  await harness.withWorker({}, async (taskQueue) => {
    // One failure on each route: a shared streak of 2, the strict route's threshold.
    await harness.gatedCall(taskQueue, gatedInput(key, lenient));
    await harness.waitForSnapshot(key, (s) => s.state.consecutiveFailures === 1);
    await harness.gatedCall(taskQueue, gatedInput(key, strict), `strict-${key.model}-1`);
    const opened = await harness.waitForSnapshot(key, (s) => s.state.status === 'open');
    expect(opened.state.consecutiveFailures).toBe(2);
    expect(opened.state.transitions.at(-1)).toMatchObject({
      from: 'closed',
      to: 'open',
      reason: 'failure_threshold',
      policy: strict,
    });

    // The strict route now skips the target; the lenient one, below its threshold, keeps calling it.
    expect((await harness.gatedCall(taskQueue, gatedInput(key, strict))).admitted).toBe(false);
    expect(await harness.gatedCall(taskQueue, gatedInput(key, lenient))).toMatchObject({
      admitted: true,
      outcome: 'unavailable',
    });
    await harness.waitForSnapshot(key, (s) => s.state.consecutiveFailures === 3);
    await harness.gatedCall(taskQueue, gatedInput(key, lenient));
    const both = await harness.waitForSnapshot(key, (s) => s.state.consecutiveFailures === 4);
    expect(both.state.transitions.at(-1)).toMatchObject({
      from: 'open',
      to: 'open',
      reason: 'failure_threshold',
      policy: lenient,
    });
    // At its own threshold the lenient route skips it too.
    expect((await harness.gatedCall(taskQueue, gatedInput(key, lenient))).admitted).toBe(false);
  });
  expect(harness.fake.counters(key.model).requests).toBe(4);
});

test('an answer on a route whose threshold was not reached ends the shared streak: the strict route calls again', async () => {
  const key = uniqueKey();
  const lenient = { failureThreshold: 5, cooldownMs: 60_000 };
  const strict = { failureThreshold: 2, cooldownMs: 60_000 };
  await harness.withWorker({}, async (taskQueue) => {
    harness.fake.scriptAlways(key.model, { kind: 'error', error: 'server_error' });
    for (const policy of [strict, strict]) await harness.gatedCall(taskQueue, gatedInput(key, policy));
    await harness.waitForSnapshot(key, (s) => s.state.status === 'open');
    expect((await harness.gatedCall(taskQueue, gatedInput(key, strict))).admitted).toBe(false);

    harness.fake.scriptAlways(key.model, { kind: 'answer', text: 'back' });
    expect(await harness.gatedCall(taskQueue, gatedInput(key, lenient))).toMatchObject({
      admitted: true,
      outcome: 'succeeded',
    });
    const closed = await harness.waitForSnapshot(key, (s) => s.state.status === 'closed');
    expect(closed.state.transitions.at(-1)).toMatchObject({
      from: 'open',
      to: 'closed',
      reason: 'streak_ended',
    });
    await waitFor(async () => (await harness.gatedCall(taskQueue, gatedInput(key, strict))).admitted);
  });
});

test('when every target is open: force takes the probe before the cooldown (probe_first); a denial carries its retry time (fail)', async () => {
  const key = uniqueKey();
  const policy = { failureThreshold: 1, cooldownMs: 60_000 };
  await harness.withWorker({}, async (taskQueue) => {
    harness.fake.script(key.model, { kind: 'error', error: 'overloaded' });
    await harness.gatedCall(taskQueue, gatedInput(key, policy));
    const opened = await harness.waitForSnapshot(key, (s) => s.state.status === 'open');

    const denied = await harness.gatedCall(taskQueue, gatedInput(key, policy));
    expect(denied.admitted).toBe(false);
    expectRetryNear(denied.retryAtMs, opened.state.openedAtMs! + 60_000);

    const forced = await harness.gatedCall(taskQueue, gatedInput(key, policy, { force: true }));
    expect(forced).toEqual({ admitted: true, probe: true, outcome: 'succeeded' });
    const closed = await harness.waitForSnapshot(key, (s) => s.state.status === 'closed');
    expect(closed.state.transitions.map((transition) => transition.reason)).toEqual([
      'failure_threshold',
      'probe_forced',
      'probe_succeeded',
    ]);
  });
  expect(harness.fake.counters(key.model).requests).toBe(2);
});

test('a probe whose call is lost does not wedge the breaker: its lease expires and the next call probes', async () => {
  const key = uniqueKey();
  const policy = { failureThreshold: 1, cooldownMs: 200 };
  await harness.withWorker({}, async (taskQueue) => {
    harness.fake.script(key.model, { kind: 'error', error: 'server_error' });
    await harness.gatedCall(taskQueue, gatedInput(key, policy));
    const opened = await harness.waitForSnapshot(key, (s) => s.state.status === 'open');
    await waitUntil(opened.state.openedAtMs! + policy.cooldownMs);

    // The probe hangs; then its call disappears (terminated) and never reports.
    harness.fake.script(key.model, { kind: 'hang' });
    const lost = await harness.startGatedCall(
      taskQueue,
      gatedInput(key, policy, { target: targetFor(key, 1_000) }),
    );
    const probing = await harness.waitForSnapshot(
      key,
      (s) => s.state.probe?.holder === `${lost.workflowId}#1`,
    );
    await lost.terminate('lost with its worker');

    expect((await harness.gatedCall(taskQueue, gatedInput(key, policy))).admitted).toBe(false);
    await waitUntil(probing.state.probe!.leaseExpiresAtMs);
    expect(await harness.gatedCall(taskQueue, gatedInput(key, policy))).toEqual({
      admitted: true,
      probe: true,
      outcome: 'succeeded',
    });
    const closed = await harness.waitForSnapshot(key, (s) => s.state.status === 'closed');
    expect(closed.state.transitions.map((transition) => transition.reason)).toEqual([
      'failure_threshold',
      'cooldown_elapsed',
      'probe_lease_expired',
      'probe_succeeded',
    ]);
  });
});

test('a run of healthy calls adds no event to the breaker’s history and sends no report', async () => {
  const key = uniqueKey();
  const policy = { failureThreshold: 3, cooldownMs: 60_000 };
  await harness.withWorker({}, async (taskQueue) => {
    // One failure and one success: the entity exists, closed with no failures.
    harness.fake.script(key.model, { kind: 'error', error: 'server_error' });
    await harness.gatedCall(taskQueue, gatedInput(key, policy));
    await harness.waitForSnapshot(key, (s) => s.state.consecutiveFailures === 1);
    await harness.gatedCall(taskQueue, gatedInput(key, policy));
    await harness.waitForSnapshot(key, (s) => s.state.consecutiveFailures === 0);

    const before = (await harness.breakerHandle(key).describe()).historyLength;
    const requestsBefore = harness.fake.counters(key.model).requests;
    const workflowIds: string[] = [];
    // Several rounds, more than the hint TTL (1 s) apart, so the worker re-reads the breaker in between.
    for (let round = 0; round < 4; round += 1) {
      const results = await Promise.all(
        Array.from({ length: 5 }, (_, index) => {
          const workflowId = `healthy-${key.model}-${round}-${index}`;
          workflowIds.push(workflowId);
          return harness.gatedCall(taskQueue, gatedInput(key, policy), workflowId);
        }),
      );
      expect(results.every((result) => result.outcome === 'succeeded' && result.probe === false)).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
    }
    expect(harness.fake.counters(key.model).requests - requestsBefore).toBe(20);
    expect((await harness.breakerHandle(key).describe()).historyLength).toBe(before);
    // No healthy call sent a report. (Within the hint TTL a call skips the report activity altogether; a
    // call slowed past it by a busy machine may run it, and it must then decide to send nothing.)
    for (const workflowId of workflowIds) {
      const history = await harness.temporal.client.workflow.getHandle(workflowId).fetchHistory();
      const markers = (history.events ?? []).flatMap((event) => {
        const attributes = event.markerRecordedEventAttributes;
        const detail = attributes?.details?.data?.payloads?.[0]?.data;
        const result = attributes?.details?.result?.payloads?.[0]?.data;
        if (!detail) return [];
        const type = JSON.parse(Buffer.from(detail).toString('utf8')).activity_type as string;
        return [{ type, result: result ? JSON.parse(Buffer.from(result).toString('utf8')) : undefined }];
      });
      expect(markers.filter((marker) => marker.type === 'admitTarget')).toHaveLength(1);
      for (const report of markers.filter((marker) => marker.type === 'reportBreakerOutcome')) {
        expect(report.result).toEqual({ sent: false });
      }
    }
  });
});

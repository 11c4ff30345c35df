// A Retry-After pause across workers on a real dev server: the reporting worker skips at once, another worker
// learns of it from the entity.
import { gatedInput, startBreakerHarness, uniqueKey, type BreakerHarness } from '../support/breaker-harness';

let harness: BreakerHarness;
beforeAll(async () => {
  harness = await startBreakerHarness();
});
afterAll(async () => harness?.close());

test('the worker that saw the 429 skips at once (its view untouched), another worker once it reads the entity', async () => {
  const key = uniqueKey();
  // Far from opening: only the pause keeps callers off the target.
  const policy = { failureThreshold: 10, cooldownMs: 600_000 };
  harness.fake.script(
    key.model,
    { kind: 'error', error: 'rate_limited', retryAfterSeconds: 30 },
    { times: 1 },
  );
  // Views trusted for a minute: neither worker re-reads the entity on its own during the test.
  await harness.withWorker({ hintTtlMs: 60_000 }, async (reporterQueue) => {
    expect(await harness.gatedCall(reporterQueue, gatedInput(key, policy))).toMatchObject({
      admitted: true,
      outcome: 'rate_limited',
    });
    // Right after, on the reporting worker: skipped before the entity was asked again.
    const local = await harness.gatedCall(reporterQueue, gatedInput(key, policy));
    expect(local).toMatchObject({ admitted: false, paused: true });

    const entity = await harness.waitForSnapshot(
      key,
      (snapshot) => snapshot.state.pausedUntilMs !== undefined,
    );
    expect(entity.state).toMatchObject({ status: 'closed', consecutiveFailures: 1 });
    // Another worker, with breakers on the reporter's queue: its first read of the entity holds the pause.
    await harness.withWorker({ entityTaskQueue: reporterQueue, hintTtlMs: 60_000 }, async (otherQueue) => {
      const other = await harness.gatedCall(otherQueue, gatedInput(key, policy));
      expect(other).toMatchObject({ admitted: false, paused: true, retryAtMs: entity.state.pausedUntilMs });
    });
    // Both from the one failure time the reporter sent: the same end everywhere.
    expect(local.retryAtMs).toBe(entity.state.pausedUntilMs);
  });
  expect(harness.fake.counters(key.model).requests).toBe(1);
});

// A worker's view of a breaker never opens it on its own guess: only the entity's opening makes callers skip.
import { Breakers } from '../../src/client/breakers';
import { breakerKey } from '../../src/routing/breaker-state';
import { gatedInput, startBreakerHarness, uniqueKey, type BreakerHarness } from '../support/breaker-harness';

let harness: BreakerHarness;
beforeAll(async () => {
  harness = await startBreakerHarness();
});
afterAll(async () => harness?.close());

test("a report that would open only the worker's view leaves the target callable while the entity is closed", async () => {
  const key = uniqueKey();
  const policy = { failureThreshold: 2, cooldownMs: 600_000 };
  harness.fake.script(key.model, { kind: 'error', error: 'server_error' }, { times: 2 });
  // A long hint TTL makes the divergence last: the soak saw it within the default second, from reports
  // that reached the entity in another order than they changed the view.
  await harness.withWorker({ hintTtlMs: 60_000 }, async (taskQueue) => {
    expect(await harness.gatedCall(taskQueue, gatedInput(key, policy))).toMatchObject({
      admitted: true,
      outcome: 'unavailable',
    });
    await harness.waitForSnapshot(key, (snapshot) => snapshot.state.consecutiveFailures === 1);
    // The entity forgets the failure; the worker's view, trusted for a minute, still counts it.
    await new Breakers(harness.temporal.client).reset(breakerKey(key.provider, key.model), { by: 'test' });

    // One more counted failure: two in the worker's view (its threshold), one at the entity.
    expect(await harness.gatedCall(taskQueue, gatedInput(key, policy))).toMatchObject({
      admitted: true,
      outcome: 'unavailable',
    });
    const entity = await harness.waitForSnapshot(
      key,
      (snapshot) => snapshot.state.counts.countedFailures === 2,
    );
    expect(entity.state).toMatchObject({ status: 'closed', consecutiveFailures: 1 });

    // The entity never opened, so the next call must reach the provider, not be skipped as circuit_open.
    expect(await harness.gatedCall(taskQueue, gatedInput(key, policy))).toMatchObject({ admitted: true });
  });
  expect(harness.fake.counters(key.model).requests).toBe(3);
});

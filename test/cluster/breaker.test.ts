// A breaker shared by the worker processes of a cluster: failures seen through either worker open it, and once
// its cooldown is over exactly one call in the whole cluster probes the target while the rest are skipped.
import { setTimeout as delay } from 'node:timers/promises';
import type { RoutedCallResult } from '../../src/routing/routing-record';
import { eventually } from '../support/eventually';
import { startClusterHarness, workflowTaskIdentities, type ClusterHarness } from '../support/cluster-harness';
import { uniqueName } from '../support/temporal';
import { fakeProviders } from '../support/test-config';

const flaky = uniqueName('gpt-flaky');
const steady = uniqueName('claude-steady');
const breakerKey = `openai/${flaky}`;
const FAILURE_THRESHOLD = 3;
const COOLDOWN_MS = 10_000;
/** How long the probe is held at the provider, in milliseconds: long enough for every concurrent call to arrive. */
const PROBE_HOLD_MS = 20_000;
const CONCURRENT_CALLS = 20;
/** Workers trust their view of a breaker for this long (the production default hint TTL), in milliseconds. */
const HINT_TTL_MS = 1_000;
const request = { messages: [{ role: 'user' as const, content: 'Say hello' }], maxOutputTokens: 64 };

let harness: ClusterHarness;
beforeAll(async () => {
  harness = await startClusterHarness({
    label: 'breaker',
    config: (fake) => ({
      providers: fakeProviders(fake, { openai: [flaky], anthropic: [steady] }),
      routes: {
        probed: {
          targets: [
            // The probe's lease outlasts the held answer: only the lease's holder may try the target.
            { provider: 'openai', model: flaky, timeoutMs: 30_000 },
            { provider: 'anthropic', model: steady, timeoutMs: 10_000 },
          ],
          breaker: { failureThreshold: FAILURE_THRESHOLD, cooldownMs: COOLDOWN_MS },
        },
      },
      defaultRoute: 'probed',
    }),
  });
}, 300_000);
afterAll(async () => harness?.close());

test('failures through both workers open one breaker; after the cooldown exactly one of 20 concurrent calls probes', async () => {
  const { fake, switchyard, client } = harness;
  fake.scriptAlways(flaky, { kind: 'error', error: 'server_error' });
  fake.scriptAlways(steady, { kind: 'answer', text: 'steady answer' });

  // Consecutive failures, one call at a time, until the shared breaker opens.
  const opening: RoutedCallResult[] = [];
  for (let call = 0; call < FAILURE_THRESHOLD; call += 1) {
    opening.push(await switchyard.generate({ route: 'probed', request }));
  }
  for (const result of opening) expect(result.record.servedBy?.model).toBe(steady);
  const opened = await eventually(
    'the breaker to open',
    () => switchyard.breakers.get(breakerKey),
    (view) => view.state.status === 'open',
  );
  expect(opened.state.counts.countedFailures).toBe(FAILURE_THRESHOLD);
  expect(fake.requestsFor(flaky)).toHaveLength(FAILURE_THRESHOLD);

  // While it is open (a cooldown long enough for a busy machine), both workers skip the target (after their
  // hint TTL at most).
  await delay(HINT_TTL_MS);
  const whileOpen = await Promise.all(
    Array.from({ length: 4 }, () => switchyard.generate({ route: 'probed', request })),
  );
  for (const result of whileOpen) {
    expect(result.record.attempts[0]).toMatchObject({
      model: flaky,
      outcome: 'skipped',
      skipReason: 'circuit_open',
    });
  }
  expect(fake.requestsFor(flaky)).toHaveLength(FAILURE_THRESHOLD);

  // The cooldown runs out; the target recovers but answers slowly, so every call below arrives during the probe.
  await delay(COOLDOWN_MS + HINT_TTL_MS);
  fake.scriptAlways(flaky, { kind: 'answer', text: 'probe answer', delayMs: PROBE_HOLD_MS });
  const results = await Promise.all(
    Array.from({ length: CONCURRENT_CALLS }, () => switchyard.generate({ route: 'probed', request })),
  );

  const probes = results.filter((result) => result.record.servedBy?.model === flaky);
  expect(probes).toHaveLength(1);
  expect(probes[0]!.answer.text).toBe('probe answer');
  const skipped = results.filter((result) => result.record.servedBy?.model === steady);
  expect(skipped).toHaveLength(CONCURRENT_CALLS - 1);
  for (const result of skipped) {
    expect(result.record.attempts[0]).toMatchObject({
      model: flaky,
      outcome: 'skipped',
      skipReason: 'circuit_open',
    });
    expect(result.record.attempts[1]).toMatchObject({ model: steady, outcome: 'succeeded' });
  }
  // The provider saw one request in all: the probe.
  expect(fake.requestsFor(flaky)).toHaveLength(FAILURE_THRESHOLD + 1);

  // The probe closed the breaker, for every worker.
  const closed = await eventually(
    'the probe to close the breaker',
    () => switchyard.breakers.get(breakerKey),
    (view) => view.state.status === 'closed',
  );
  expect(closed.state.transitions.map((transition) => transition.to)).toEqual([
    'open',
    'half_open',
    'closed',
  ]);

  // Both worker processes took part: the breaker they consulted is one entity, not one per process.
  const identities = (
    await Promise.all(results.map((result) => workflowTaskIdentities(client, result.record.workflowId)))
  ).flat();
  const pids = new Set(identities.map((identity) => harness.workerOf(identity)?.pid));
  expect(pids).toEqual(new Set(harness.workers.map((worker) => worker.pid)));
});

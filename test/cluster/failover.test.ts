// Routed calls with failover on the cluster shape: two worker processes share the calls, and a failing first
// target fails over to the second, recorded attempt by attempt.
import { RoutedCallError } from '../../src/client/errors';
import type { RoutedCallResult } from '../../src/routing/routing-record';
import { startClusterHarness, workflowTaskIdentities, type ClusterHarness } from '../support/cluster-harness';
import { uniqueName } from '../support/temporal';
import { fakeProviders } from '../support/test-config';

// Fresh model names per run: breakers are per (provider, model) on a cluster that may outlive this run.
const primary = uniqueName('gpt-primary');
const fallback = uniqueName('claude-fallback');
const CALLS = 20;
const FAILING = 10;
const request = { messages: [{ role: 'user' as const, content: 'Say hello' }], maxOutputTokens: 64 };

let harness: ClusterHarness;
beforeAll(async () => {
  harness = await startClusterHarness({
    label: 'failover',
    config: (fake) => ({
      providers: fakeProviders(fake, { openai: [primary], anthropic: [fallback] }),
      routes: {
        failover: {
          targets: [
            { provider: 'openai', model: primary, timeoutMs: 10_000 },
            { provider: 'anthropic', model: fallback, timeoutMs: 10_000 },
          ],
          // Counted on the breaker but never opening it here: this file checks failover, not skipping.
          breaker: { failureThreshold: 1_000, cooldownMs: 30_000 },
        },
      },
      defaultRoute: 'failover',
    }),
  });
}, 300_000);
afterAll(async () => harness?.close());

test(`${CALLS} concurrent calls over two worker processes: ${FAILING} fail over to the second target, all are served`, async () => {
  const { fake, switchyard, client } = harness;
  fake.script(
    primary,
    Array.from({ length: FAILING }, () => ({ kind: 'error' as const, error: 'server_error' as const })),
  );
  fake.scriptAlways(primary, { kind: 'answer', text: 'from the primary' });
  fake.scriptAlways(fallback, { kind: 'answer', text: 'from the fallback' });

  const results: RoutedCallResult[] = await Promise.all(
    Array.from({ length: CALLS }, () => switchyard.generate({ route: 'failover', request })),
  );

  const failedOver = results.filter((result) => result.record.servedBy?.model === fallback);
  const direct = results.filter((result) => result.record.servedBy?.model === primary);
  expect([failedOver.length, direct.length]).toEqual([FAILING, CALLS - FAILING]);
  for (const result of failedOver) {
    expect(result.answer.text).toBe('from the fallback');
    expect(
      result.record.attempts.map((attempt) => [attempt.model, attempt.outcome, attempt.failureClass]),
    ).toEqual([
      [primary, 'failed', 'unavailable'],
      [fallback, 'succeeded', undefined],
    ]);
    expect(result.record.attempts[0]!.httpStatus).toBe(500);
    expect(result.record.fallbacks).toBe(1);
  }
  for (const result of direct) {
    expect(result.answer.text).toBe('from the primary');
    expect(result.record.attempts).toHaveLength(1);
    expect(result.record.fallbacks).toBe(0);
  }
  // The provider saw exactly the attempts the records show: every call once on the primary, the failed ones
  // once more on the fallback.
  expect(fake.requestsFor(primary)).toHaveLength(CALLS);
  expect(fake.requestsFor(fallback)).toHaveLength(FAILING);

  // Both worker processes ran routed calls: the calls were spread over the cluster's task queue.
  const identities = new Set(
    (
      await Promise.all(results.map((result) => workflowTaskIdentities(client, result.record.workflowId)))
    ).flat(),
  );
  const pids = new Set([...identities].map((identity) => harness.workerOf(identity)?.pid));
  expect(pids).toEqual(new Set(harness.workers.map((worker) => worker.pid)));
});

test('a request the provider rejects as invalid does not fail over, on any worker', async () => {
  const { fake, switchyard } = harness;
  fake.reset();
  fake.script(primary, { kind: 'error', error: 'bad_request' });
  const failure = await switchyard.generate({ route: 'failover', request }).catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(RoutedCallError);
  expect((failure as RoutedCallError).type).toBe('InvalidRequest');
  expect((failure as RoutedCallError).record?.attempts.map((attempt) => attempt.failureClass)).toEqual([
    'invalid_request',
  ]);
  expect(fake.requestsFor(fallback)).toHaveLength(0);
});

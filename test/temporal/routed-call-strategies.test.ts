// Routing strategies on a real dev server with the fake provider: which candidate each strategy sends the call to,
// nested routes as one candidate, the call's prefer and require, and the explanation on answers and errors.
import type { Config } from '../../src/config/config';
import { parseConfig } from '../../src/config/load-config';
import type { RoutingRecord } from '../../src/routing/routing-record';
import { startHarness, type Harness } from '../support/harness';
import { expectRoutedCallError } from '../support/expect-failure';
import { TEST_PRICES } from '../support/test-config';

const request = { messages: [{ role: 'user' as const, content: 'Say hello' }], maxOutputTokens: 64 };
const target = (provider: string, model: string) => ({ provider, model, timeoutMs: 5_000 });
const gptPrimary = target('openai', 'gpt-primary');
const gptSecondary = target('openai', 'gpt-secondary');
/** The fake holds gpt-primary's answer this long, in milliseconds: its measured latency is at least this. */
const SLOW_DELAY_MS = 600;

/**
 * gpt-secondary at a tenth of the test prices; claude-secondary with a context window too small for any request
 * (screened out before its breaker is asked); a nested route `pool` and a route `nested` whose first candidate
 * it is.
 */
function strategiesConfig(config: Config): Config {
  const { openai, anthropic } = config.providers;
  return parseConfig({
    ...config,
    providers: {
      ...config.providers,
      openai: {
        ...openai,
        models: {
          ...openai!.models,
          'gpt-secondary': { ...TEST_PRICES, inputUsdPerMillion: 0.1, outputUsdPerMillion: 0.4 },
        },
      },
      anthropic: {
        ...anthropic,
        models: { ...anthropic!.models, 'claude-secondary': { ...TEST_PRICES, contextWindow: 40 } },
      },
    },
    routes: {
      ...config.routes,
      pool: {
        targets: [
          { ...target('anthropic', 'claude-secondary'), retries: 2 },
          target('anthropic', 'claude-primary'),
          gptSecondary,
        ],
      },
      // Three attempts: a target passed over inside the nested route takes one, not its retries' too.
      nested: { targets: [{ route: 'pool' }, gptPrimary], maxAttempts: 3 },
    },
  });
}

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness(strategiesConfig);
});
afterAll(async () => harness?.close());
beforeEach(() => harness.fake.reset());

test('cheapest: the model with the lower worst-case cost serves, and the record says why', async () => {
  const { record } = await harness.withWorker((switchyard) =>
    switchyard.generate({ route: { strategy: 'cheapest', targets: [gptPrimary, gptSecondary] }, request }),
  );
  expect(record.servedBy?.model).toBe('gpt-secondary');
  expect(harness.fake.counters('gpt-primary').requests).toBe(0);
  expect(record.explanation).toMatchObject({
    strategy: 'cheapest',
    considered: ['openai/gpt-secondary', 'openai/gpt-primary'],
    chosen: 'openai/gpt-secondary',
    rejected: [],
    skipped: [],
  });
  expect(record.explanation?.reason).toMatch(
    /^cheapest of 2 eligible candidates: openai\/gpt-secondary may cost up to/,
  );
});

test('fastest: declared order until measured, then the target measured faster leads', async () => {
  harness.fake.scriptAlways('gpt-primary', { kind: 'answer', delayMs: SLOW_DELAY_MS });
  const route = { strategy: 'fastest' as const, targets: [gptPrimary, gptSecondary] };
  const [cold, warm] = await harness.withWorker(async (switchyard) => {
    // Nothing measured yet on this worker: declared order, and this answer is gpt-primary's measurement.
    const first = await switchyard.generate({ route, request });
    await switchyard.generate({ route: { targets: [gptSecondary] }, request });
    return [first, await switchyard.generate({ route, request })] as const;
  });
  expect(cold.record.servedBy?.model).toBe('gpt-primary');
  expect(cold.record.explanation?.reason).toContain('no measurements');
  expect(warm.record.servedBy?.model).toBe('gpt-secondary');
  expect(warm.record.explanation?.considered).toEqual(['openai/gpt-secondary', 'openai/gpt-primary']);
  expect(warm.record.explanation?.reason).toMatch(
    /^fastest of 2 eligible candidates: openai\/gpt-secondary measured \d+ ms/,
  );
  expect(harness.fake.counters('gpt-primary').requests).toBe(1);
});

test('weighted: 1,000 calls spread within 6 points of the weights', async () => {
  const calls = 1_000;
  const route = {
    strategy: 'weighted' as const,
    targets: [
      { ...gptPrimary, weight: 3 },
      { ...gptSecondary, weight: 1 },
    ],
  };
  const records = await harness.withWorker(async (switchyard) => {
    const served: RoutingRecord[] = [];
    // 50 at a time: the whole thousand at once would only queue on the dev server.
    for (let batch = 0; batch < calls / 50; batch += 1) {
      const results = await Promise.all(
        Array.from({ length: 50 }, () =>
          switchyard.generate({ route, request }).then(({ record }) => record),
        ),
      );
      served.push(...results);
    }
    return served;
  });
  const primary = records.filter((record) => record.servedBy?.model === 'gpt-primary').length;
  // 3 to 1: 750 of 1,000 expected, standard deviation about 13.7 calls. 6 points (60 calls) is over 4 standard
  // deviations: a correct rule fails this less than once in 50,000 runs; a rule off by 6 points fails it half
  // the time or more.
  expect(Math.abs(primary / calls - 0.75)).toBeLessThan(0.06);
  expect(
    harness.fake.counters('gpt-primary').requests + harness.fake.counters('gpt-secondary').requests,
  ).toBe(calls);
  expect(records.every((record) => record.explanation?.strategy === 'weighted')).toBe(true);
  expect(records[0]!.explanation?.reason).toMatch(
    /^weighted draw 0\.\d{3} over 2 eligible candidates picked/,
  );
}, 300_000);

test('fewest_failures: a target that failed moves back behind one that did not', async () => {
  harness.fake.scriptAlways('gpt-primary', { kind: 'error', error: 'server_error' });
  const route = { strategy: 'fewest_failures' as const, targets: [gptPrimary, gptSecondary] };
  const [first, second] = await harness.withWorker(async (switchyard) => [
    await switchyard.generate({ route, request }),
    await switchyard.generate({ route, request }),
  ]);
  // No failures yet: declared order, gpt-primary fails and the call fails over.
  expect(first.record.attempts.map((attempt) => [attempt.model, attempt.outcome])).toEqual([
    ['gpt-primary', 'failed'],
    ['gpt-secondary', 'succeeded'],
  ]);
  // The worker counted that failure: the next call starts with gpt-secondary and never asks gpt-primary.
  expect(second.record.attempts.map((attempt) => attempt.model)).toEqual(['gpt-secondary']);
  expect(second.record.explanation?.considered).toEqual(['openai/gpt-secondary', 'openai/gpt-primary']);
  expect(harness.fake.counters('gpt-primary').requests).toBe(1);
});

test("a nested route is one candidate: its attempt fails over to the outer route's next, not to its own next target", async () => {
  harness.fake.script('claude-primary', { kind: 'error', error: 'server_error' });
  const { record } = await harness.withWorker((switchyard) =>
    switchyard.generate({ route: 'nested', request }),
  );
  // claude-secondary is screened out (its window), so pool tries claude-primary; when that fails, pool's
  // gpt-secondary is not tried: the outer route's next candidate serves.
  expect(record.attempts.map((attempt) => [attempt.model, attempt.outcome, attempt.skipReason])).toEqual([
    ['claude-secondary', 'skipped', 'context_window'],
    ['claude-primary', 'failed', undefined],
    ['gpt-primary', 'succeeded', undefined],
  ]);
  expect(harness.fake.counters('claude-secondary').requests).toBe(0);
  expect(harness.fake.counters('gpt-secondary').requests).toBe(0);
  expect(record.explanation).toMatchObject({
    strategy: 'ordered',
    considered: ['route:pool', 'openai/gpt-primary'],
    chosen: 'openai/gpt-primary',
    skipped: [
      {
        candidate: 'anthropic/claude-secondary (route:pool)',
        reason: expect.stringMatching(/^context_window: /),
      },
    ],
  });
});

test("prefer: cost overrides the route's order; require.maxCostUsd rejects the dearer target with its reason", async () => {
  const route = { targets: [gptPrimary, gptSecondary] };
  const [preferred, required] = await harness.withWorker(async (switchyard) => [
    await switchyard.generate({ route, request, prefer: 'cost' }),
    // gpt-primary may cost 0.000256 USD for the output cap alone; gpt-secondary a tenth of that.
    await switchyard.generate({ route, request, require: { maxCostUsd: 0.0001 } }),
  ]);
  expect(preferred.record.servedBy?.model).toBe('gpt-secondary');
  expect(preferred.record.explanation?.reason).toMatch(/^the call prefers cost: cheapest of 2/);
  expect(required.record.servedBy?.model).toBe('gpt-secondary');
  expect(required.record.explanation).toMatchObject({
    strategy: 'ordered',
    considered: ['openai/gpt-secondary'],
    rejected: [
      { candidate: 'openai/gpt-primary', reason: expect.stringContaining('above require.maxCostUsd 0.0001') },
    ],
  });
  expect(harness.fake.counters('gpt-primary').requests).toBe(0);
});

test('every candidate rejected: InvalidRequest naming the requirement, nothing sent, the explanation on the error', async () => {
  const error = await expectRoutedCallError(
    harness.withWorker((switchyard) =>
      switchyard.generate({ route: 'support', request, require: { maxCostUsd: 0.000001 } }),
    ),
  );
  expect(error.type).toBe('InvalidRequest');
  expect(error.message).toContain('require.maxCostUsd');
  expect(error.record?.attempts).toEqual([]);
  expect(error.record?.explanation).toMatchObject({ considered: [], rejected: [{}, {}] });
  expect(
    harness.fake.counters('gpt-primary').requests + harness.fake.counters('claude-primary').requests,
  ).toBe(0);
});

test('a failed call carries the explanation in its typed error', async () => {
  harness.fake.scriptAlways('gpt-primary', { kind: 'error', error: 'server_error' });
  harness.fake.scriptAlways('claude-primary', { kind: 'error', error: 'server_error' });
  const error = await expectRoutedCallError(
    harness.withWorker((switchyard) => switchyard.generate({ route: 'support', request })),
  );
  expect(error.type).toBe('AllTargetsFailed');
  expect(error.record?.explanation).toEqual({
    strategy: 'ordered',
    considered: ['openai/gpt-primary', 'anthropic/claude-primary'],
    reason: 'declared order of 2 eligible candidates: openai/gpt-primary first',
    rejected: [],
    skipped: [],
  });
});

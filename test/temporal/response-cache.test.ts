// The response cache on a real dev server with the fake provider: a hit sends nothing and charges nothing (also
// with the budget spent), identical calls in flight make one request, failures and expired answers are not served.
import { settledLedger } from '../support/settled-ledger';
import { estimateInputTokens } from '../../src/routing/estimate-tokens';
import { attemptBound, nanoToUsd } from '../../src/routing/money';
import { GenerationRequestSchema } from '../../src/config/request';
import { startHarness, type Harness } from '../support/harness';
import { expectRoutedCallError } from '../support/expect-failure';
import { uniqueName } from '../support/temporal';

const primary = { provider: 'openai', model: 'gpt-primary', timeoutMs: 5_000 };
const secondary = { provider: 'openai', model: 'gpt-secondary', timeoutMs: 5_000 };
const cachedRoute = { targets: [primary], cache: { ttlMs: 60_000 } };
const prices = { inputUsdPerMillion: 1, cachedInputUsdPerMillion: 0.5, outputUsdPerMillion: 4 };

/** A request no other test (nor an earlier run on the same server) asks: cache entries outlive a test. */
function uniqueRequest() {
  return { messages: [{ role: 'user' as const, content: uniqueName('say hello') }], maxOutputTokens: 64 };
}

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => harness?.close());
beforeEach(() => harness.fake.reset());

test('a hit sends no request and charges nothing, also when the budget scope is spent', async () => {
  const budget = uniqueName('team');
  const request = uniqueRequest();
  const inputTokens = estimateInputTokens(GenerationRequestSchema.parse(request));
  const bound = attemptBound(prices, inputTokens, request.maxOutputTokens);
  // Usage that costs the whole bound: after one call the scope cannot afford another.
  harness.fake.scriptAlways('gpt-primary', {
    kind: 'answer',
    text: 'cached hello',
    usage: { inputTokens, outputTokens: request.maxOutputTokens },
  });
  const { first, refused, hit, snapshot } = await harness.withWorker(async (switchyard) => {
    await switchyard.ledgers.setLimit(budget, { limitUsd: nanoToUsd(bound * 1.5) });
    const first = await switchyard.generate({ route: cachedRoute, request, budget });
    // The same call without the cache is refused: the scope is spent.
    const refused = await expectRoutedCallError(
      switchyard.generate({ route: cachedRoute, request, budget, cache: false }),
    );
    const hit = await switchyard.generate({ route: cachedRoute, request, budget });
    return { first, refused, hit, snapshot: await settledLedger(switchyard.ledgers, budget) };
  });
  expect(first.record).toMatchObject({ cache: 'miss', totalCostNanoUsd: bound });
  expect(refused.type).toBe('BudgetExceeded');
  expect(hit.answer).toEqual(first.answer);
  expect(hit.answer.text).toBe('cached hello');
  expect(hit.record).toMatchObject({
    cache: 'hit',
    totalCostNanoUsd: 0,
    totalCostUsd: 0,
    fallbacks: 0,
    attempts: [],
    servedBy: { provider: 'openai', model: 'gpt-primary', targetIndex: 0 },
  });
  expect(harness.fake.counters('gpt-primary').requests).toBe(1);
  expect(snapshot.spentNanoUsd).toBe(bound);
  expect(snapshot.openReservations).toHaveLength(0);
});

test('20 concurrent identical cached calls reach the provider once and all get its answer', async () => {
  const request = uniqueRequest();
  // Slow enough that every call asks while the first is still at the provider.
  harness.fake.scriptAlways('gpt-primary', { kind: 'answer', text: 'only once', delayMs: 1_500 });
  const results = await harness.withWorker((switchyard) =>
    Promise.all(
      Array.from({ length: 20 }, () =>
        switchyard.generate({ route: { targets: [primary] }, request, cache: true }),
      ),
    ),
  );
  expect(harness.fake.counters('gpt-primary').requests).toBe(1);
  expect(results.map((result) => result.answer.text)).toEqual(Array(20).fill('only once'));
  const marks = results.map((result) => result.record.cache);
  expect(marks.filter((mark) => mark === 'miss')).toHaveLength(1);
  expect(marks.filter((mark) => mark === 'hit')).toHaveLength(19);
  const paid = results.filter((result) => result.record.totalCostNanoUsd > 0);
  expect(paid).toHaveLength(1);
});

test('a failure is never cached: the next identical call goes to the provider', async () => {
  const request = uniqueRequest();
  harness.fake.script('gpt-primary', { kind: 'error', error: 'server_error' });
  harness.fake.scriptAlways('gpt-primary', { kind: 'answer', text: 'after the failure' });
  const { failed, second, third } = await harness.withWorker(async (switchyard) => {
    const failed = await expectRoutedCallError(switchyard.generate({ route: cachedRoute, request }));
    const second = await switchyard.generate({ route: cachedRoute, request });
    const third = await switchyard.generate({ route: cachedRoute, request });
    return { failed, second, third };
  });
  expect(failed.type).toBe('AllTargetsFailed');
  expect(second.record.cache).toBe('miss');
  expect(second.answer.text).toBe('after the failure');
  expect(third.record.cache).toBe('hit');
  expect(harness.fake.counters('gpt-primary').requests).toBe(2);
});

test('another request, route or budget scope misses; a call with the cache off neither reads nor stores', async () => {
  const request = uniqueRequest();
  const otherRoute = { targets: [secondary], cache: { ttlMs: 60_000 } };
  const marks = await harness.withWorker(async (switchyard) => {
    const calls = [
      { route: cachedRoute, request },
      { route: cachedRoute, request: uniqueRequest() },
      { route: otherRoute, request },
      { route: cachedRoute, request, budget: uniqueName('other-team') },
      { route: cachedRoute, request, cache: false },
      { route: cachedRoute, request },
    ];
    const marks: (string | undefined)[] = [];
    for (const call of calls) marks.push((await switchyard.generate(call)).record.cache);
    return marks;
  });
  expect(marks).toEqual(['miss', 'miss', 'miss', 'miss', undefined, 'hit']);
  expect(harness.fake.counters('gpt-primary').requests).toBe(4);
  expect(harness.fake.counters('gpt-secondary').requests).toBe(1);
});

test('an answer past its TTL is not served', async () => {
  const request = uniqueRequest();
  const shortLived = { targets: [primary], cache: { ttlMs: 3_000 } };
  const marks = await harness.withWorker(async (switchyard) => {
    const first = await switchyard.generate({ route: shortLived, request });
    const soon = await switchyard.generate({ route: shortLived, request });
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    const later = await switchyard.generate({ route: shortLived, request });
    return [first, soon, later].map((result) => result.record.cache);
  });
  expect(marks).toEqual(['miss', 'hit', 'miss']);
  expect(harness.fake.counters('gpt-primary').requests).toBe(2);
});

test('a streamed call bypasses the cache', async () => {
  const request = uniqueRequest();
  const marks = await harness.withWorker(async (switchyard) => {
    const first = await switchyard.generate({ route: cachedRoute, request, stream: true });
    const second = await switchyard.generate({ route: cachedRoute, request, stream: true });
    return [first, second].map((result) => result.record.cache);
  });
  expect(marks).toEqual([undefined, undefined]);
  expect(harness.fake.counters('gpt-primary').requests).toBe(2);
});

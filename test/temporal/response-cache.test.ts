// The response cache on a real dev server with the fake provider: a hit sends nothing and charges nothing (also
// with the budget spent), identical calls in flight make one request, failures and expired answers are not served.
import { settledLedger } from '../support/settled-ledger';
import { estimateInputTokens } from '../../src/routing/estimate-tokens';
import { attemptBound, nanoToUsd } from '../../src/routing/money';
import { GenerationRequestSchema } from '../../src/config/request';
import { startHarness, type Harness } from '../support/harness';
import { expectRoutedCallError } from '../support/expect-failure';
import { uniqueName } from '../support/temporal';
import { eventually } from '../support/eventually';
import { cacheKeyDigest } from '../../src/activities/response-cache';
import { entityTaskQueue } from '../../src/workflows/definitions';
import { responseCacheWorkflowId } from '../../src/workflows/response-cache/definitions';
import { GATEWAY_KEY_LABEL } from '../../src/config/routed-call-input';

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
    explanation: { chosen: 'openai/gpt-primary', considered: [], rejected: [], skipped: [] },
  });
  expect(hit.record.explanation?.reason).toContain('served from the response cache: an answer paid for at');
  // Never the paying call's workflow id: a gateway call's carries its key id and idempotency key.
  expect(hit.record.explanation?.reason).not.toContain(first.record.workflowId);
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

test('a leader that fails hands the lead to a waiting call, whose answer the others then get', async () => {
  const request = uniqueRequest();
  // The first request fails late, once the other calls wait on it; the next one answers.
  harness.fake.script('gpt-primary', { kind: 'error', error: 'server_error', delayMs: 1_500 });
  harness.fake.scriptAlways('gpt-primary', { kind: 'answer', text: 'second try', delayMs: 300 });
  const outcomes = await harness.withWorker((switchyard) =>
    Promise.allSettled(Array.from({ length: 5 }, () => switchyard.generate({ route: cachedRoute, request }))),
  );
  const failed = outcomes.filter((outcome) => outcome.status === 'rejected');
  const answered = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
  expect(failed).toHaveLength(1);
  expect(answered.map((result) => result.answer.text)).toEqual(Array(4).fill('second try'));
  expect(answered.map((result) => result.record.cache).sort()).toEqual(['hit', 'hit', 'hit', 'miss']);
  expect(harness.fake.counters('gpt-primary').requests).toBe(2);
});

test('a waiting call that takes the lead asks the breakers afresh: a target paused meanwhile is not sent to', async () => {
  const request = uniqueRequest();
  const route = { targets: [primary, secondary], cache: { ttlMs: 60_000 } };
  // The leader's first target answers 429 with Retry-After (late, once the others wait), its second fails too:
  // the lead passes to a waiting call, whose start-time admission of gpt-primary predates the pause.
  harness.fake.script('gpt-primary', {
    kind: 'error',
    error: 'rate_limited',
    retryAfterSeconds: 30,
    delayMs: 1_500,
  });
  harness.fake.scriptAlways('gpt-primary', { kind: 'answer', text: 'sent during the pause' });
  harness.fake.script('gpt-secondary', { kind: 'error', error: 'server_error' });
  harness.fake.scriptAlways('gpt-secondary', { kind: 'answer', text: 'after the lead passed' });
  const outcomes = await harness.withWorker((switchyard) =>
    Promise.allSettled(Array.from({ length: 3 }, () => switchyard.generate({ route, request }))),
  );
  const answered = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
  expect(answered.map((result) => result.answer.text)).toEqual(Array(2).fill('after the lead passed'));
  const newLeader = answered.find((result) => result.record.cache === 'miss')!;
  expect(
    newLeader.record.attempts.map((attempt) => [attempt.model, attempt.outcome, attempt.skipReason]),
  ).toEqual([
    ['gpt-primary', 'skipped', 'paused'],
    ['gpt-secondary', 'succeeded', undefined],
  ]);
  expect(harness.fake.counters('gpt-primary').requests).toBe(1);
});

test('another request, route, budget scope, gateway key or cost ceiling misses; a call with the cache off, or streamed, neither reads nor stores', async () => {
  const request = uniqueRequest();
  const otherRoute = { targets: [secondary], cache: { ttlMs: 60_000 } };
  // gpt-primary's answers in order, so an answer tells which request it came from.
  const texts = [
    'first',
    'other request',
    'other scope',
    'other key',
    'other ceiling',
    'uncached',
    'streamed',
  ];
  harness.fake.script(
    'gpt-primary',
    texts.map((text) => ({ kind: 'answer' as const, text })),
  );
  const results = await harness.withWorker(async (switchyard) => {
    const calls = [
      { route: cachedRoute, request },
      { route: cachedRoute, request: uniqueRequest() },
      { route: otherRoute, request },
      { route: cachedRoute, request, budget: uniqueName('other-team') },
      // Gateway keys never share answers, even without budget scopes (nor does a call with its own ceiling).
      { route: cachedRoute, request, labels: { [GATEWAY_KEY_LABEL]: 'another-key' } },
      { route: cachedRoute, request, maxCostUsd: 1 },
      { route: cachedRoute, request, cache: false },
      // A streamed call bypasses the cache: its pieces go to the caller as they come.
      { route: cachedRoute, request, stream: true },
      { route: cachedRoute, request },
    ];
    const results = [];
    for (const call of calls) results.push(await switchyard.generate(call));
    return results;
  });
  expect(results.map((result) => result.record.cache)).toEqual([
    'miss',
    'miss',
    'miss',
    'miss',
    'miss',
    'miss',
    undefined,
    undefined,
    'hit',
  ]);
  // The last call gets the first call's answer: neither the uncached nor the streamed call stored theirs.
  expect(results[8]!.answer.text).toBe('first');
  expect(results[4]!.answer.text).toBe('other key');
  expect(results[6]!.answer.text).toBe('uncached');
  expect(results[7]!.answer.text).toBe('streamed');
  expect(harness.fake.counters('gpt-primary').requests).toBe(7);
  expect(harness.fake.counters('gpt-secondary').requests).toBe(1);
});

test('an answer past its TTL is not served', async () => {
  const request = uniqueRequest();
  const shortLived = { targets: [primary], cache: { ttlMs: 3_000 } };
  const { marks, entryStatus } = await harness.withWorker(async (switchyard, taskQueue) => {
    const first = await switchyard.generate({ route: shortLived, request });
    const soon = await switchyard.generate({ route: shortLived, request });
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    // The entry ends by itself once its answer expired: its closed run is left to the namespace's retention.
    const keyDigest = cacheKeyDigest(entityTaskQueue(taskQueue), {
      request: GenerationRequestSchema.parse(request),
      route: { name: first.record.route, targets: [{ provider: 'openai', model: 'gpt-primary' }] },
    });
    const entry = harness.temporal.client.workflow.getHandle(responseCacheWorkflowId(keyDigest));
    const entryStatus = await eventually(
      'the cache entry completed after its TTL',
      async () => (await entry.describe()).status.name,
      (status) => status === 'COMPLETED',
      { timeoutMs: 15_000 },
    );
    const later = await switchyard.generate({ route: shortLived, request });
    return { marks: [first, soon, later].map((result) => result.record.cache), entryStatus };
  });
  expect(marks).toEqual(['miss', 'hit', 'miss']);
  expect(harness.fake.counters('gpt-primary').requests).toBe(2);
  expect(entryStatus).toBe('COMPLETED');
});

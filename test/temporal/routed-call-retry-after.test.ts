// A 429's Retry-After on a real dev server: one route's call pauses the target for every route until it ends.
import { startHarness, type Harness } from '../support/harness';
import { expectRoutedCallError } from '../support/expect-failure';

const request = { messages: [{ role: 'user' as const, content: 'Say hello' }], maxOutputTokens: 64 };
/** The shared target T: both routes contain it, each with a breaker policy of its own. */
const shared = { provider: 'openai', model: 'gpt-primary', timeoutMs: 5_000 };
const routeA = {
  targets: [shared, { provider: 'anthropic', model: 'claude-primary', timeoutMs: 5_000 }],
  breaker: { failureThreshold: 5, cooldownMs: 60_000 },
};
const routeB = {
  targets: [shared, { provider: 'openai', model: 'gpt-secondary', timeoutMs: 5_000 }],
  breaker: { failureThreshold: 3, cooldownMs: 30_000 },
};
/** A route with T alone: nothing to fail over to while T is paused. */
const onlyT = { targets: [shared], breaker: { failureThreshold: 3, cooldownMs: 30_000 } };

const PAUSE_MESSAGE = /^paused by the provider's Retry-After until (\d{4}-\d\d-\d\dT[\d:.]+Z)$/;

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => harness?.close());
beforeEach(() => harness.fake.reset());

test('a 429 with Retry-After 5 on route A keeps route B off the target until it ends, then B uses it again', async () => {
  harness.fake.script(
    'gpt-primary',
    { kind: 'error', error: 'rate_limited', retryAfterSeconds: 5 },
    { times: 1 },
  );
  const { first, second, alone, breaker, third } = await harness.withWorker(async (switchyard) => {
    const first = (await switchyard.generate({ route: routeA, request })).record;
    // Right after, on another route: T is skipped with the pause, and the call is served by B's next target.
    const second = (await switchyard.generate({ route: routeB, request })).record;
    const alone = await expectRoutedCallError(switchyard.generate({ route: onlyT, request }));
    const breaker = await switchyard.breakers.get('openai/gpt-primary');
    // Wait out the pause (as the skip and the entity name it), once.
    const skipUntil = Date.parse(PAUSE_MESSAGE.exec(second.attempts[0]?.message ?? '')?.[1] ?? '');
    const endsAtMs = Math.max(skipUntil, breaker.state.pausedUntilMs ?? 0);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, endsAtMs - Date.now()) + 50));
    const third = (await switchyard.generate({ route: routeB, request })).record;
    return { first, second, alone, breaker, third };
  });

  expect(first.attempts[0]).toMatchObject({
    outcome: 'failed',
    failureClass: 'rate_limited',
    httpStatus: 429,
    retryAfterMs: 5_000,
  });
  expect(first.servedBy?.model).toBe('claude-primary');

  expect(second.attempts[0]).toMatchObject({
    outcome: 'skipped',
    skipReason: 'paused',
    model: 'gpt-primary',
  });
  const until = Date.parse(PAUSE_MESSAGE.exec(second.attempts[0]!.message!)![1]!);
  expect(until).toBeGreaterThan(Date.parse(second.attempts[0]!.startedAt));
  expect(second.servedBy?.model).toBe('gpt-secondary');

  // With nothing else to call, the call fails like an all-open route, its retry time the pause's end: even the
  // forced probe of whenAllOpen probe_first is refused by the pause.
  expect(alone.type).toBe('CircuitOpen');
  const aloneSkips = alone.record?.attempts ?? [];
  expect(aloneSkips.map((attempt) => attempt.skipReason)).toEqual(['paused', 'paused']);
  const aloneUntil = aloneSkips.map((attempt) => Date.parse(PAUSE_MESSAGE.exec(attempt.message!)![1]!));
  expect(alone.retryAt?.getTime()).toBe(Math.min(...aloneUntil));
  expect(alone.retryAt!.getTime()).toBeGreaterThan(Date.parse(aloneSkips[0]!.startedAt));

  // The pause is the entity's shared state (what other workers read) and logged; the breaker stays closed (one
  // failure is below both routes' thresholds).
  expect(breaker.state.status).toBe('closed');
  const paused = breaker.state.transitions.find((move) => move.reason === 'retry_after');
  expect(paused).toMatchObject({ from: 'closed', to: 'closed', by: expect.stringMatching(/#1$/) });
  expect(paused!.detail).toBe(
    `rate limited with Retry-After 5000 ms: every route skips it for 5 s, until ${new Date(breaker.state.pausedUntilMs!).toISOString()}`,
  );
  // Counted from when the worker saw the 429, so never later than 5 s after the entity applied the report.
  expect(breaker.state.pausedUntilMs!).toBeLessThanOrEqual(Date.parse(paused!.at) + 5_000);

  // Only route A's call reached T during the pause; after it, route B calls T again.
  expect(third.attempts[0]).toMatchObject({ outcome: 'succeeded', model: 'gpt-primary' });
  expect(third.servedBy?.model).toBe('gpt-primary');
  expect(harness.fake.counters('gpt-primary').requests).toBe(2);
});

test('a 429 without Retry-After pauses nothing: the next call on another route still calls the target', async () => {
  harness.fake.script('gpt-primary', { kind: 'error', error: 'rate_limited' }, { times: 1 });
  const { first, second, breaker } = await harness.withWorker(async (switchyard) => {
    const first = (await switchyard.generate({ route: routeA, request })).record;
    const second = (await switchyard.generate({ route: routeB, request })).record;
    return { first, second, breaker: await switchyard.breakers.get('openai/gpt-primary') };
  });
  expect(first.attempts[0]).toMatchObject({ outcome: 'failed', failureClass: 'rate_limited' });
  expect(first.attempts[0]!.retryAfterMs).toBeUndefined();
  expect(second.attempts[0]).toMatchObject({ outcome: 'succeeded', model: 'gpt-primary' });
  expect(breaker.state.pausedUntilMs).toBeUndefined();
  expect(harness.fake.counters('gpt-primary').requests).toBe(2);
});

test('a patient call rate limited with a Retry-After walks again once the pause ends, not before', async () => {
  harness.fake.script(
    'gpt-primary',
    { kind: 'error', error: 'rate_limited', retryAfterSeconds: 3 },
    { times: 1 },
  );
  const patient = await harness.withWorker(
    async (switchyard) => (await switchyard.generate({ route: onlyT, request, patienceMs: 60_000 })).record,
  );
  // The pause counts like an opening: round 2 starts when it ends (a one-second backoff would have met the
  // pause, been skipped as paused, and needed a third round).
  expect(patient.rounds).toBe(2);
  expect(patient.attempts.map((attempt) => [attempt.round, attempt.failureClass ?? attempt.outcome])).toEqual(
    [
      [1, 'rate_limited'],
      [2, 'succeeded'],
    ],
  );
  expect(harness.fake.counters('gpt-primary').requests).toBe(2);
});

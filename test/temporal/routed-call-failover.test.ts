// Routed calls on a real dev server: which failures fail over, and what the routing record says.
import { startHarness, type Harness } from '../support/harness';
import { expectRoutedCallError } from '../support/expect-failure';

const request = { messages: [{ role: 'user' as const, content: 'Say hello' }], maxOutputTokens: 64 };
const twoTargets = {
  targets: [
    { provider: 'openai', model: 'gpt-primary', timeoutMs: 5_000 },
    { provider: 'anthropic', model: 'claude-primary', timeoutMs: 5_000 },
  ],
};

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => harness?.close());
beforeEach(() => harness.fake.reset());

test('a 429 on the primary fails over to the secondary, and the record shows both attempts', async () => {
  harness.fake.script('gpt-primary', { kind: 'error', error: 'rate_limited', retryAfterSeconds: 7 });
  harness.fake.script('claude-primary', {
    kind: 'answer',
    text: 'hello from claude',
    usage: { inputTokens: 10, outputTokens: 5 },
  });

  const { answer, record } = await harness.withWorker((switchyard) =>
    switchyard.generate({ route: 'support', request }),
  );

  expect(answer.text).toBe('hello from claude');
  expect(record.route).toBe('support');
  expect(record.servedBy).toEqual({ targetIndex: 1, provider: 'anthropic', model: 'claude-primary' });
  expect(record.fallbacks).toBe(1);
  expect(record.attempts).toHaveLength(2);
  expect(record.attempts[0]).toMatchObject({
    attempt: 1,
    provider: 'openai',
    model: 'gpt-primary',
    outcome: 'failed',
    failureClass: 'rate_limited',
    httpStatus: 429,
    retryAfterMs: 7_000,
    costNanoUsd: 0,
    costKnown: true,
  });
  // 10 input tokens at $1/M (10,000 nano-USD) + 5 output tokens at $4/M (20,000 nano-USD).
  expect(record.attempts[1]).toMatchObject({ outcome: 'succeeded', costNanoUsd: 30_000, costKnown: true });
  expect(record.totalCostNanoUsd).toBe(30_000);
  // The SDKs never retried on their own: one request per target.
  expect(harness.fake.counters('gpt-primary').requests).toBe(1);
  expect(harness.fake.counters('claude-primary').requests).toBe(1);
  const received = harness.fake.requestsFor('claude-primary')[0]!;
  expect((received.body as { max_tokens: number }).max_tokens).toBe(64);
});

test('a 401 fails over, because the next target has its own key', async () => {
  harness.fake.script('gpt-primary', { kind: 'error', error: 'authentication' });
  const { record } = await harness.withWorker((switchyard) =>
    switchyard.generate({ route: twoTargets, request }),
  );
  expect(record.route).toBe('inline');
  expect(record.attempts.map((attempt) => attempt.failureClass ?? attempt.outcome)).toEqual([
    'authentication',
    'succeeded',
  ]);
});

test.each([
  ['invalid request (400)', { kind: 'error', error: 'bad_request' }, 'InvalidRequest', 'invalid_request'],
  ['context overflow', { kind: 'error', error: 'context_overflow' }, 'ContextOverflow', 'context_overflow'],
  ['refusal', { kind: 'refusal' }, 'ContentRefused', 'refused'],
  ['content filter', { kind: 'content_filter' }, 'ContentRefused', 'content_policy'],
] as const)(
  '%s does not fail over and no request reaches the secondary',
  async (_name, scenario, type, failureClass) => {
    harness.fake.script('gpt-primary', scenario);
    const error = await expectRoutedCallError(
      harness.withWorker((switchyard) => switchyard.generate({ route: twoTargets, request })),
    );
    expect(error.type).toBe(type);
    expect(error.record?.attempts).toHaveLength(1);
    expect(error.record?.attempts[0]).toMatchObject({ outcome: 'failed', failureClass });
    expect(harness.fake.counters('claude-primary').requests).toBe(0);
  },
);

test('a hanging target times out at its own timeout and the next target serves', async () => {
  harness.fake.script('gpt-primary', { kind: 'hang' });
  const route = {
    targets: [{ provider: 'openai', model: 'gpt-primary', timeoutMs: 500 }, twoTargets.targets[1]!],
  };
  const { record } = await harness.withWorker((switchyard) => switchyard.generate({ route, request }));
  expect(record.attempts[0]).toMatchObject({ outcome: 'failed', failureClass: 'timeout', costKnown: false });
  // The request was sent and may be billed: the record charges its worst-case bound.
  expect(record.attempts[0]!.costNanoUsd).toBeGreaterThan(0);
  expect(record.servedBy?.model).toBe('claude-primary');
});

test('retries on one target are separate attempts in the record', async () => {
  harness.fake.script('gpt-primary', [{ kind: 'error', error: 'server_error' }]);
  const route = { targets: [{ provider: 'openai', model: 'gpt-primary', timeoutMs: 5_000, retries: 2 }] };
  const { record } = await harness.withWorker((switchyard) => switchyard.generate({ route, request }));
  expect(record.attempts.map((attempt) => [attempt.retry, attempt.failureClass ?? attempt.outcome])).toEqual([
    [0, 'unavailable'],
    [1, 'succeeded'],
  ]);
  expect(harness.fake.counters('gpt-primary').requests).toBe(2);
});

test('when every target fails, one aggregate error lists every attempt', async () => {
  harness.fake.script('gpt-primary', { kind: 'error', error: 'overloaded' });
  harness.fake.script('claude-primary', { kind: 'reset' });
  const error = await expectRoutedCallError(
    harness.withWorker((switchyard) => switchyard.generate({ route: twoTargets, request })),
  );
  expect(error.type).toBe('AllTargetsFailed');
  expect(error.message).toContain('#1 openai/gpt-primary: unavailable');
  expect(error.message).toContain('#2 anthropic/claude-primary: unavailable');
  expect(error.record?.attempts.map((attempt) => attempt.failureClass)).toEqual([
    'unavailable',
    'unavailable',
  ]);
});

test('failoverOn narrows which classes move on', async () => {
  harness.fake.script('gpt-primary', { kind: 'error', error: 'authentication' });
  const route = { ...twoTargets, failoverOn: ['rate_limited' as const] };
  const error = await expectRoutedCallError(
    harness.withWorker((switchyard) => switchyard.generate({ route, request })),
  );
  expect(error.type).toBe('AllTargetsFailed');
  expect(error.record?.attempts).toHaveLength(1);
  expect(harness.fake.counters('claude-primary').requests).toBe(0);
});

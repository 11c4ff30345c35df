// Patience on a real dev server: a call waits out a full outage on durable timers instead of failing.
import { startHarness, type Harness } from '../support/harness';
import { expectRoutedCallError } from '../support/expect-failure';

const request = {
  messages: [{ role: 'user' as const, content: 'Write the daily digest' }],
  maxOutputTokens: 64,
};
const cooldownMs = 1_500;
const route = {
  targets: [
    { provider: 'openai', model: 'gpt-primary', timeoutMs: 5_000 },
    { provider: 'anthropic', model: 'claude-primary', timeoutMs: 5_000 },
  ],
  breaker: { failureThreshold: 1, cooldownMs },
};

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => harness?.close());
beforeEach(() => harness.fake.reset());

test('a full outage delays the call: it waits for the breakers, then succeeds, with no request while all are open', async () => {
  harness.fake.outage('gpt-primary');
  harness.fake.outage('claude-primary');
  const { record } = await harness.withWorker(async (switchyard) => {
    const handle = await switchyard.start({ route, request, patienceMs: 120_000 });
    // Both targets fail once, which opens both breakers (threshold 1); then the providers recover.
    while (harness.fake.requests.length < 2) await new Promise((resolve) => setTimeout(resolve, 50));
    harness.fake.recover('gpt-primary');
    harness.fake.recover('claude-primary');
    return handle.result();
  });
  expect(record.rounds).toBeGreaterThanOrEqual(2);
  expect(record.servedBy?.model).toBe('gpt-primary');
  const [first, second, third, ...rest] = harness.fake.requests;
  expect(rest).toHaveLength(0);
  expect([first?.model, second?.model, third?.model]).toEqual([
    'gpt-primary',
    'claude-primary',
    'gpt-primary',
  ]);
  // The third request is the probe: it came only once the first breaker's cooldown had passed.
  expect(third!.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(cooldownMs);
  expect(
    record.attempts.filter((attempt) => attempt.outcome !== 'skipped').map((attempt) => attempt.round),
  ).toEqual([1, 1, record.rounds]);
});

test('when patience runs out, the call fails with every round in its record', async () => {
  harness.fake.outage('gpt-primary');
  harness.fake.outage('claude-primary');
  const error = await expectRoutedCallError(
    harness.withWorker((switchyard) => switchyard.generate({ route, request, patienceMs: 4_000 })),
  );
  expect(['AllTargetsFailed', 'CircuitOpen']).toContain(error.type);
  expect(error.record!.rounds).toBeGreaterThanOrEqual(2);
  expect(new Set(error.record!.attempts.map((attempt) => attempt.round)).size).toBe(error.record!.rounds);
  expect(error.message).toContain('#3 ');
});

test('a failure that does not fail over never waits', async () => {
  harness.fake.script('gpt-primary', { kind: 'error', error: 'bad_request' });
  const error = await expectRoutedCallError(
    harness.withWorker((switchyard) => switchyard.generate({ route, request, patienceMs: 120_000 })),
  );
  expect(error.type).toBe('InvalidRequest');
  expect(error.record?.rounds).toBe(1);
  expect(harness.fake.requests).toHaveLength(1);
});

test('after a round whose failures opened every breaker, the next round waits for the first probe: no wasted round', async () => {
  // The first round's backoff (1 s) comes before the breakers' cooldown (1.5 s) ends: a round started on the
  // backoff would find both breakers still open and skip both targets.
  harness.fake.script('gpt-primary', { kind: 'error', error: 'server_error' });
  harness.fake.script('claude-primary', { kind: 'error', error: 'server_error' });
  const { record } = await harness.withWorker((switchyard) =>
    switchyard.generate({ route, request, patienceMs: 120_000 }),
  );
  expect(record.rounds).toBe(2);
  expect(record.attempts.map((attempt) => [attempt.round, attempt.outcome])).toEqual([
    [1, 'failed'],
    [1, 'failed'],
    [2, 'succeeded'],
  ]);
  const [first, , third] = harness.fake.requests;
  expect(third!.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(cooldownMs);
});

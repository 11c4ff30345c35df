// The routed call with its breakers on a real dev server: skips, whenAllOpen, and healthy calls costing nothing.
import { startHarness, type Harness } from '../support/harness';
import { expectRoutedCallError } from '../support/expect-failure';
import { breakerWorkflowId } from '../../src/workflows/breaker/definitions';
import { uniqueName } from '../support/temporal';

const request = { messages: [{ role: 'user' as const, content: 'Say hello' }], maxOutputTokens: 64 };
const breaker = { failureThreshold: 2, cooldownMs: 600_000 };
const twoTargets = {
  targets: [
    { provider: 'openai', model: 'gpt-primary', timeoutMs: 5_000 },
    { provider: 'anthropic', model: 'claude-primary', timeoutMs: 5_000 },
  ],
  breaker,
};

/** The entity's history length once the report just sent has been processed (its workflow task completed). */
async function settledHistoryLength(handle: {
  describe(): Promise<{ historyLength: number }>;
}): Promise<number> {
  let last = -1;
  for (let reads = 0; reads < 100; reads += 1) {
    const { historyLength } = await handle.describe();
    if (historyLength === last) return historyLength;
    last = historyLength;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error('breaker history never settled');
}

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => harness?.close());
beforeEach(() => harness.fake.reset());

test('after threshold counted failures the target is skipped and no request reaches it', async () => {
  harness.fake.scriptAlways('gpt-primary', { kind: 'error', error: 'server_error' });
  const records = await harness.withWorker(async (switchyard) => {
    const results = [];
    for (let call = 0; call < 3; call += 1)
      results.push((await switchyard.generate({ route: twoTargets, request })).record);
    return results;
  });
  expect(records.map((record) => record.attempts[0]!.outcome)).toEqual(['failed', 'failed', 'skipped']);
  expect(records[2]!.attempts[0]).toMatchObject({ skipReason: 'circuit_open', provider: 'openai' });
  expect(records[2]!.servedBy?.model).toBe('claude-primary');
  expect(harness.fake.counters('gpt-primary').requests).toBe(2);
});

test('failures that do not count leave the breaker closed', async () => {
  harness.fake.script('gpt-primary', { kind: 'error', error: 'bad_request' }, { times: 3 });
  await harness.withWorker(async (switchyard) => {
    for (let call = 0; call < 3; call += 1) {
      await expectRoutedCallError(switchyard.generate({ route: twoTargets, request }));
    }
    const { record } = await switchyard.generate({ route: twoTargets, request });
    expect(record.servedBy?.model).toBe('gpt-primary');
  });
  expect(harness.fake.counters('gpt-primary').requests).toBe(4);
});

test('whenAllOpen fail: CircuitOpen at once, with the earliest retry time, and no request', async () => {
  harness.fake.scriptAlways('gpt-primary', { kind: 'error', error: 'overloaded' });
  harness.fake.scriptAlways('claude-primary', { kind: 'error', error: 'overloaded' });
  const route = { ...twoTargets, whenAllOpen: 'fail' as const };
  const { error, before } = await harness.withWorker(async (switchyard) => {
    for (let call = 0; call < 2; call += 1)
      await expectRoutedCallError(switchyard.generate({ route, request }));
    harness.fake.reset();
    const before = Date.now();
    return { error: await expectRoutedCallError(switchyard.generate({ route, request })), before };
  });
  expect(error.type).toBe('CircuitOpen');
  // The retry time is a typed field: a Date within the cooldown, and how long from when the error was read.
  expect(error.retryAt).toBeInstanceOf(Date);
  expect(error.retryAt!.getTime()).toBeGreaterThan(before);
  expect(error.retryAt!.getTime()).toBeLessThanOrEqual(before + breaker.cooldownMs);
  expect(error.retryAfterMs).toBeGreaterThanOrEqual(0);
  expect(error.message).toContain(error.retryAt!.toISOString());
  expect(error.message).toMatch(/earliest may be tried at \d{4}-/);
  expect(error.record?.attempts.map((attempt) => attempt.skipReason)).toEqual([
    'circuit_open',
    'circuit_open',
  ]);
  expect(harness.fake.requests).toHaveLength(0);
});

test('whenAllOpen probe_first: one forced probe of the first target, which closes its breaker', async () => {
  harness.fake.scriptAlways('gpt-primary', { kind: 'error', error: 'overloaded' });
  harness.fake.scriptAlways('claude-primary', { kind: 'error', error: 'overloaded' });
  const { record, state } = await harness.withWorker(async (switchyard) => {
    for (let call = 0; call < 2; call += 1) {
      await expectRoutedCallError(switchyard.generate({ route: twoTargets, request }));
    }
    harness.fake.reset();
    const result = await switchyard.generate({ route: twoTargets, request });
    return { record: result.record, state: await switchyard.breakers.get('openai/gpt-primary') };
  });
  expect(record.attempts.map((attempt) => attempt.skipReason ?? attempt.outcome)).toEqual([
    'circuit_open',
    'circuit_open',
    'succeeded',
  ]);
  expect(record.servedBy?.model).toBe('gpt-primary');
  expect(harness.fake.requests).toHaveLength(1);
  expect(state.state.status).toBe('closed');
});

test('healthy calls add no event to the breaker history', async () => {
  harness.fake.script('gpt-primary', { kind: 'error', error: 'server_error' });
  await harness.withWorker(async (switchyard) => {
    // One failure creates the breaker; the next success clears its count (a change, so it is reported).
    await switchyard.generate({ route: twoTargets, request });
    await switchyard.generate({ route: twoTargets, request });
    const handle = harness.temporal.client.workflow.getHandle(breakerWorkflowId('openai', 'gpt-primary'));
    const before = await settledHistoryLength(handle);
    for (let call = 0; call < 5; call += 1) await switchyard.generate({ route: twoTargets, request });
    expect((await handle.describe()).historyLength).toBe(before);
  });
  expect(harness.fake.counters('gpt-primary').answered).toBe(6);
});

test('whenAllOpen probe_first: a probe the budget refuses ends the call BudgetExceeded, not CircuitOpen', async () => {
  harness.fake.scriptAlways('gpt-primary', { kind: 'error', error: 'overloaded' });
  harness.fake.scriptAlways('claude-primary', { kind: 'error', error: 'overloaded' });
  const budget = uniqueName('probe-budget');
  const error = await harness.withWorker(async (switchyard) => {
    for (let call = 0; call < 2; call += 1) {
      await expectRoutedCallError(switchyard.generate({ route: twoTargets, request }));
    }
    harness.fake.reset();
    // Room for no attempt at all: the probe the breaker grants is refused by the ledger before it sends.
    await switchyard.ledgers.setLimit(budget, { limitUsd: 0.000001 });
    const refused = await expectRoutedCallError(switchyard.generate({ route: twoTargets, request, budget }));
    // The refused probe gave its lease back: the next call probes the first target at once, and is served.
    const next = await switchyard.generate({ route: twoTargets, request });
    expect(next.record.servedBy?.model).toBe('gpt-primary');
    return refused;
  });
  expect(error.record?.attempts.map((attempt) => attempt.skipReason)).toEqual([
    'circuit_open',
    'circuit_open',
    'over_budget',
    expect.any(String),
  ]);
  expect(error.type).toBe('BudgetExceeded');
  expect(harness.fake.requests).toHaveLength(1);
});

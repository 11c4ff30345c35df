// Budgets through the routed call on a real dev server, written to break the guarantee: no overspend under
// concurrency, unknown costs charged in full, overdrafts seen by the next call, ledger equal to the bill.
import { settledLedger } from '../support/settled-ledger';
import { estimateInputTokens } from '../../src/routing/estimate-tokens';
import { attemptBound, costOfUsage, nanoToUsd } from '../../src/routing/money';
import { GenerationRequestSchema } from '../../src/config/request';
import { RoutedCallError } from '../../src/client/errors';
import { startHarness, type Harness } from '../support/harness';
import { expectRoutedCallError } from '../support/expect-failure';
import { uniqueName } from '../support/temporal';

const request = { messages: [{ role: 'user' as const, content: 'Say hello' }], maxOutputTokens: 64 };
const oneTarget = { targets: [{ provider: 'openai', model: 'gpt-primary', timeoutMs: 5_000 }] };
const prices = { inputUsdPerMillion: 1, cachedInputUsdPerMillion: 0.5, outputUsdPerMillion: 4 };
const estimatedInputTokens = estimateInputTokens(GenerationRequestSchema.parse(request));
const bound = attemptBound(prices, estimatedInputTokens, request.maxOutputTokens);
/** Usage that costs exactly the bound, so settling never frees room for one more call. */
const usageAtBound = { inputTokens: estimatedInputTokens, outputTokens: request.maxOutputTokens };

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => harness?.close());
beforeEach(() => harness.fake.reset());

async function settled(promises: Promise<unknown>[]) {
  const outcomes = await Promise.allSettled(promises);
  const refusals = outcomes.filter(
    (outcome) =>
      outcome.status === 'rejected' &&
      outcome.reason instanceof RoutedCallError &&
      outcome.reason.type === 'BudgetExceeded',
  );
  const others = outcomes.filter((outcome) => outcome.status === 'rejected' && !refusals.includes(outcome));
  return {
    served: outcomes.filter((outcome) => outcome.status === 'fulfilled').length,
    refused: refusals.length,
    others,
  };
}

test('10 concurrent calls against a budget for 3.5 calls: exactly 3 reach the provider', async () => {
  const budget = uniqueName('team');
  harness.fake.scriptAlways('gpt-primary', { kind: 'answer', text: 'ok', usage: usageAtBound, delayMs: 300 });
  const { result, snapshot } = await harness.withWorker(async (switchyard) => {
    await switchyard.ledgers.setLimit(budget, { limitUsd: nanoToUsd(bound * 3.5) });
    const calls = Array.from({ length: 10 }, () =>
      switchyard.generate({ route: oneTarget, request, budget }),
    );
    const result = await settled(calls);
    return { result, snapshot: await settledLedger(switchyard.ledgers, budget) };
  });
  expect(result).toEqual({ served: 3, refused: 7, others: [] });
  expect(harness.fake.counters('gpt-primary').requests).toBe(3);
  expect(snapshot.openReservations).toHaveLength(0);
  expect(snapshot.spentNanoUsd).toBe(3 * bound);
  expect(snapshot.spentNanoUsd + snapshot.availableNanoUsd!).toBe(snapshot.limitNanoUsd);
});

test('a call waits for budget that other calls only hold, instead of being refused while it sits unspent', async () => {
  // Each answer costs a small part of its bound: three reservations fill the limit while in flight, yet ten
  // answers cost less than it. A ledger that refuses by what is held turns seven affordable calls away.
  const budget = uniqueName('team');
  const usage = { inputTokens: 5, outputTokens: 8 };
  const cost = costOfUsage(prices, { ...usage, cachedInputTokens: 0 });
  expect(10 * cost + bound).toBeLessThanOrEqual(3.5 * bound);
  harness.fake.scriptAlways('gpt-primary', { kind: 'answer', text: 'ok', usage, delayMs: 300 });
  const { result, snapshot } = await harness.withWorker(async (switchyard) => {
    await switchyard.ledgers.setLimit(budget, { limitUsd: nanoToUsd(bound * 3.5) });
    const calls = Array.from({ length: 10 }, () =>
      switchyard.generate({ route: oneTarget, request, budget }),
    );
    const result = await settled(calls);
    return { result, snapshot: await settledLedger(switchyard.ledgers, budget) };
  });
  expect(result).toEqual({ served: 10, refused: 0, others: [] });
  expect(harness.fake.counters('gpt-primary').requests).toBe(10);
  expect(snapshot.spentNanoUsd).toBe(10 * cost);
  expect(snapshot.openReservations).toHaveLength(0);
});

test('100 concurrent callers: no over-grant and no error other than BudgetExceeded', async () => {
  const budget = uniqueName('team');
  harness.fake.scriptAlways('gpt-primary', { kind: 'answer', text: 'ok', usage: usageAtBound });
  const { result, snapshot } = await harness.withWorker(async (switchyard) => {
    await switchyard.ledgers.setLimit(budget, { limitUsd: nanoToUsd(bound * 10.5) });
    const calls = Array.from({ length: 100 }, () =>
      switchyard.generate({ route: oneTarget, request, budget }),
    );
    const result = await settled(calls);
    return { result, snapshot: await settledLedger(switchyard.ledgers, budget) };
  });
  expect(result.others).toEqual([]);
  expect(result.served).toBe(10);
  expect(result.refused).toBe(90);
  expect(harness.fake.counters('gpt-primary').requests).toBe(10);
  expect(snapshot.spentNanoUsd).toBeLessThanOrEqual(snapshot.limitNanoUsd!);
  expect(snapshot.openReservations).toHaveLength(0);
});

test('a refused call names the numbers and sends nothing', async () => {
  const budget = uniqueName('team');
  const error = await harness.withWorker(async (switchyard) => {
    await switchyard.ledgers.setLimit(budget, { limitUsd: nanoToUsd(bound - 1) });
    return expectRoutedCallError(switchyard.generate({ route: oneTarget, request, budget }));
  });
  expect(error.type).toBe('BudgetExceeded');
  // The numbers are typed fields, not only message text.
  expect(error.budget).toEqual({
    limitedBy: 'ledger',
    scope: budget,
    requestedNanoUsd: bound,
    requestedUsd: nanoToUsd(bound),
    limitNanoUsd: bound - 1,
    limitUsd: nanoToUsd(bound - 1),
    availableNanoUsd: bound - 1,
    availableUsd: nanoToUsd(bound - 1),
  });
  expect(error.retryAt).toBeUndefined();
  expect(error.message).toContain(`budget scope ${budget}`);
  expect(error.message).toContain(`may cost ${nanoToUsd(bound).toFixed(6)} USD`);
  expect(error.record?.attempts[0]).toMatchObject({ outcome: 'skipped', skipReason: 'over_budget' });
  expect(harness.fake.requests).toHaveLength(0);
});

test('a timeout after the request was sent is charged the full bound', async () => {
  const budget = uniqueName('team');
  harness.fake.script('gpt-primary', { kind: 'hang' });
  const route = { targets: [{ provider: 'openai', model: 'gpt-primary', timeoutMs: 500 }] };
  const { error, snapshot } = await harness.withWorker(async (switchyard) => {
    const error = await expectRoutedCallError(switchyard.generate({ route, request, budget }));
    return { error, snapshot: await settledLedger(switchyard.ledgers, budget) };
  });
  expect(error.record?.attempts[0]).toMatchObject({
    failureClass: 'timeout',
    costNanoUsd: bound,
    costKnown: false,
  });
  expect(snapshot.spentNanoUsd).toBe(bound);
  expect(snapshot.openReservations).toHaveLength(0);
});

test('a provider reporting more than the cap is charged in full as overdraft, and the next call is refused', async () => {
  const budget = uniqueName('team');
  const overUsage = { inputTokens: estimatedInputTokens, outputTokens: 1_000 };
  harness.fake.script('gpt-primary', { kind: 'answer', text: 'long', usage: overUsage });
  const { record, snapshot, next } = await harness.withWorker(async (switchyard) => {
    await switchyard.ledgers.setLimit(budget, { limitUsd: nanoToUsd(bound * 2.5) });
    const { record } = await switchyard.generate({ route: oneTarget, request, budget });
    const snapshot = await settledLedger(switchyard.ledgers, budget);
    const next = await expectRoutedCallError(switchyard.generate({ route: oneTarget, request, budget }));
    return { record, snapshot, next };
  });
  const actual = costOfUsage(prices, { ...overUsage, cachedInputTokens: 0 });
  expect(record.totalCostNanoUsd).toBe(actual);
  expect(snapshot.spentNanoUsd).toBe(actual);
  expect(snapshot.overdraftNanoUsd).toBe(actual - bound);
  expect(next.type).toBe('BudgetExceeded');
  expect(harness.fake.counters('gpt-primary').requests).toBe(1);
});

test("the ledger's spend equals the provider's bill priced by the config, and the call's maxCostUsd holds", async () => {
  const budget = uniqueName('team');
  harness.fake.scriptAlways('gpt-primary', {
    kind: 'answer',
    text: 'ok',
    usage: { inputTokens: 7, cachedInputTokens: 3, outputTokens: 11 },
  });
  const { snapshot, capped } = await harness.withWorker(async (switchyard) => {
    for (let call = 0; call < 4; call += 1) await switchyard.generate({ route: oneTarget, request, budget });
    const capped = await expectRoutedCallError(
      switchyard.generate({ route: oneTarget, request, budget, maxCostUsd: nanoToUsd(bound - 1) }),
    );
    return { snapshot: await settledLedger(switchyard.ledgers, budget), capped };
  });
  const billed = harness.fake.billed('gpt-primary');
  expect(billed.answers).toBe(4);
  expect(snapshot.spentNanoUsd).toBe(
    4 * costOfUsage(prices, { inputTokens: 7, cachedInputTokens: 3, outputTokens: 11 }),
  );
  expect(snapshot.spentNanoUsd).toBe(costOfUsage(prices, billed));
  expect(capped.type).toBe('BudgetExceeded');
  expect(capped.budget).toMatchObject({ limitedBy: 'call', requestedNanoUsd: bound });
  expect(capped.budget?.scope).toBeUndefined();
  expect(capped.message).toContain('maxCostUsd');
});

// Money rules: integer nano-USD, rounding in the safe direction, exact token costs, overflow refused.
import {
  attemptBound,
  costOfUsage,
  MoneyOverflowError,
  nanoToUsd,
  usdToNanoCeil,
  usdToNanoFloor,
} from '../../../src/routing/money';
import { estimateInputTokens } from '../../../src/routing/estimate-tokens';
import { failedAttemptCharge } from '../../../src/routing/attempt-cost';

const prices = { inputUsdPerMillion: 3, cachedInputUsdPerMillion: 0.3, outputUsdPerMillion: 15 };

test('USD converts to nano-USD rounding up for estimates and down for limits', () => {
  expect(usdToNanoCeil(0.1)).toBe(100_000_000);
  expect(usdToNanoCeil(1e-10)).toBe(1);
  expect(usdToNanoFloor(1e-10)).toBe(0);
  expect(usdToNanoFloor(5)).toBe(5_000_000_000);
  expect(nanoToUsd(1_500_000_000)).toBe(1.5);
});

test('usage cost is exact for whole prices and rounds a fraction of a nano-USD up', () => {
  // 1,000 input × $3/M = 3,000,000 nano; 200 cached × $0.30/M = 60,000 nano; 500 output × $15/M = 7,500,000 nano.
  expect(costOfUsage(prices, { inputTokens: 1_000, cachedInputTokens: 200, outputTokens: 500 })).toBe(
    10_560_000,
  );
  // One token at $0.0001/M is 0.1 nano-USD: charged as 1, never 0.
  expect(
    costOfUsage(
      { inputUsdPerMillion: 0.0001, cachedInputUsdPerMillion: 0, outputUsdPerMillion: 0 },
      { inputTokens: 1, cachedInputTokens: 0, outputTokens: 0 },
    ),
  ).toBe(1);
});

test('the attempt bound prices the whole output cap', () => {
  expect(attemptBound(prices, 100, 1_000)).toBe(300_000 + 15_000_000);
});

test('amounts beyond safe integers are refused, not rounded', () => {
  expect(() => usdToNanoCeil(10_000_000)).toThrow(MoneyOverflowError);
  expect(() =>
    costOfUsage(
      { inputUsdPerMillion: 1e6, cachedInputUsdPerMillion: 0, outputUsdPerMillion: 0 },
      { inputTokens: 1e10, cachedInputTokens: 0, outputTokens: 0 },
    ),
  ).toThrow(MoneyOverflowError);
});

test('the token estimate leans high: at least one token per four characters', () => {
  const content = 'word '.repeat(400);
  const estimate = estimateInputTokens({ messages: [{ role: 'user', content }], maxOutputTokens: 10 });
  expect(estimate).toBeGreaterThanOrEqual(Math.ceil(content.length / 4));
});

test('a failed attempt costs nothing unless the request went out and no error status came back', () => {
  expect(failedAttemptCharge({ requestSent: false }, prices, 500)).toEqual({
    costNanoUsd: 0,
    costKnown: true,
  });
  expect(failedAttemptCharge({ requestSent: true, httpStatus: 429 }, prices, 500)).toEqual({
    costNanoUsd: 0,
    costKnown: true,
  });
  expect(failedAttemptCharge({ requestSent: true }, prices, 500)).toEqual({
    costNanoUsd: 500,
    costKnown: false,
  });
  expect(failedAttemptCharge({ requestSent: true, httpStatus: 200 }, prices, 500)).toEqual({
    costNanoUsd: 500,
    costKnown: false,
  });
});

test('a refusal that reports usage is charged its real cost', () => {
  const usage = { inputTokens: 1_000, cachedInputTokens: 0, outputTokens: 10 };
  expect(failedAttemptCharge({ requestSent: true, httpStatus: 200, usage }, prices, 999_999_999)).toEqual({
    costNanoUsd: 3_000_000 + 150_000,
    costKnown: true,
  });
});

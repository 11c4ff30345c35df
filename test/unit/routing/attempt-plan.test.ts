// Attempt planning and failover rules, straight from the failure-class table.
import { failsOver, planAttempts } from '../../../src/routing/attempt-plan';
import {
  ALL_FAILURE_CLASSES,
  FAILOVER_CLASSES,
  FAILURE_CLASS_RULES,
} from '../../../src/config/failure-class';

const target = (retries: number) => ({ retries });

test('each target is followed by its retries, in order', () => {
  expect(planAttempts({ targets: [target(1), target(0), target(2)] as never, maxAttempts: 10 })).toEqual([
    { targetIndex: 0, retry: 0 },
    { targetIndex: 0, retry: 1 },
    { targetIndex: 1, retry: 0 },
    { targetIndex: 2, retry: 0 },
    { targetIndex: 2, retry: 1 },
    { targetIndex: 2, retry: 2 },
  ]);
});

test('maxAttempts caps the plan', () => {
  expect(planAttempts({ targets: [target(9), target(9)] as never, maxAttempts: 10 })).toHaveLength(10);
  expect(planAttempts({ targets: [target(3), target(0)] as never, maxAttempts: 2 })).toEqual([
    { targetIndex: 0, retry: 0 },
    { targetIndex: 0, retry: 1 },
  ]);
});

test('the failure-class table: what fails over and what counts on the breaker', () => {
  const failingOver = [
    'rate_limited',
    'quota_exhausted',
    'unavailable',
    'timeout',
    'authentication',
    'invalid_response',
  ];
  expect([...FAILOVER_CLASSES].sort()).toEqual([...failingOver].sort());
  for (const failureClass of ALL_FAILURE_CLASSES) {
    expect(FAILURE_CLASS_RULES[failureClass].countsOnBreaker).toBe(failingOver.includes(failureClass));
  }
});

test('failoverOn narrows the set but can never widen it', () => {
  const route = { failoverOn: ['rate_limited', 'refused'] as never };
  expect(failsOver(route, 'rate_limited')).toBe(true);
  expect(failsOver(route, 'unavailable')).toBe(false);
  expect(failsOver(route, 'refused')).toBe(false);
});

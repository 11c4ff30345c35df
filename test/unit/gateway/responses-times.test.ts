// A response's times from its call's record: the first attempt's start, the last attempt's end, in Unix seconds.
import type { AttemptRecord, RoutingRecord } from '../../../src/routing/routing-record';
import { responseTimesOf } from '../../../src/gateway/responses-times';

const attempt = (startedAt: string, latencyMs: number): AttemptRecord => ({
  attempt: 1,
  targetIndex: 0,
  provider: 'openai',
  model: 'gpt',
  retry: 0,
  round: 1,
  outcome: 'failed',
  startedAt,
  latencyMs,
  costNanoUsd: 0,
  costKnown: true,
});

const record = (attempts: AttemptRecord[]): RoutingRecord => ({
  route: 'support',
  workflowId: 'w',
  fallbacks: 0,
  rounds: 1,
  totalCostNanoUsd: 0,
  totalCostUsd: 0,
  attempts,
});

test('created is the first attempt start and completed the latest end, whatever order the attempts are in', () => {
  const times = responseTimesOf(
    record([attempt('2026-01-01T00:00:05.900Z', 3_000), attempt('2026-01-01T00:00:01.200Z', 500)]),
  );
  expect(times).toEqual({
    created: Date.UTC(2026, 0, 1) / 1000 + 1,
    completed: Date.UTC(2026, 0, 1) / 1000 + 8,
  });
});

test('no record, no attempts or no readable time: no times', () => {
  expect(responseTimesOf(undefined)).toEqual({});
  expect(responseTimesOf(record([]))).toEqual({});
  expect(responseTimesOf(record([attempt('not a time', 10)]))).toEqual({});
});

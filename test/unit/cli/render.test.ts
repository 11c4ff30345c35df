// Terminal tables of a routing record and a call plan: USD with six decimals, "(bound)" on unknown costs.
import {
  formatCost,
  formatUsd,
  renderAttemptsTable,
  renderRoutingRecord,
} from '../../../src/cli/render-routing-record';
import { renderTable } from '../../../src/cli/text-table';
import type { AttemptRecord, RoutingRecord } from '../../../src/routing/routing-record';

const failedAttempt: AttemptRecord = {
  attempt: 1,
  targetIndex: 0,
  provider: 'anthropic',
  model: 'claude-haiku-4-5',
  retry: 0,
  round: 1,
  outcome: 'failed',
  failureClass: 'rate_limited',
  message: 'anthropic: rate_limited',
  httpStatus: 429,
  retryAfterMs: 2000,
  startedAt: '2026-01-01T00:00:00.000Z',
  latencyMs: 283,
  costNanoUsd: 0,
  costKnown: true,
};

const timedOutAttempt: AttemptRecord = {
  ...failedAttempt,
  attempt: 2,
  retry: 1,
  round: 1,
  failureClass: 'timeout',
  message: undefined,
  httpStatus: undefined,
  retryAfterMs: undefined,
  latencyMs: 20_050,
  costNanoUsd: 1_041_667,
  costKnown: false,
};

const servedAttempt: AttemptRecord = {
  attempt: 3,
  targetIndex: 1,
  provider: 'openai',
  model: 'gpt-4o-mini',
  retry: 0,
  round: 1,
  outcome: 'succeeded',
  startedAt: '2026-01-01T00:00:21.000Z',
  latencyMs: 225,
  costNanoUsd: 2_550,
  costKnown: true,
};

const record: RoutingRecord = {
  route: 'support',
  workflowId: 'switchyard-call-job-42',
  servedBy: { targetIndex: 1, provider: 'openai', model: 'gpt-4o-mini' },
  fallbacks: 2,
  rounds: 1,
  totalCostNanoUsd: 1_044_217,
  totalCostUsd: 0.001044217,
  attempts: [failedAttempt, timedOutAttempt, servedAttempt],
};

test('money is USD with six decimals, and an unknown cost is marked (bound)', () => {
  expect(formatUsd(0)).toBe('0.000000');
  expect(formatUsd(2_550)).toBe('0.000003');
  expect(formatUsd(1_234_567_890)).toBe('1.234568');
  expect(formatCost(1_041_667, true)).toBe('0.001042');
  expect(formatCost(1_041_667, false)).toBe('0.001042 (bound)');
});

test('the record shows route, workflow, who served it, fallbacks and a total that admits to bounds', () => {
  const text = renderRoutingRecord(record);
  expect(text).toMatch(/^route +support$/m);
  expect(text).toMatch(/^workflow +switchyard-call-job-42$/m);
  expect(text).toMatch(/^served by +openai\/gpt-4o-mini \(target 2\)$/m);
  expect(text).toMatch(/^fallbacks +2$/m);
  expect(text).toMatch(/^total cost +0\.001044 USD \(includes bounds\)$/m);
});

test('a failed call shows "served by none" and a total without bounds when every cost was known', () => {
  const failed: RoutingRecord = {
    ...record,
    servedBy: undefined,
    totalCostNanoUsd: 0,
    attempts: [failedAttempt],
  };
  const text = renderRoutingRecord(failed, [['status', 'FAILED']]);
  expect(text.split('\n')[0]).toMatch(/^status +FAILED$/);
  expect(text).toMatch(/^served by +none$/m);
  expect(text).toMatch(/^total cost +0\.000000 USD$/m);
});

test('one aligned row per attempt: class, HTTP status, latency, cost and detail', () => {
  const lines = renderAttemptsTable(record.attempts).split('\n');
  const header = lines[0]!;
  expect(header).toMatch(/^# +target +retry +outcome +reason +http +latency ms +cost USD +detail$/);
  expect(lines[1]).toMatch(
    /^1 +anthropic\/claude-haiku-4-5 +0 +failed +rate_limited +429 +283 +0\.000000 +anthropic: rate_limited; retry after 2000 ms$/,
  );
  expect(lines[2]).toMatch(
    /^2 +anthropic\/claude-haiku-4-5 +1 +failed +timeout +20050 +0\.001042 \(bound\)$/,
  );
  expect(lines[3]).toMatch(/^3 +openai\/gpt-4o-mini +0 +succeeded +225 +0\.000003$/);
  // Columns line up: each row's outcome starts under the header's "outcome".
  const outcomeColumn = header.indexOf('outcome');
  expect(lines.slice(1).map((line) => line.slice(outcomeColumn).split(' ')[0])).toEqual([
    'failed',
    'failed',
    'succeeded',
  ]);
});

test('no attempts prints the given placeholder instead of an empty table', () => {
  expect(renderAttemptsTable([])).toBe('(no attempts)');
  expect(renderAttemptsTable([], '(no attempt has ended yet)')).toBe('(no attempt has ended yet)');
});

test('tables pad to the widest cell, right-align numbers and trim trailing blanks', () => {
  const text = renderTable(
    [{ header: 'name' }, { header: 'n', align: 'right' }, { header: 'note' }],
    [
      ['a', '5', ''],
      ['long name', '1234', 'x'],
    ],
  );
  expect(text.split('\n')).toEqual(['name          n  note', 'a             5', 'long name  1234  x']);
});

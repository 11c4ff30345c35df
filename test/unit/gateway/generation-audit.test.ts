// The audit body of `GET /v1/generation`: a record's attempts shown whole, a running call's so far, new fields passed on.
import { generationAudit } from '../../../src/gateway/generation-route';
import type { AttemptRecord, RoutingRecord } from '../../../src/routing/routing-record';

const failed: AttemptRecord = {
  attempt: 1,
  targetIndex: 0,
  provider: 'openai',
  model: 'gpt-a',
  retry: 0,
  round: 1,
  outcome: 'failed',
  failureClass: 'unavailable',
  httpStatus: 503,
  startedAt: '2026-01-01T00:00:00.000Z',
  latencyMs: 40,
  reservedNanoUsd: 2_500_000,
  costNanoUsd: 0,
  costKnown: true,
};

const skipped: AttemptRecord = {
  attempt: 2,
  targetIndex: 1,
  provider: 'anthropic',
  model: 'claude-b',
  retry: 0,
  round: 1,
  outcome: 'skipped',
  skipReason: 'circuit_open',
  startedAt: '2026-01-01T00:00:00.040Z',
  latencyMs: 0,
  costNanoUsd: 0,
  costKnown: true,
};

const served: AttemptRecord = {
  ...failed,
  attempt: 3,
  targetIndex: 2,
  model: 'gpt-c',
  outcome: 'succeeded',
  failureClass: undefined,
  httpStatus: undefined,
  costNanoUsd: 1_250_000,
  reservedNanoUsd: 3_000_000,
};

test("an ended call's record: every attempt with its deployment and USD amounts, totals from the record", () => {
  const record = {
    route: 'support',
    workflowId: 'switchyard-call-gw-x',
    servedBy: { targetIndex: 2, provider: 'openai', model: 'gpt-c' },
    fallbacks: 1,
    rounds: 1,
    totalCostNanoUsd: 1_250_000,
    totalCostUsd: 0.00125,
    attempts: [failed, skipped, served],
    // A field the record may gain: passed on as it is.
    laterField: { kept: true },
  } as unknown as RoutingRecord;
  const audit = generationAudit(
    { workflowId: 'switchyard-call-gw-x', status: 'COMPLETED', record, attempts: record.attempts },
    'support',
  );
  expect(audit).toMatchObject({
    object: 'switchyard.generation',
    id: 'switchyard-call-gw-x',
    status: 'completed',
    route: 'support',
    servedBy: { deployment: 'openai/gpt-c', targetIndex: 2 },
    fallbacks: 1,
    rounds: 1,
    totalCostNanoUsd: 1_250_000,
    totalCostUsd: 0.00125,
    error: null,
    laterField: { kept: true },
  });
  expect(audit).not.toHaveProperty('workflowId');
  expect(audit.attempts.map((attempt) => attempt.deployment)).toEqual([
    'openai/gpt-a',
    'anthropic/claude-b',
    'openai/gpt-c',
  ]);
  expect(audit.attempts[0]).toMatchObject({ ...failed, costUsd: 0, reservedUsd: 0.0025 });
  expect(audit.attempts[1]).toMatchObject({ skipReason: 'circuit_open', costUsd: 0 });
  expect(audit.attempts[1]).not.toHaveProperty('reservedUsd');
  expect(audit.attempts[2]).toMatchObject({ costUsd: 0.00125, reservedUsd: 0.003 });
  expect(Object.keys(audit.attempts[0]!).slice(0, 2)).toEqual(['attempt', 'deployment']);
});

test('a running call: the attempts so far, their cost so far, and nulls for what only the end tells', () => {
  const audit = generationAudit(
    {
      workflowId: 'switchyard-call-gw-y',
      status: 'RUNNING',
      attempts: [failed, { ...served, outcome: 'failed' }],
    },
    'support',
  );
  expect(audit).toMatchObject({
    status: 'in_progress',
    route: 'support',
    servedBy: null,
    fallbacks: null,
    rounds: null,
    totalCostNanoUsd: 1_250_000,
    totalCostUsd: 0.00125,
    error: null,
  });
  expect(audit.attempts).toHaveLength(2);
});

test('a failed call without a record (terminated) shows its failure and no attempts', () => {
  const audit = generationAudit(
    {
      workflowId: 'switchyard-call-gw-z',
      status: 'TERMINATED',
      attempts: [],
      error: { type: 'Terminated', message: 'by an operator' },
    },
    undefined,
  );
  expect(audit).toMatchObject({
    status: 'failed',
    route: null,
    totalCostNanoUsd: 0,
    error: { type: 'Terminated' },
    attempts: [],
  });
});

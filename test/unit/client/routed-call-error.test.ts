// A failed call's ApplicationFailure becomes a RoutedCallError with typed fields for every details entry.
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure, RetryState } from '@temporalio/common';
import { RoutedCallError, toRoutedCallError } from '../../../src/client/errors';
import type { RoutingRecord } from '../../../src/routing/routing-record';

const record: RoutingRecord = {
  route: 'support',
  workflowId: 'switchyard-call-x',
  fallbacks: 0,
  rounds: 1,
  totalCostNanoUsd: 0,
  totalCostUsd: 0,
  attempts: [],
};

function failed(type: string, details: unknown[]): RoutedCallError {
  const failure = ApplicationFailure.create({
    type,
    message: `${type} happened`,
    nonRetryable: true,
    details,
  });
  const converted = toRoutedCallError(
    new WorkflowFailedError('Workflow execution failed', failure, RetryState.NON_RETRYABLE_FAILURE),
    'switchyard-call-x',
  );
  expect(converted).toBeInstanceOf(RoutedCallError);
  return converted as RoutedCallError;
}

test('BudgetExceeded carries the numbers of the tightest refusal, in nano-USD and USD', () => {
  const error = failed('BudgetExceeded', [
    record,
    {
      shortfall: {
        limitedBy: 'ledger',
        scope: 'team-a',
        requestedNanoUsd: 2_500_000,
        limitNanoUsd: 5_000_000,
        availableNanoUsd: 1_000_000,
      },
    },
  ]);
  expect(error.record).toEqual(record);
  expect(error.budget).toEqual({
    limitedBy: 'ledger',
    scope: 'team-a',
    requestedNanoUsd: 2_500_000,
    requestedUsd: 0.0025,
    limitNanoUsd: 5_000_000,
    limitUsd: 0.005,
    availableNanoUsd: 1_000_000,
    availableUsd: 0.001,
  });
  const byCall = failed('BudgetExceeded', [
    record,
    { shortfall: { limitedBy: 'call', requestedNanoUsd: 7, limitNanoUsd: 5, availableNanoUsd: 5 } },
  ]);
  expect(byCall.budget).toMatchObject({ limitedBy: 'call', limitNanoUsd: 5 });
  expect(byCall.budget?.scope).toBeUndefined();
  const unlimitedButRefused = failed('BudgetExceeded', [
    record,
    {
      shortfall: {
        limitedBy: 'ledger',
        scope: 's',
        requestedNanoUsd: 7,
        limitNanoUsd: null,
        availableNanoUsd: null,
      },
    },
  ]);
  expect(unlimitedButRefused.budget).toMatchObject({
    limitNanoUsd: null,
    limitUsd: null,
    availableUsd: null,
  });
});

test('CircuitOpen carries the retry time as a Date and the wait from when the error was made', () => {
  const retryAtMs = Date.now() + 30_000;
  const error = failed('CircuitOpen', [record, { retryAtMs, retryAt: new Date(retryAtMs).toISOString() }]);
  expect(error.retryAt).toEqual(new Date(retryAtMs));
  expect(error.retryAfterMs).toBeGreaterThan(25_000);
  expect(error.retryAfterMs).toBeLessThanOrEqual(30_000);
  const past = failed('CircuitOpen', [record, { retryAtMs: Date.now() - 5_000 }]);
  expect(past.retryAfterMs).toBe(0);
});

test('an InvalidRequest refused by the workflow names its field; other types keep only what they carry', () => {
  const invalid = failed('InvalidRequest', [{ field: 'request.messages.0.role' }]);
  expect(invalid).toMatchObject({
    type: 'InvalidRequest',
    field: 'request.messages.0.role',
    record: undefined,
  });
  const plain = failed('AllTargetsFailed', [record]);
  expect(plain).toMatchObject({ type: 'AllTargetsFailed', record });
  expect(plain.budget).toBeUndefined();
  expect(plain.retryAt).toBeUndefined();
  expect(plain.field).toBeUndefined();
  // Details in any order, or malformed, are read for what they are and nothing else.
  const shuffled = failed('CircuitOpen', [{ retryAtMs: 'soon' }, record, 'junk', null]);
  expect(shuffled.record).toEqual(record);
  expect(shuffled.retryAt).toBeUndefined();
});

test('the typed fields survive JSON, as the CLI prints them', () => {
  const retryAtMs = Date.now() + 1_000;
  const error = failed('CircuitOpen', [record, { retryAtMs }]);
  expect(JSON.parse(JSON.stringify(error.toJSON()))).toMatchObject({
    type: 'CircuitOpen',
    workflowId: 'switchyard-call-x',
    retryAt: new Date(retryAtMs).toISOString(),
  });
});

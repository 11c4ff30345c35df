// Builds the typed ApplicationFailure that ends a failed routed call, carrying the routing record. Workflow-safe.
import { ApplicationFailure } from '@temporalio/workflow';
import { FailureClass } from '../../config/failure-class';
import { nanoToUsd } from '../../routing/money';
import { RoutedCallFailureType, type RoutingRecord } from '../../routing/routing-record';
import type { BudgetShortfall } from './attempt-gates';

/** The call-level failure type of a walk that stopped on an attempt that does not fail over. */
export function failureTypeForStop(failureClass: FailureClass): RoutedCallFailureType {
  switch (failureClass) {
    case FailureClass.invalidRequest:
      return RoutedCallFailureType.invalidRequest;
    case FailureClass.contextOverflow:
      return RoutedCallFailureType.contextOverflow;
    case FailureClass.contentPolicy:
    case FailureClass.refused:
      return RoutedCallFailureType.contentRefused;
    case FailureClass.cancelled:
      return RoutedCallFailureType.cancelled;
    default:
      // A failover class the route's `failoverOn` leaves out ends the walk like an exhausted route.
      return RoutedCallFailureType.allTargetsFailed;
  }
}

/** One line per attempt, so the aggregate error names every class and not just the last. */
export function summarizeAttempts(record: RoutingRecord): string {
  return record.attempts
    .map((attempt) => {
      const why = attempt.failureClass ?? attempt.skipReason ?? attempt.outcome;
      const status = attempt.httpStatus ? ` ${attempt.httpStatus}` : '';
      return `#${attempt.attempt} ${attempt.provider}/${attempt.model}: ${why}${status}`;
    })
    .join('; ');
}

export function routingFailure(
  type: RoutedCallFailureType,
  headline: string,
  record: RoutingRecord,
): ApplicationFailure {
  const attempts = summarizeAttempts(record);
  return ApplicationFailure.create({
    type,
    message: attempts ? `${headline} (${attempts})` : headline,
    nonRetryable: true,
    details: [record],
  });
}

function usd(nanoUsd: number | null): string {
  return nanoUsd === null ? 'unlimited' : `${nanoToUsd(nanoUsd).toFixed(6)} USD`;
}

/** No target was affordable: names the numbers of the tightest refusal, and nothing was sent. */
export function budgetExceededFailure(
  shortfalls: readonly BudgetShortfall[],
  record: RoutingRecord,
): ApplicationFailure {
  const cheapest = shortfalls.reduce((best, next) =>
    next.requestedNanoUsd < best.requestedNanoUsd ? next : best,
  );
  const where = cheapest.limitedBy === 'call' ? 'the call maxCostUsd' : `budget scope ${cheapest.scope}`;
  const headline =
    `no target is affordable on ${where}: the cheapest attempt may cost ${usd(cheapest.requestedNanoUsd)}, ` +
    `${usd(cheapest.availableNanoUsd)} available of ${usd(cheapest.limitNanoUsd)}`;
  return ApplicationFailure.create({
    type: RoutedCallFailureType.budgetExceeded,
    message: `${headline} (${summarizeAttempts(record)})`,
    nonRetryable: true,
    details: [record, { shortfall: cheapest }],
  });
}

/** Every target's breaker is open: fails at once, carrying when the earliest may be tried again. */
export function circuitOpenFailure(retryAtMs: number, record: RoutingRecord): ApplicationFailure {
  const retryAt = new Date(retryAtMs).toISOString();
  return ApplicationFailure.create({
    type: RoutedCallFailureType.circuitOpen,
    message: `every target's circuit is open; the earliest may be tried at ${retryAt} (${summarizeAttempts(record)})`,
    nonRetryable: true,
    details: [record, { retryAtMs, retryAt }],
  });
}

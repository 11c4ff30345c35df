// Builds the typed ApplicationFailure that ends a failed routed call, carrying the routing record. Workflow-safe.
import { ApplicationFailure } from '@temporalio/workflow';
import { FailureClass } from '../../routing/failure-class';
import { RoutedCallFailureType, type RoutingRecord } from '../../routing/routing-record';

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

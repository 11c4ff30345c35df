// How a parent workflow reads the failure of a routed call it ran as a child (scheduled runs, users' workflows). Workflow code.
import {
  ApplicationFailure,
  CancelledFailure,
  ChildWorkflowFailure,
  TerminatedFailure,
  TimeoutFailure,
} from '@temporalio/workflow';
import { RoutedCallFailureType, type RoutingRecord } from '../routing/routing-record';

/**
 * Why a routed call ended without an answer, as its parent sees it: a {@link RoutedCallFailureType}, or
 * `Terminated` / `TimedOut` when the call was stopped from outside, or `Failed` for anything else.
 */
export type ChildCallFailureType = RoutedCallFailureType | 'Terminated' | 'TimedOut' | 'Failed';

/** A routed call's failure, unwrapped from the child-workflow failure around it. */
export interface ChildCallFailure {
  readonly type: ChildCallFailureType;
  readonly message: string;
  /** The failure's details: the routing record first (or `{ field }` for an invalid request), when it has one. */
  readonly details: unknown[];
  /** Whether retrying the same call could help; false for every failure a routed call itself ends with. */
  readonly nonRetryable: boolean;
  /** The routing record from the details, or null when the call ended before resolving its route. */
  readonly record: RoutingRecord | null;
}

/** The routing record at the head of a failure's details, if that is what they carry. */
export function recordFromDetails(details: readonly unknown[]): RoutingRecord | null {
  const first = details[0] as Partial<RoutingRecord> | undefined;
  return first && Array.isArray(first.attempts) ? (first as RoutingRecord) : null;
}

/** Reads a routed call's failure out of what awaiting the child threw (or the failure itself). */
export function readChildCallFailure(error: unknown): ChildCallFailure {
  const cause = error instanceof ChildWorkflowFailure && error.cause ? error.cause : error;
  let type: ChildCallFailureType = 'Failed';
  let details: unknown[] = [];
  let nonRetryable = true;
  if (cause instanceof ApplicationFailure) {
    type = (cause.type as ChildCallFailureType | null | undefined) ?? type;
    details = cause.details ?? [];
    nonRetryable = cause.nonRetryable ?? false;
  } else if (cause instanceof CancelledFailure) {
    type = RoutedCallFailureType.cancelled;
    details = cause.details ?? [];
  } else if (cause instanceof TerminatedFailure) {
    type = 'Terminated';
  } else if (cause instanceof TimeoutFailure) {
    type = 'TimedOut';
  }
  const message = cause instanceof Error ? cause.message : String(cause);
  return { type, message, details, nonRetryable, record: recordFromDetails(details) };
}

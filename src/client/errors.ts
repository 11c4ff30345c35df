// Errors the client API throws: typed routed-call failures and rejected requests. Node side.
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { WorkflowFailedError } from '@temporalio/client';
import type { RoutedCallFailureType, RoutingRecord } from '../routing/routing-record';

/** A routed call that ended without an answer; `type` is stable (`AllTargetsFailed`, `BudgetExceeded`, …). */
export class RoutedCallError extends Error {
  override readonly name = 'RoutedCallError';
  constructor(
    message: string,
    readonly type: RoutedCallFailureType,
    readonly workflowId: string,
    /** Every attempt made before the call ended; absent only if the call failed before resolving its route. */
    readonly record: RoutingRecord | undefined,
    /** For `CircuitOpen`: when the earliest target may be tried again, in epoch milliseconds. */
    readonly retryAtMs?: number,
  ) {
    super(message);
  }
}

// Apart, so validating a call (the CLI's `plan`, a bad flag) does not load the Temporal client.
export { InvalidRequestError } from './invalid-request-error';

/** Converts a failed workflow result into a {@link RoutedCallError}; other errors pass through. */
export function toRoutedCallError(error: unknown, workflowId: string): unknown {
  if (!(error instanceof WorkflowFailedError)) return error;
  const cause = error.cause;
  if (cause instanceof CancelledFailure) {
    return new RoutedCallError(
      cause.message,
      'Cancelled',
      workflowId,
      cause.details?.[0] as RoutingRecord | undefined,
    );
  }
  if (cause instanceof ApplicationFailure && cause.type) {
    const first = cause.details?.[0] as RoutingRecord | { field?: string } | undefined;
    const record = first && 'attempts' in first ? (first as RoutingRecord) : undefined;
    const retryAtMs = (cause.details?.[1] as { retryAtMs?: unknown } | undefined)?.retryAtMs;
    return new RoutedCallError(
      cause.message,
      cause.type as RoutedCallFailureType,
      workflowId,
      record,
      typeof retryAtMs === 'number' ? retryAtMs : undefined,
    );
  }
  return error;
}

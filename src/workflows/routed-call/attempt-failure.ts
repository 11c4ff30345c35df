// Turns an attempt activity's failure into a failure class and recorded fields. Workflow-safe.
import {
  ActivityFailure,
  ApplicationFailure,
  CancelledFailure,
  isCancellation,
  TimeoutFailure,
} from '@temporalio/workflow';
import type { AttemptFailureDetails, AttemptHeartbeatDetails } from '../../activities/attempt-types';
import { ALL_FAILURE_CLASSES, FailureClass } from '../../config/failure-class';

export interface ClassifiedAttemptFailure {
  readonly failureClass: FailureClass;
  readonly message: string;
  readonly details?: AttemptFailureDetails;
  /** Whether the provider may have received (and billed) the request. */
  readonly requestSent: boolean;
}

function isFailureClass(value: string | undefined | null): value is FailureClass {
  return ALL_FAILURE_CLASSES.includes(value as FailureClass);
}

export interface ClassifyOptions {
  /**
   * Tell an attempt lost before it sent (no sending mark in its last heartbeat) as `worker_lost`. Off, as calls
   * recorded before the mark existed judged it: a `timeout` that may have sent.
   * @default true
   */
  readonly readsSendingMark?: boolean;
}

export function classifyAttemptFailure(
  error: unknown,
  options: ClassifyOptions = { readsSendingMark: true },
): ClassifiedAttemptFailure {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (isCancellation(error)) {
    // An attempt that waited for its own cancellation says what it had sent and settled.
    const details =
      cause instanceof CancelledFailure ? (cause.details?.[0] as AttemptFailureDetails) : undefined;
    return {
      failureClass: FailureClass.cancelled,
      message: 'cancelled by the caller',
      requestSent: details?.requestSent ?? true,
      ...(details ? { details } : {}),
    };
  }
  if (cause instanceof ApplicationFailure && isFailureClass(cause.type)) {
    const details = cause.details?.[0] as AttemptFailureDetails | undefined;
    return {
      failureClass: cause.type,
      message: cause.message,
      requestSent: details?.requestSent ?? true,
      ...(details ? { details } : {}),
    };
  }
  if (cause instanceof TimeoutFailure) {
    // `attemptTarget` records its sending mark, acknowledged, before anything leaves: a lost attempt whose last
    // heartbeat lacks it never sent, whatever became of its worker (stalled past the timeout, or dead).
    const beat = cause.lastHeartbeatDetails as AttemptHeartbeatDetails | undefined;
    const marked = beat?.sending === true || beat?.outputDelivered === true;
    if (
      options.readsSendingMark &&
      error instanceof ActivityFailure &&
      error.activityType === 'attemptTarget' &&
      !marked
    ) {
      return {
        failureClass: FailureClass.workerLost,
        message: 'attempt lost before it sent: its worker stopped or stalled',
        requestSent: false,
      };
    }
    // Start-to-close: the provider did not answer in time. Heartbeat: the worker running the attempt died.
    // Either way the request may have been sent, so its cost is unknown.
    const what =
      cause.timeoutType === 'HEARTBEAT' ? 'attempt lost: no heartbeat from its worker' : 'attempt timed out';
    return { failureClass: FailureClass.timeout, message: what, requestSent: true };
  }
  return {
    failureClass: FailureClass.invalidResponse,
    message: `attempt failed unexpectedly: ${(cause as Error | undefined)?.message ?? String(cause)}`,
    requestSent: true,
  };
}

// The awaitRoutedCall activity: the outcome of a routed call that already exists, for a parent that asked for it again. Worker side.
import { Context } from '@temporalio/activity';
import { WorkflowFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure, CancelledFailure, TerminatedFailure, TimeoutFailure } from '@temporalio/common';
import type { RoutedCallResult } from '../routing/routing-record';
import { CANCELLED_RECORD_MEMO } from '../workflows/definitions';

export interface AwaitRoutedCallInput {
  /** The routed call's workflow id. */
  readonly workflowId: string;
}

/**
 * How the routed call ended: its result, or its failure as plain data (the type, message and details its
 * `ApplicationFailure` carried). Plain JSON, so it can be an activity result.
 */
export type RoutedCallOutcome =
  | { readonly status: 'succeeded'; readonly result: RoutedCallResult }
  | {
      readonly status: 'failed';
      /** `AllTargetsFailed`, `BudgetExceeded`, …, `Cancelled`, or `Terminated` / `TimedOut` / `Failed`. */
      readonly type: string;
      readonly message: string;
      readonly details: unknown[];
      readonly nonRetryable: boolean;
    };

/**
 * `switchyard/workflow`'s `routedCall` asks for a call by a workflow id derived from its parent; when that id
 * was taken — the parent was reset or retried after the call started — the call is not made again: the parent
 * gets this activity's reading of the one that exists, waiting for it if it still runs.
 */
export function createAwaitRoutedCall(client: Client) {
  return async function awaitRoutedCall(input: AwaitRoutedCallInput): Promise<RoutedCallOutcome> {
    const context = Context.current();
    const handle = client.workflow.getHandle(input.workflowId);
    // A call may run for a long time (patience); heartbeats keep this wait visible and cancellable.
    const heartbeat = setInterval(() => context.heartbeat(), 5_000);
    try {
      const result = (await Promise.race([handle.result(), context.cancelled])) as RoutedCallResult;
      return { status: 'succeeded', result };
    } catch (error) {
      if (!(error instanceof WorkflowFailedError)) throw error;
      const cause = error.cause;
      if (cause instanceof ApplicationFailure) {
        return {
          status: 'failed',
          type: cause.type ?? 'Failed',
          message: cause.message,
          details: cause.details ?? [],
          nonRetryable: cause.nonRetryable ?? false,
        };
      }
      if (cause instanceof CancelledFailure) {
        // A cancelled call's close event cannot carry details: its record is in the memo.
        const { memo } = await handle.describe();
        const record = memo?.[CANCELLED_RECORD_MEMO];
        const details = cause.details?.length ? cause.details : record ? [record] : [];
        return { status: 'failed', type: 'Cancelled', message: cause.message, details, nonRetryable: true };
      }
      const type =
        cause instanceof TerminatedFailure
          ? 'Terminated'
          : cause instanceof TimeoutFailure
            ? 'TimedOut'
            : 'Failed';
      return {
        status: 'failed',
        type,
        message: cause?.message ?? error.message,
        details: [],
        nonRetryable: true,
      };
    } finally {
      clearInterval(heartbeat);
    }
  };
}

// routedCall: a routed call from inside a user's own workflow, run as a child workflow on Switchyard's queue. Workflow code.
import {
  ActivityFailure,
  CancellationScope,
  executeChild,
  proxyActivities,
  workflowInfo,
  type ChildWorkflowCancellationType,
  type ParentClosePolicy,
} from '@temporalio/workflow';
// The workflow SDK's own deterministic core; this error class is exported only there.
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { SwitchyardActivities } from '../activities';
import type { RoutedCallInputValue } from '../config/routed-call-input';
import type { RoutedCallResult } from '../routing/routing-record';
import { DEFAULT_TASK_QUEUE, ROUTED_CALL_WORKFLOW_TYPE } from '../workflows/definitions';
import type { routedCallV2Workflow } from '../workflows/routed-call/routed-call-workflow';
import { readChildCallFailure, recordFromDetails } from '../workflows/routed-call-child';
import { routedCallStartAttributes, startRouteName } from '../workflows/search-attributes';
import { nextCallWorkflowId } from './call-name';
import { RoutedCallFailure } from './routed-call-failure';

export interface RoutedCallOptions {
  /**
   * Names the call within this workflow: its workflow id becomes `<this workflow's id>-<callId>`. Needed in a
   * workflow that continues-as-new (unique across its runs, e.g. `turn-${turn}`); useful to find a call by id.
   * @default `call-<n>` for the n-th call of this run without a name or key
   */
  readonly callId?: string;
  /**
   * The client's idempotency key: the call's workflow id is `switchyard-call-<key>`, as with
   * `SwitchyardClient.generate`, so the same key never runs (or charges) twice, from any workflow or client.
   * @default none (the id comes from `callId`)
   */
  readonly idempotencyKey?: string;
  /** Task queue of the Switchyard workers. @default 'switchyard' */
  readonly taskQueue?: string;
  /** The call's one-line summary in the Temporal UI. @default `route <name> · <n> msg · max <m> out · from <this workflow's id>` */
  readonly summary?: string;
  /**
   * What cancelling this workflow (or the scope around the call) does to the call. The default waits for the
   * call to end as `Cancelled`, so its reservation is settled before this workflow goes on.
   * @default 'WAIT_CANCELLATION_COMPLETED'
   */
  readonly cancellationType?: ChildWorkflowCancellationType;
  /**
   * What happens to a call still running when this workflow closes without cancelling it (terminated, timed
   * out, reset). The default lets it finish, so a reset or retried workflow that asks for it again gets its
   * answer instead of a cut-off call.
   * @default 'ABANDON'
   */
  readonly parentClosePolicy?: ParentClosePolicy;
}

/** What the Temporal UI shows for the call: the route, the conversation's size, and who asked. */
function defaultSummary(input: RoutedCallInputValue, routeLabel: string | undefined): string {
  const maxOutput = input.request.maxOutputTokens;
  return [
    `route ${routeLabel ?? 'default'}`,
    `${input.request.messages.length} msg`,
    ...(maxOutput !== undefined ? [`max ${maxOutput} out`] : []),
    `from ${workflowInfo().workflowId}`,
  ].join(' · ');
}

/**
 * The outcome of a call that already exists under `workflowId` (this workflow was reset or retried after it
 * started, or the key was used before), read by a Switchyard worker without calling anything again.
 */
async function joinExistingCall(workflowId: string, taskQueue: string): Promise<RoutedCallResult> {
  const { awaitRoutedCall } = proxyActivities<SwitchyardActivities>({
    taskQueue,
    // The call it waits for may be a patient one (up to 30 days) with a deadline of its own.
    startToCloseTimeout: '31 days',
    heartbeatTimeout: '30 seconds',
    retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
  });
  let outcome;
  try {
    outcome = await awaitRoutedCall.executeWithOptions({ summary: `await ${workflowId}` }, [{ workflowId }]);
  } catch (error) {
    if (!(error instanceof ActivityFailure) || CancellationScope.current().consideredCancelled) throw error;
    const cause = error.cause?.message ?? error.message;
    throw new RoutedCallFailure(
      `routed call ${workflowId} exists, but its outcome could not be read: ${cause}`,
      'Failed',
      [],
      true,
      workflowId,
      undefined,
    );
  }
  if (outcome.status === 'succeeded') return outcome.result;
  throw RoutedCallFailure.of(
    {
      type: outcome.type as RoutedCallFailure['type'],
      message: outcome.message,
      details: outcome.details,
      nonRetryable: outcome.nonRetryable,
      record: recordFromDetails(outcome.details),
    },
    workflowId,
  );
}

/**
 * Makes a routed call from inside a workflow and waits for its answer. The call runs as a child workflow on
 * Switchyard's task queue, with its own record, search attributes and UI view; its id comes from this
 * workflow's (see {@link RoutedCallOptions.callId}), so a replayed, reset or retried workflow that asks again
 * gets the same call's answer instead of calling (and charging) twice.
 *
 * @throws RoutedCallFailure when the call ends without an answer (`type` and routing `record` as the client's
 * `RoutedCallError`); cancelling this workflow rethrows the cancellation instead.
 */
export async function routedCall(
  input: RoutedCallInputValue,
  options: RoutedCallOptions = {},
): Promise<RoutedCallResult> {
  const workflowId = nextCallWorkflowId(options);
  const taskQueue = options.taskQueue ?? DEFAULT_TASK_QUEUE;
  // The input is validated where the call starts (the routed-call workflow); a bad field fails it as
  // InvalidRequest naming the field, without loading the schemas into this workflow's bundle.
  // Its route's name, or `inline`; a call on the config's default route gets the name once the worker resolves it.
  const routeLabel = startRouteName(input.route);
  try {
    return await executeChild<typeof routedCallV2Workflow>(ROUTED_CALL_WORKFLOW_TYPE, {
      workflowId,
      taskQueue,
      args: [input],
      // An id that was used before is never run again: the existing call is read instead (below).
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      cancellationType: options.cancellationType ?? 'WAIT_CANCELLATION_COMPLETED',
      parentClosePolicy: options.parentClosePolicy ?? 'ABANDON',
      staticSummary: options.summary ?? defaultSummary(input, routeLabel),
      // As the client starts a call: the UI shows it like any other from its first event.
      typedSearchAttributes: routedCallStartAttributes(routeLabel),
    });
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return joinExistingCall(workflowId, taskQueue);
    // This workflow (or the scope around the call) was cancelled: the call went with it, and the caller's own
    // cancellation handling needs to see a cancellation.
    if (CancellationScope.current().consideredCancelled) throw error;
    throw RoutedCallFailure.of(readChildCallFailure(error), workflowId);
  }
}

// One run of a schedule: the routed call as a child workflow, then delivery of its outcome. Workflow code.
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  executeChild,
  isCancellation,
  patched,
  proxyActivities,
  upsertMemo,
  workflowInfo,
} from '@temporalio/workflow';
import { firstIssueField, prettifyIssues } from '../../config/strict-object';
import { routedCallStartAttributes, startRouteName } from '../search-attributes';
import type { DeliveryReceipt, DeliverResultInput, SwitchyardActivities } from '../../activities';
import {
  ScheduledGenerationInputSchema,
  type DeliverySpec,
  type ScheduledGenerationInput,
  type ScheduledGenerationInputValue,
} from '../../config/schedule';
import { RoutedCallFailureType, type RoutingRecord } from '../../routing/routing-record';
import type { routedCallV2Workflow } from '../routed-call/routed-call-workflow';
import { ROUTED_CALL_WORKFLOW_TYPE } from '../definitions';
import { readChildCallFailure } from '../routed-call-child';

/** Patch id of starting the routed call as `routedCallV2Workflow` (the lean hot path). */
const ROUTED_CALL_V2_CHILD_PATCH = 'routed-call-v2-child';
import {
  DELIVERY_MEMO,
  scheduledCallWorkflowId,
  webhookOrigin,
  type DeliveryReport,
  type DeliveryResult,
  type ScheduledCallFailed,
  type ScheduledCallOutcome,
  type ScheduledGenerationResult,
} from './definitions';

// A webhook receiver that is down for a while still gets the result: about 4 minutes of backoff in all.
// A 4xx answer (WebhookRejected) is final; the result stays in this run's history either way.
const { deliverResult: deliverToWebhook } = proxyActivities<SwitchyardActivities>({
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 10,
    nonRetryableErrorTypes: ['WebhookRejected'],
  },
});
// A local write either works soon or needs a person (permissions, a full disk).
const { deliverResult: deliverToDirectory } = proxyActivities<SwitchyardActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 5 },
});

function parseInput(rawInput: ScheduledGenerationInputValue): ScheduledGenerationInput {
  const parsed = ScheduledGenerationInputSchema.safeParse(rawInput);
  if (parsed.success) return parsed.data;
  throw ApplicationFailure.create({
    type: RoutedCallFailureType.invalidRequest,
    message: `invalid scheduled-generation input:\n${prettifyIssues(parsed.error)}`,
    nonRetryable: true,
    details: [{ field: firstIssueField(parsed.error) }],
  });
}

/** The routed call's failure as this run reports it: its type, message and record, and the failure to end with. */
function callFailure(error: unknown): {
  error: ScheduledCallFailed['error'];
  record: RoutingRecord | null;
  failure: ApplicationFailure;
} {
  const { type, message, details, record } = readChildCallFailure(error);
  // Ends this run with the call's own type and details, so `schedules.results` reads it like the call's error.
  const failure = ApplicationFailure.create({ type, message, nonRetryable: true, details });
  return { error: { type, message }, record, failure };
}

async function settle(delivery: Promise<DeliveryReceipt>): Promise<DeliveryResult> {
  try {
    return { delivered: true, ...(await delivery) };
  } catch (error) {
    if (isCancellation(error)) throw error;
    // A failed delivery loses nothing: the outcome is this run's result (or failure) in history.
    const cause = error instanceof ActivityFailure && error.cause ? error.cause : error;
    return { delivered: false, error: cause instanceof Error ? cause.message : String(cause) };
  }
}

/** Delivers to every place the schedule names, side by side; each has its own retries and its own result. */
async function deliver(
  spec: DeliverySpec | undefined,
  outcome: ScheduledCallOutcome,
): Promise<DeliveryReport> {
  if (!spec) return {};
  const input = (target: DeliverResultInput['target']): DeliverResultInput => ({
    target,
    idempotencyKey: outcome.workflowId,
    outcome,
  });
  const [webhook, directory] = await Promise.all([
    spec.webhookUrl === undefined
      ? undefined
      : settle(
          deliverToWebhook.executeWithOptions({ summary: `deliver to ${webhookOrigin(spec.webhookUrl)}` }, [
            input({ kind: 'webhook', url: spec.webhookUrl }),
          ]),
        ),
    spec.directory === undefined
      ? undefined
      : settle(
          deliverToDirectory.executeWithOptions({ summary: `write to ${spec.directory}` }, [
            input({ kind: 'directory', path: spec.directory }),
          ]),
        ),
  ]);
  const report: DeliveryReport = { ...(webhook ? { webhook } : {}), ...(directory ? { directory } : {}) };
  // In the memo too, so a listing shows deliveries of failed runs (whose failure cannot carry them).
  upsertMemo({ [DELIVERY_MEMO]: report });
  return report;
}

export async function scheduledGenerationWorkflow(
  rawInput: ScheduledGenerationInputValue,
): Promise<ScheduledGenerationResult> {
  const input = parseInput(rawInput);
  const { workflowId } = workflowInfo();
  const ids = {
    scheduleId: input.scheduleId,
    workflowId,
    callWorkflowId: scheduledCallWorkflowId(workflowId),
  };
  let result;
  try {
    // A child, not an activity: the routed call keeps its own record, search attributes and UI. Its id comes
    // from this run's, so the call is made once however often this code is replayed.
    // Runs recorded before the second routed-call workflow started the first; they replay as they ran.
    const callType = patched(ROUTED_CALL_V2_CHILD_PATCH) ? ROUTED_CALL_WORKFLOW_TYPE : 'routedCallWorkflow';
    result = await executeChild<typeof routedCallV2Workflow>(callType, {
      workflowId: ids.callWorkflowId,
      args: [input.call],
      typedSearchAttributes: routedCallStartAttributes(startRouteName(input.call.route)),
      ...(input.callSummary !== undefined ? { staticSummary: input.callSummary } : {}),
    });
  } catch (error) {
    // This run itself was cancelled (by a person, or the cancel_other overlap policy): the call went with it.
    if (CancellationScope.current().consideredCancelled) throw error;
    const { error: callError, record, failure } = callFailure(error);
    await deliver(input.deliver, { outcome: 'failed', ...ids, error: callError, record });
    throw failure;
  }
  const outcome = { outcome: 'succeeded' as const, ...ids, answer: result.answer, record: result.record };
  return { ...outcome, delivery: await deliver(input.deliver, outcome) };
}

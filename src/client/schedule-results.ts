// The runs of a schedule and what came of them, read from Temporal's visibility store. Node side.
import {
  WorkflowFailedError,
  type Client,
  type WorkflowExecutionInfo,
  type WorkflowExecutionStatusName,
} from '@temporalio/client';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { RoutedCallResult, RoutingRecord } from '../routing/routing-record';
import {
  DELIVERY_MEMO,
  SCHEDULED_GENERATION_WORKFLOW_TYPE,
  scheduledCallWorkflowId,
  type DeliveryReport,
  type ScheduledGenerationResult,
} from '../workflows/scheduled-generation/definitions';
import type { scheduledGenerationWorkflow } from '../workflows/scheduled-generation/scheduled-generation-workflow';
import { InvalidRequestError, RoutedCallError, toRoutedCallError } from './errors';

/** Set by Temporal on every workflow a schedule starts. */
const scheduledByIdAttribute = defineSearchAttributeKey('TemporalScheduledById', SearchAttributeType.KEYWORD);
const scheduledStartTimeAttribute = defineSearchAttributeKey(
  'TemporalScheduledStartTime',
  SearchAttributeType.DATETIME,
);

export interface ResultsOptions {
  /** How many runs to return, newest first. @default 10 */
  readonly limit?: number;
}

/** One run of a schedule and what came of it. */
export interface ScheduledRun {
  /** The run's workflow id (`switchyard-schedule-<id>-<time>`); the webhook's `Idempotency-Key`. */
  readonly workflowId: string;
  readonly runId: string;
  /** The routed call it made. */
  readonly callWorkflowId: string;
  /** `RUNNING`, `COMPLETED`, `FAILED`, `CANCELLED`, `TERMINATED`, `TIMED_OUT`, … */
  readonly status: WorkflowExecutionStatusName;
  /** When the schedule meant it to run. */
  readonly scheduledAt?: Date;
  readonly startedAt: Date;
  readonly closedAt?: Date;
  /** The answer, when the call answered. */
  readonly answer?: RoutedCallResult['answer'];
  /** The routing record, once the call has ended (absent after a terminate or timeout). */
  readonly record?: RoutingRecord;
  /** Why the run ended without an answer: a routed-call failure type, or `Cancelled` / `Terminated` / `TimedOut`. */
  readonly error?: { readonly type: string; readonly message: string };
  /** Where the outcome was delivered, or why it could not be; absent when the schedule delivers nowhere. */
  readonly delivery?: DeliveryReport;
}

/** The latest runs of schedule `scheduleId` (already validated), newest first; see `Schedules.results`. */
export async function readScheduleResults(
  client: Client,
  scheduleId: string,
  options: ResultsOptions,
): Promise<ScheduledRun[]> {
  const limit = options.limit ?? 10;
  if (!Number.isInteger(limit) || limit < 1)
    throw new InvalidRequestError('limit must be a positive integer', 'limit');
  const query =
    `WorkflowType = '${SCHEDULED_GENERATION_WORKFLOW_TYPE}' AND ` +
    `${scheduledByIdAttribute.name} = '${scheduleId}'`;
  const executions: WorkflowExecutionInfo[] = [];
  for await (const execution of client.workflow.list({ query })) executions.push(execution);
  executions.sort((a, b) => b.startTime.getTime() - a.startTime.getTime());
  return Promise.all(executions.slice(0, limit).map((execution) => readRun(client, execution)));
}

async function readRun(client: Client, execution: WorkflowExecutionInfo): Promise<ScheduledRun> {
  const memoDelivery = execution.memo?.[DELIVERY_MEMO] as DeliveryReport | undefined;
  const scheduledAt = execution.typedSearchAttributes.get(scheduledStartTimeAttribute);
  const base = {
    workflowId: execution.workflowId,
    runId: execution.runId,
    callWorkflowId: scheduledCallWorkflowId(execution.workflowId),
    status: execution.status.name,
    ...(scheduledAt ? { scheduledAt } : {}),
    startedAt: execution.startTime,
    ...(execution.closeTime ? { closedAt: execution.closeTime } : {}),
    ...(memoDelivery ? { delivery: memoDelivery } : {}),
  };
  if (execution.status.name === 'RUNNING') return base;
  const handle = client.workflow.getHandle<typeof scheduledGenerationWorkflow>(
    execution.workflowId,
    execution.runId,
  );
  try {
    const result: ScheduledGenerationResult = await handle.result();
    const hasDelivery = Object.keys(result.delivery).length > 0;
    return {
      ...base,
      answer: result.answer,
      record: result.record,
      ...(hasDelivery ? { delivery: result.delivery } : {}),
    };
  } catch (error) {
    const converted = toRoutedCallError(error, base.callWorkflowId);
    if (converted instanceof RoutedCallError) {
      return {
        ...base,
        ...(converted.record ? { record: converted.record } : {}),
        error: { type: converted.type, message: converted.message },
      };
    }
    if (error instanceof WorkflowFailedError) {
      const type = { TERMINATED: 'Terminated', TIMED_OUT: 'TimedOut', CANCELLED: 'Cancelled' }[
        execution.status.name as 'TERMINATED' | 'TIMED_OUT' | 'CANCELLED'
      ];
      return { ...base, error: { type: type ?? 'Failed', message: error.cause?.message ?? error.message } };
    }
    throw error;
  }
}

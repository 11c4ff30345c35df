// Names and result shapes shared by the scheduled-generation workflow, its delivery activity and the client. Workflow-safe.
import type { RoutedCallResult, RoutingRecord } from '../../routing/routing-record';

/** Workflow type a Switchyard schedule's action starts. */
export const SCHEDULED_GENERATION_WORKFLOW_TYPE = 'scheduledGenerationWorkflow';

/**
 * Workflow id a schedule's action is given. Temporal appends the run's scheduled time to it
 * (`switchyard-schedule-daily-2025-01-06T09:00:00Z`), so every run has its own id.
 */
export function scheduledRunWorkflowIdBase(scheduleId: string): string {
  return `switchyard-schedule-${scheduleId}`;
}

/** Id of the routed call a scheduled run makes: derived from the run's id, so a replay never makes a second one. */
export function scheduledCallWorkflowId(runWorkflowId: string): string {
  return `${runWorkflowId}-call`;
}

/** Memo key on a scheduled run holding its {@link DeliveryReport}. */
export const DELIVERY_MEMO = 'switchyardDelivery';

/**
 * Memo key on the schedule's action (and so on each run) holding the cron text the schedule was written with:
 * Temporal keeps cron expressions only in a structured form.
 */
export const SCHEDULE_CRON_MEMO = 'switchyardCron';

/** Identifies one run of a schedule in everything it delivers. */
interface ScheduledRunIds {
  readonly scheduleId: string;
  /** The scheduled run's workflow id; also the webhook's `Idempotency-Key` and the delivered file's name. */
  readonly workflowId: string;
  /** The routed call's workflow id (`switchyard show <id>` prints its record). */
  readonly callWorkflowId: string;
}

/** A run whose routed call answered: `{answer, record}` as `switchyard call --json` prints it, with the ids. */
export interface ScheduledCallSucceeded extends ScheduledRunIds, RoutedCallResult {
  readonly outcome: 'succeeded';
}

/** A run whose routed call ended without an answer: its typed error and the routing record (null if none). */
export interface ScheduledCallFailed extends ScheduledRunIds {
  readonly outcome: 'failed';
  readonly error: { readonly type: string; readonly message: string };
  readonly record: RoutingRecord | null;
}

/** What a scheduled run delivers: the webhook body and the file's content. */
export type ScheduledCallOutcome = ScheduledCallSucceeded | ScheduledCallFailed;

/** The result of one delivery: where it went, or why it could not (after its retries). */
export type DeliveryResult =
  | { readonly delivered: true; readonly attempts: number; readonly status?: number; readonly file?: string }
  | { readonly delivered: false; readonly error: string };

/** Deliveries of one run, by kind; a kind that was not asked for is absent. */
export interface DeliveryReport {
  readonly webhook?: DeliveryResult;
  readonly directory?: DeliveryResult;
}

/** What a scheduled run returns when its routed call answered. */
export interface ScheduledGenerationResult extends ScheduledCallSucceeded {
  readonly delivery: DeliveryReport;
}

/**
 * Name of the file a directory delivery writes: the run's workflow id with every character other than a
 * letter, digit, `.`, `_` or `-` replaced by `_` (the id's `:` are not allowed on every file system), plus `.json`.
 */
export function deliveredFileName(workflowId: string): string {
  return `${workflowId.replace(/[^A-Za-z0-9._-]/g, '_')}.json`;
}

/** The scheme, host and port of a webhook URL, for summaries and messages: its path or query may carry a token. */
export function webhookOrigin(url: string): string {
  return /^https?:\/\/[^/?#]+/i.exec(url)?.[0] ?? 'webhook';
}

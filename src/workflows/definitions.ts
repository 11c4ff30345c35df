// Names shared by workflows and clients: task queue, workflow ids, queries. Workflow-safe.
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { AttemptRecord } from '../routing/routing-record';

/** Task queue of Switchyard workers. @default 'switchyard' (override with `SWITCHYARD_TASK_QUEUE`) */
export const DEFAULT_TASK_QUEUE = 'switchyard';

/**
 * Task queue of the breaker and ledger entities. They get their own: a routed call holds its workflow-task
 * slot while its local activity waits on an entity, so with one shared queue a burst of calls could take
 * every slot and starve the entity it waits for.
 */
export function entityTaskQueue(taskQueue: string): string {
  return `${taskQueue}-entities`;
}

/**
 * Workflow type of a routed call as clients start it. `routedCallWorkflow`, the first version, is still
 * registered, so that calls started under it finish and their histories replay.
 */
export const ROUTED_CALL_WORKFLOW_TYPE = 'routedCallV2Workflow';
/** Every workflow type a routed call may have, newest first. */
export const ROUTED_CALL_WORKFLOW_TYPES: readonly string[] = [
  ROUTED_CALL_WORKFLOW_TYPE,
  'routedCallWorkflow',
];

/** Workflow id of a routed call: the idempotency key when given, so a key never runs twice. */
export function routedCallWorkflowId(idempotencyKey: string): string {
  return `switchyard-call-${idempotencyKey}`;
}

/**
 * Workflow id of a routed call a user's workflow makes without an idempotency key (`switchyard/workflow`):
 * derived from the parent's id and the call's name in it, so a replayed, reset or retried parent asks for the
 * same call again instead of a new one.
 */
export function childCallWorkflowId(parentWorkflowId: string, callId: string): string {
  return `${parentWorkflowId}-${callId}`;
}

/** The attempts of a routed call that have ended so far (an attempt in flight is listed once it ends). */
export const attemptsQuery = defineQuery<AttemptRecord[]>('attempts');

/** Memo key holding the routing record of a cancelled call (its close event cannot carry details). */
export const CANCELLED_RECORD_MEMO = 'switchyardRecord';

/** What an attempt's watch hears: the call was cancelled (stop the request now), or the attempt's watch is over. */
export interface AttemptWatchAnswer {
  readonly cancelled: boolean;
}

/**
 * Asked by an attempt whose request is out, and answered as soon as the call is cancelled (or the attempt ends):
 * the attempt then stops its request at once instead of at its next heartbeat.
 */
export const attemptWatchUpdate = defineUpdate<AttemptWatchAnswer, []>('switchyardAttemptWatch');

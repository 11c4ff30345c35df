// Responses state without a database: a stored response is read back from its routed call's own workflow. Node side.
import type { WorkflowExecutionDescription } from '@temporalio/client';
import { RoutedCallError } from '../client/errors';
import type { SwitchyardClient } from '../client/switchyard-client';
import { assistantMessageOf } from '../config/conversation';
import type { Message } from '../config/request';
import type { RoutedCallInput } from '../config/routed-call-input';
import type { RoutedCallResult, RoutingRecord } from '../routing/routing-record';
import { ROUTED_CALL_WORKFLOW_TYPES } from '../workflows/definitions';
import { callStatusOf, isGone, keyMadeCall, startInput, type CallStatus } from './call-ownership';
import type { StoredKey } from './gateway-key';
import { GatewayError, GatewayErrorKind } from './gateway-error';
import { workflowIdOfResponse } from './response-id';
import { responseTimesOf } from './responses-times';

/** A stored response's state, from its workflow's status. */
export type StoredResponseStatus = CallStatus;

/** A stored response as its workflow keeps it. */
export interface StoredResponse {
  /** The response id it was asked for by. */
  readonly id: string;
  readonly workflowId: string;
  /** The routed call's input: its whole conversation, system included. */
  readonly input: RoutedCallInput;
  /** The call's result, once it succeeded; undefined while it runs or when it failed. */
  readonly result?: RoutedCallResult;
  /** Why the call ended without an answer (a routed call's failure type and message); only when it did. */
  readonly error?: { readonly type: string; readonly message: string };
  /** What the call did, once it ended (absent after a terminate or a timeout). */
  readonly record?: RoutingRecord;
  /** Unix seconds the call started: its record's first attempt, else its workflow's start. */
  readonly created: number;
  /** Unix seconds its last attempt ended, once it ended with a record. */
  readonly completed?: number;
  readonly status: StoredResponseStatus;
}

/**
 * Which request field named the id: the path of `GET /v1/responses/{id}`, a `previous_response_id`, or the id of an
 * input item that refers to an output item of the response.
 */
export type ResponseIdField = 'response_id' | 'previous_response_id' | `input.${number}.id`;

/** The one refusal for every id a key cannot read, so that no key learns whether another key's ids exist. */
function notFound(responseId: string, field: ResponseIdField): GatewayError {
  // The id is echoed only when it has the shape of one: it is the caller's own text, but may be long or odd.
  const shown = /^resp_[A-Za-z0-9_-]{1,400}$/.test(responseId) ? ` '${responseId}'` : '';
  return field === 'previous_response_id'
    ? new GatewayError(
        `previous_response_id: no stored response${shown} for this key (unknown, expired, not stored, or another key's)`,
        GatewayErrorKind.notFound,
        'previous_response_not_found',
        { param: 'previous_response_id' },
      )
    : new GatewayError(
        `${field === 'response_id' ? '' : `${field}: `}no stored response${shown} for this key (unknown, expired, not stored, or another key's)`,
        GatewayErrorKind.notFound,
        'response_not_found',
        { param: field },
      );
}

/** Whether `input` is a call the Responses surface started for `key` with `store` on. */
function storedFor(input: unknown, key: StoredKey): input is RoutedCallInput {
  if (!keyMadeCall(input, key)) return false;
  const labels = input.labels;
  return labels?.gateway === 'responses' && labels.responsesStore !== 'false';
}

/**
 * The stored response `responseId` names, if `key` created it with `store` on; otherwise (malformed id, unknown or
 * expired workflow, another key's call, an unstored response, a call made through another surface) one and the
 * same GatewayError of kind `not_found` naming `field`. Reads the workflow's description, the first event of its
 * history and, once it has ended, its close event: never the whole history.
 */
export async function readStoredResponse(
  switchyard: SwitchyardClient,
  responseId: string,
  key: StoredKey,
  field: ResponseIdField = 'response_id',
): Promise<StoredResponse> {
  const workflowId = workflowIdOfResponse(responseId);
  if (workflowId === undefined) throw notFound(responseId, field);
  let description: WorkflowExecutionDescription;
  let input: unknown;
  try {
    description = await switchyard.temporal.workflow.getHandle(workflowId).describe();
    if (!ROUTED_CALL_WORKFLOW_TYPES.includes(description.type)) throw notFound(responseId, field);
    input = await startInput(switchyard, workflowId, description.runId);
  } catch (error) {
    if (isGone(error)) throw notFound(responseId, field);
    throw error;
  }
  if (!storedFor(input, key)) throw notFound(responseId, field);
  const status = callStatusOf(description.status.name);
  const stored = {
    id: responseId,
    workflowId,
    input,
    status,
    created: Math.floor(description.startTime.getTime() / 1000),
  };
  if (status === 'in_progress') return stored;
  const ended = await outcomeOf(switchyard, workflowId).catch((error: unknown) => {
    throw isGone(error) ? notFound(responseId, field) : error;
  });
  const times = responseTimesOf(ended.record);
  return {
    ...stored,
    ...ended,
    ...(times.created !== undefined ? { created: times.created } : {}),
    ...(times.completed !== undefined ? { completed: times.completed } : {}),
  };
}

/** An ended call's result, or why it has none, from its close event. */
async function outcomeOf(
  switchyard: SwitchyardClient,
  workflowId: string,
): Promise<Pick<StoredResponse, 'result' | 'error' | 'record'>> {
  try {
    const result = await switchyard.handle(workflowId).result();
    return { result, record: result.record };
  } catch (error) {
    if (error instanceof RoutedCallError) {
      return {
        error: { type: error.type, message: error.message },
        ...(error.record ? { record: error.record } : {}),
      };
    }
    if (isGone(error)) throw error;
    // A terminated or timed-out run carries no routed-call failure.
    return { error: { type: 'Failed', message: 'the call ended without an answer' } };
  }
}

/**
 * Deletes a stored response: its routed call's workflow, history and all (Temporal's DeleteWorkflowExecution, which
 * the server carries out asynchronously: on the dev server, reads still find it for up to about half a minute). Refuses as {@link readStoredResponse} does, and with a 409 while the call
 * runs: deleting it then would stop it without settling its cost. Responses that continued it keep their own
 * copy of the conversation, so they can still be read and continued.
 */
export async function deleteStoredResponse(
  switchyard: SwitchyardClient,
  responseId: string,
  key: StoredKey,
): Promise<void> {
  const stored = await readStoredResponse(switchyard, responseId, key);
  if (stored.status === 'in_progress') {
    throw new GatewayError(
      `response '${responseId}' is still in progress; delete it once it has ended`,
      GatewayErrorKind.conflict,
      'response_in_progress',
      { param: 'response_id' },
    );
  }
  const client = switchyard.temporal;
  try {
    await client.workflowService.deleteWorkflowExecution({
      namespace: client.options.namespace,
      workflowExecution: { workflowId: stored.workflowId },
    });
  } catch (error) {
    if (isGone(error)) throw notFound(responseId, 'response_id');
    throw error;
  }
}

/**
 * The conversation a `previous_response_id` continues: that call's messages followed by its answer as one
 * assistant message (reasoning with its origin, text, tool calls). Its instructions (system) are not carried
 * over, as on OpenAI; nor are its tools, which the caller sends again. Refuses as {@link readStoredResponse} does
 * (404 naming `previous_response_id`), with a 409 while that response is still in progress and a 400 when it
 * ended without an answer.
 */
export async function conversationBefore(
  switchyard: SwitchyardClient,
  previousResponseId: string,
  key: StoredKey,
): Promise<Message[]> {
  const previous = await readStoredResponse(switchyard, previousResponseId, key, 'previous_response_id');
  if (previous.status === 'in_progress') {
    throw new GatewayError(
      `previous_response_id: response '${previousResponseId}' is still in progress; continue it once it has completed`,
      GatewayErrorKind.conflict,
      'previous_response_in_progress',
      { param: 'previous_response_id' },
    );
  }
  if (!previous.result) {
    throw new GatewayError(
      `previous_response_id: response '${previousResponseId}' ${previous.status === 'cancelled' ? 'was cancelled' : 'failed'} and has no answer to continue from`,
      GatewayErrorKind.invalidRequest,
      'previous_response_not_completed',
      { param: 'previous_response_id' },
    );
  }
  return [...previous.input.request.messages, assistantMessageOf(previous.result.answer)];
}

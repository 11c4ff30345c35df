// Reading a routed call back for a gateway key: its status, its start input, and whether the key made it. Node side.
import {
  isGrpcServiceError,
  WorkflowNotFoundError,
  type WorkflowExecutionStatusName,
} from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import type { SwitchyardClient } from '../client/switchyard-client';
import { GATEWAY_KEY_LABEL, type RoutedCallInput } from '../config/routed-call-input';
import type { StoredKey } from './gateway-key';

/** gRPC's NOT_FOUND and INVALID_ARGUMENT: a history that is gone, or a workflow id the server will not take. */
const GRPC_NOT_FOUND = 5;
const GRPC_INVALID_ARGUMENT = 3;

/** A routed call's state, from its workflow's status, in the words of OpenAI's Responses API. */
export type CallStatus = 'completed' | 'failed' | 'in_progress' | 'cancelled';

/** A workflow that is not there (never was, expired past the namespace's retention, deleted). */
export function isGone(error: unknown): boolean {
  return (
    error instanceof WorkflowNotFoundError ||
    (isGrpcServiceError(error) && (error.code === GRPC_NOT_FOUND || error.code === GRPC_INVALID_ARGUMENT))
  );
}

export function callStatusOf(name: WorkflowExecutionStatusName): CallStatus {
  switch (name) {
    // A routed call never continues as new; were one to, its answer would still be to come.
    case 'RUNNING':
    case 'PAUSED':
    case 'CONTINUED_AS_NEW':
      return 'in_progress';
    case 'COMPLETED':
      return 'completed';
    case 'CANCELLED':
      return 'cancelled';
    case 'FAILED':
    case 'TERMINATED':
    case 'TIMED_OUT':
    case 'UNSPECIFIED':
    case 'UNKNOWN':
      return 'failed';
    default:
      return name satisfies never;
  }
}

/**
 * The routed call's input, from the first event of its history only: a long conversation's history holds many
 * large events, and only the start's input is needed. Decoded with the client's data converter, so encrypted and
 * stored payloads read back as they were written.
 */
export async function startInput(
  switchyard: SwitchyardClient,
  workflowId: string,
  runId: string,
): Promise<unknown> {
  const client = switchyard.temporal;
  const { namespace } = client.options;
  const response = await client.workflowService.getWorkflowExecutionHistory({
    namespace,
    execution: { workflowId, runId },
    maximumPageSize: 1,
    skipArchival: true,
  });
  const started = response.history?.events?.[0]?.workflowExecutionStartedEventAttributes;
  if (!started) return undefined;
  return decodeFromPayloadsAtIndex(client.options.loadedDataConverter, 0, started.input?.payloads, {
    type: 'workflow',
    namespace,
    workflowId,
  });
}

/**
 * Whether `input` is a call the gateway started for `key`: the gateway writes the key's public id as the
 * `gatewayKey` label last, after the surface's own labels, so no request can set it. Every read of a call by a
 * key (stored responses, the audit) goes through this one rule.
 */
export function keyMadeCall(input: unknown, key: StoredKey): input is RoutedCallInput {
  const labels = (input as Partial<RoutedCallInput> | undefined)?.labels;
  return labels?.[GATEWAY_KEY_LABEL] === key.id;
}

// Responses state without a database: a stored response is read back from its routed call's own workflow. Node side.
// STUB: the signatures the Responses surface builds on; the bodies are being written.
import type { SwitchyardClient } from '../client/switchyard-client';
import type { Message } from '../config/request';
import type { RoutedCallInput } from '../config/routed-call-input';
import type { RoutedCallResult } from '../routing/routing-record';
import type { StoredKey } from './gateway-key';

/** A stored response as its workflow keeps it. */
export interface StoredResponse {
  readonly workflowId: string;
  /** The routed call's input: its whole conversation, system included. */
  readonly input: RoutedCallInput;
  /** The call's result, once it succeeded; undefined while it runs or when it failed. */
  readonly result?: RoutedCallResult;
  /** Unix seconds the call started. */
  readonly created: number;
  readonly status: 'completed' | 'failed' | 'in_progress' | 'cancelled';
}

/**
 * The stored response `responseId` names, if `key` created it with `store` on; otherwise (malformed id, unknown or
 * expired workflow, another key's call, an unstored response) a GatewayError of kind `not_found` naming the id.
 */
export async function readStoredResponse(
  switchyard: SwitchyardClient,
  responseId: string,
  key: StoredKey,
): Promise<StoredResponse> {
  void switchyard;
  void responseId;
  void key;
  throw new Error('not implemented yet');
}

/**
 * The conversation a `previous_response_id` continues: that call's messages followed by its answer as an
 * assistant message (text, tool calls and reasoning). Its instructions (system) are not carried over, as on
 * OpenAI. Refuses as {@link readStoredResponse} does, and with a 400 when that response did not complete.
 */
export async function conversationBefore(
  switchyard: SwitchyardClient,
  previousResponseId: string,
  key: StoredKey,
): Promise<Message[]> {
  void switchyard;
  void previousResponseId;
  void key;
  throw new Error('not implemented yet');
}

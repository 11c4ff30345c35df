// A routed call's answer as an OpenAI Responses `response` object: output items, status, usage, the echo. Node side.
import type { ProviderKind, ReasoningPart } from '../config/request';
import type { ToolCall, UnifiedFinishReason } from '../providers/types';
import { outputItemId } from './response-id';
import type { ResponseEcho } from './responses-echo';
import { reasoningOrigin } from './responses-reasoning-origin';
import type { RoutingSummary } from './routing-summary';
import { routingBody, type Answer, type ResponseIdentity } from './surface';

/** A response's lifecycle status, as OpenAI names it. */
export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed' | 'cancelled';

/** OpenAI's own reasoning keeps its item id (OpenAI wants it back beside the encrypted content); others get ours. */
export function reasoningItemId(
  responseId: string,
  index: number,
  part: { readonly id?: string; readonly origin?: ProviderKind },
): string {
  return part.origin === 'openai-responses' && part.id !== undefined
    ? part.id
    : outputItemId(responseId, 'rs', index);
}

/** The status an answer ends with: cut short by its length bound or a filter, it is incomplete. */
export function statusOf(finish: UnifiedFinishReason): {
  readonly status: 'completed' | 'incomplete';
  readonly incomplete_details: { readonly reason: 'max_output_tokens' | 'content_filter' } | null;
} {
  switch (finish) {
    case 'length':
      return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
    case 'content_filter':
    case 'refusal':
      return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
    case 'stop':
    case 'tool_calls':
    case 'other':
      return { status: 'completed', incomplete_details: null };
    default:
      return finish satisfies never;
  }
}

/**
 * The Responses usage: `input_tokens` is the whole input (cache reads and cache writes included), the details
 * say how much of it was read from the cache and how much of the output was reasoning (0 when the provider did
 * not say).
 */
export function usageOf(answer: Answer) {
  const { inputTokens, cachedInputTokens, outputTokens, reasoningTokens } = answer.usage;
  const cacheWrites = (answer.usage.cacheWriteInputTokens ?? 0) + (answer.usage.cacheWrite1hInputTokens ?? 0);
  const input = inputTokens + cachedInputTokens + cacheWrites;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: cachedInputTokens },
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: reasoningTokens ?? 0 },
    total_tokens: input + outputTokens,
  };
}

/** What a reasoning item is made of: a whole part, or the pieces a stream gathered. */
export type ReasoningContent = Pick<ReasoningPart, 'text' | 'signature' | 'redactedData' | 'origin'>;

/**
 * A reasoning item: its text as one summary part (the neutral text is the summary parts joined, sent back it is
 * the same text), its encrypted content when the request included it.
 */
export function reasoningItem(part: ReasoningContent, id: string, encryptedReasoning: boolean) {
  const encrypted = encryptedReasoning ? reasoningOrigin.encryptedContentOf(part) : undefined;
  return {
    id,
    type: 'reasoning' as const,
    summary: part.text === '' ? [] : [{ type: 'summary_text' as const, text: part.text }],
    ...(encrypted !== undefined ? { encrypted_content: encrypted } : {}),
  };
}

/** An `output_text` part (no citations, no log probabilities: the gateway has neither to give). */
export function outputTextPart(text: string) {
  return { type: 'output_text' as const, text, annotations: [], logprobs: [] };
}

/** An assistant message; without text (a stream's message just opened) it has no content part yet. */
export function messageItem(id: string, status: 'in_progress' | 'completed' | 'incomplete', text?: string) {
  return {
    id,
    type: 'message' as const,
    status,
    role: 'assistant' as const,
    content: text === undefined ? [] : [outputTextPart(text)],
  };
}

export function functionCallItem(
  call: Pick<ToolCall, 'id' | 'name' | 'arguments'>,
  id: string,
  status: 'in_progress' | 'completed',
) {
  return {
    id,
    type: 'function_call' as const,
    status,
    call_id: call.id,
    name: call.name,
    arguments: call.arguments,
  };
}

/**
 * The answer's output items in the order a model produces them: reasoning, the message, the function calls. An
 * answer that called tools and said nothing has no message; one that did neither has an empty message.
 */
export function outputItemsOf(answer: Answer, responseId: string, encryptedReasoning: boolean): unknown[] {
  const { status } = statusOf(answer.finishReason.unified);
  const reasoning = (answer.reasoning ?? []).map((part, index) =>
    reasoningItem(part, reasoningItemId(responseId, index, part), encryptedReasoning),
  );
  const message =
    answer.text !== '' || answer.toolCalls.length === 0
      ? [messageItem(outputItemId(responseId, 'msg', 0), status, answer.text)]
      : [];
  const calls = answer.toolCalls.map((call, index) =>
    functionCallItem(call, outputItemId(responseId, 'fc', index), 'completed'),
  );
  return [...reasoning, ...message, ...calls];
}

/** Everything a `response` object holds beside the echoed request. */
export interface ResponseState {
  readonly identity: ResponseIdentity;
  readonly status: ResponseStatus;
  readonly output: readonly unknown[];
  readonly usage: ReturnType<typeof usageOf> | null;
  /** Why it failed: the failure type and message. @default null */
  readonly error?: { readonly code: string; readonly message: string } | null;
  readonly incompleteDetails?: ReturnType<typeof statusOf>['incomplete_details'];
  /** Unix seconds it completed; only for a completed response. @default none */
  readonly completedAt?: number;
  readonly echo: ResponseEcho;
  /** The routing metadata (absent while the call runs). @default none */
  readonly routing?: RoutingSummary;
}

/** The `response` object, in OpenAI's field order, with the routing metadata as `switchyard`. */
export function responseBody(state: ResponseState): Record<string, unknown> {
  const switchyard = routingBody(state.routing);
  return {
    id: state.identity.id,
    object: 'response',
    created_at: state.identity.created,
    status: state.status,
    ...(state.completedAt !== undefined ? { completed_at: state.completedAt } : {}),
    error: state.error ?? null,
    incomplete_details: state.incompleteDetails ?? null,
    model: state.identity.model,
    output: state.output,
    ...state.echo,
    usage: state.usage,
    ...(switchyard ? { switchyard } : {}),
  };
}

/** The whole `response` of an answered call. */
export function answeredResponseBody(
  answer: Answer,
  options: {
    readonly identity: ResponseIdentity;
    readonly echo: ResponseEcho;
    readonly encryptedReasoning: boolean;
    readonly routing?: RoutingSummary;
    /** Unix seconds it completed. @default now */
    readonly completedAt?: number;
  },
): Record<string, unknown> {
  const { status, incomplete_details } = statusOf(answer.finishReason.unified);
  return responseBody({
    identity: options.identity,
    status,
    output: outputItemsOf(answer, options.identity.id, options.encryptedReasoning),
    usage: usageOf(answer),
    incompleteDetails: incomplete_details,
    ...(status === 'completed' ? { completedAt: options.completedAt ?? Math.floor(Date.now() / 1000) } : {}),
    echo: options.echo,
    ...(options.routing ? { routing: options.routing } : {}),
  });
}

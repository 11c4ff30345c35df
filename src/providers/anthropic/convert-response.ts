// Turns an Anthropic message (or an accumulated stream) into a GenerationResult. Pure; worker side.
import { FailureClass } from '../../routing/failure-class';
import { isRecord, tokenCount } from '../json-value';
import { providerFailure } from '../provider-failure';
import type { GenerationResult, ToolCall, Usage } from '../types';
import { mapAnthropicStopReason } from './map-finish-reason';

export interface ResponseContext {
  /** Prefix of error messages: the configured provider name and the model, e.g. `anthropic claude-haiku-4-5`. */
  readonly label: string;
  readonly provider: string;
  /** The model that was asked for; used when the response does not name one. */
  readonly model: string;
  readonly requestId: string | null;
}

/**
 * Anthropic's `input_tokens` already excludes cache reads (`cache_read_input_tokens`). Cache writes
 * (`cache_creation_input_tokens`) cost more than plain input; they are counted as input so the cost
 * leans low by at most that surcharge rather than dropping them.
 */
export function convertAnthropicUsage(raw: unknown): Usage {
  if (!isRecord(raw)) return { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, raw: {} };
  return {
    inputTokens: tokenCount(raw.input_tokens) + tokenCount(raw.cache_creation_input_tokens),
    cachedInputTokens: tokenCount(raw.cache_read_input_tokens),
    outputTokens: tokenCount(raw.output_tokens),
    raw,
  };
}

function convertContent(content: unknown[]): { text: string; toolCalls: ToolCall[] } {
  let text = '';
  const toolCalls: ToolCall[] = [];
  for (const block of content) {
    if (!isRecord(block)) continue;
    if (block.type === 'text' && typeof block.text === 'string') text += block.text;
    if (block.type === 'tool_use' && typeof block.name === 'string') {
      toolCalls.push({
        id: typeof block.id === 'string' ? block.id : '',
        name: block.name,
        // A streamed tool call keeps the JSON text it arrived as; a JSON body has it parsed.
        arguments: typeof block.input === 'string' ? block.input : JSON.stringify(block.input ?? {}),
      });
    }
  }
  return { text, toolCalls };
}

/**
 * Normalizes a message. Throws a ProviderError for an answer that is not one: no content array or no
 * stop reason (`invalid_response`; a complete message always has one) and a refusal (`refused`) — a
 * 200 that routing must still treat as a failure, with the request id and billed usage kept.
 */
export function convertAnthropicResponse(message: unknown, context: ResponseContext): GenerationResult {
  const requestId = context.requestId ?? undefined;
  const fail = (
    failureClass: FailureClass,
    reason: string,
    extra: { usage?: Usage; providerCode?: string } = {},
  ) =>
    providerFailure(
      context.label,
      failureClass,
      { status: 200, requestSent: true, requestId, ...extra },
      reason,
    );

  if (!isRecord(message) || !Array.isArray(message.content)) {
    throw fail(FailureClass.invalidResponse, 'response has no content array');
  }
  const usage = convertAnthropicUsage(message.usage);
  if (typeof message.stop_reason !== 'string') {
    throw fail(FailureClass.invalidResponse, 'response has no stop reason', { usage });
  }
  const finishReason = mapAnthropicStopReason(message.stop_reason);
  if (finishReason.unified === 'refusal') {
    throw fail(FailureClass.refused, 'the model refused', { usage, providerCode: 'refusal' });
  }
  const { text, toolCalls } = convertContent(message.content);
  return {
    text,
    toolCalls,
    finishReason,
    usage,
    provider: context.provider,
    model: typeof message.model === 'string' && message.model !== '' ? message.model : context.model,
    requestId: context.requestId,
  };
}

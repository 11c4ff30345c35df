// Turns an Anthropic message (or an accumulated stream) into a GenerationResult. Pure; worker side.
import { FailureClass } from '../../config/failure-class';
import { isRecord, tokenCount } from '../json-value';
import { answerFailure } from '../provider-failure';
import type { ReasoningPart } from '../../config/request';
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
 * Anthropic's `input_tokens` already excludes cache reads (`cache_read_input_tokens`) and cache writes
 * (`cache_creation_input_tokens`), each priced apart. Writes are split by lifetime in `cache_creation`; a
 * response without that breakdown (older API versions, compatible servers) wrote only 5-minute entries. The total
 * is what was billed: what a breakdown leaves unplaced (the API reference's own example has a total of 2051 beside
 * a breakdown of zeros) counts as 5-minute writes rather than vanishing from the cost.
 */
export function convertAnthropicUsage(raw: unknown): Usage {
  if (!isRecord(raw)) return { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, raw: {} };
  const breakdown = isRecord(raw.cache_creation) ? raw.cache_creation : undefined;
  const cacheWriteTotal = tokenCount(raw.cache_creation_input_tokens);
  const cacheWrite1h = breakdown ? tokenCount(breakdown.ephemeral_1h_input_tokens) : 0;
  const cacheWrite5m = breakdown
    ? Math.max(tokenCount(breakdown.ephemeral_5m_input_tokens), cacheWriteTotal - cacheWrite1h)
    : cacheWriteTotal;
  const outputTokens = tokenCount(raw.output_tokens);
  const outputDetails = isRecord(raw.output_tokens_details) ? raw.output_tokens_details : {};
  return {
    inputTokens: tokenCount(raw.input_tokens),
    cachedInputTokens: tokenCount(raw.cache_read_input_tokens),
    // Present only when written, so answers without caching read exactly as before.
    ...(cacheWrite5m > 0 ? { cacheWriteInputTokens: cacheWrite5m } : {}),
    ...(cacheWrite1h > 0 ? { cacheWrite1hInputTokens: cacheWrite1h } : {}),
    outputTokens,
    // `output_tokens` includes the thinking; newer API versions say how much of it was thinking.
    ...(typeof outputDetails.thinking_tokens === 'number'
      ? { reasoningTokens: Math.min(tokenCount(outputDetails.thinking_tokens), outputTokens) }
      : {}),
    raw,
  };
}

interface ConvertedContent {
  readonly text: string;
  readonly toolCalls: ToolCall[];
  readonly reasoning: ReasoningPart[];
}

function convertContent(content: unknown[]): ConvertedContent {
  let text = '';
  const toolCalls: ToolCall[] = [];
  const reasoning: ReasoningPart[] = [];
  for (const block of content) {
    if (!isRecord(block)) continue;
    switch (block.type) {
      case 'text':
        if (typeof block.text === 'string') text += block.text;
        break;
      case 'tool_use':
        if (typeof block.name !== 'string') break;
        toolCalls.push({
          id: typeof block.id === 'string' ? block.id : '',
          name: block.name,
          // A streamed tool call keeps the JSON text it arrived as; a JSON body has it parsed.
          arguments: typeof block.input === 'string' ? block.input : JSON.stringify(block.input ?? {}),
        });
        break;
      case 'thinking':
        reasoning.push({
          type: 'reasoning',
          text: typeof block.thinking === 'string' ? block.thinking : '',
          // Kept exactly as sent: Anthropic checks it when the block comes back in a later turn.
          ...(typeof block.signature === 'string' ? { signature: block.signature } : {}),
          origin: 'anthropic',
        });
        break;
      case 'redacted_thinking':
        if (typeof block.data === 'string') {
          reasoning.push({ type: 'reasoning', text: '', redactedData: block.data, origin: 'anthropic' });
        }
        break;
      default:
        // Server tool blocks and anything newer carry nothing the neutral answer holds.
        break;
    }
  }
  return { text, toolCalls, reasoning };
}

/**
 * Normalizes a message. Throws a ProviderError for an answer that is not one: no content array or no
 * stop reason (`invalid_response`; a complete message always has one) and a refusal (`refused`) — a
 * 200 that routing must still treat as a failure, with the request id and billed usage kept.
 */
export function convertAnthropicResponse(message: unknown, context: ResponseContext): GenerationResult {
  const fail = answerFailure(context.label, context.requestId);

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
  const { text, toolCalls, reasoning } = convertContent(message.content);
  return {
    text,
    toolCalls,
    ...(reasoning.length > 0 ? { reasoning } : {}),
    finishReason,
    usage,
    provider: context.provider,
    model: typeof message.model === 'string' && message.model !== '' ? message.model : context.model,
    requestId: context.requestId,
  };
}

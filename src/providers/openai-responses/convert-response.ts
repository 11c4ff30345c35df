// Turns a Responses API response (or one gathered from its stream) into a GenerationResult. Pure; worker side.
import { FailureClass } from '../../config/failure-class';
import type { ReasoningPart } from '../../config/request';
import { isRecord } from '../json-value';
import { classifyErrorCode } from '../openai/classify-error';
import { usageWithCachedPart } from '../openai/convert-response';
import { answerFailure, providerFailure, safeIdentifier } from '../provider-failure';
import type { GenerationResult, ProviderError, ToolCall, Usage } from '../types';
import { mapResponsesFinishReason } from './map-finish-reason';

export interface ResponseContext {
  /** Prefix of error messages: the configured provider name and the model, e.g. `openai gpt-5-mini`. */
  readonly label: string;
  readonly provider: string;
  /** The model that was asked for; used when the response does not name one. */
  readonly model: string;
  readonly requestId: string | null;
}

/**
 * `input_tokens` includes the cached tokens (`input_tokens_details.cached_tokens`): they are split out so each is
 * priced once. OpenAI caches on its own with no write price, so the cache-write counts stay absent (0).
 * `output_tokens` includes the reasoning tokens, which `output_tokens_details.reasoning_tokens` counts.
 */
export function convertResponsesUsage(raw: unknown): Usage {
  if (!isRecord(raw)) return { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, raw: {} };
  const inputDetails = isRecord(raw.input_tokens_details) ? raw.input_tokens_details : {};
  const outputDetails = isRecord(raw.output_tokens_details) ? raw.output_tokens_details : {};
  return usageWithCachedPart(
    {
      input: raw.input_tokens,
      cached: inputDetails.cached_tokens,
      output: raw.output_tokens,
      reasoning: outputDetails.reasoning_tokens,
    },
    raw,
  );
}

/** The texts of a list of `{type, text}` parts of one type (a reasoning item's summary), in order. */
function textsOf(parts: unknown, type: string): string[] {
  if (!Array.isArray(parts)) return [];
  return parts.flatMap((part: unknown) =>
    isRecord(part) && part.type === type && typeof part.text === 'string' ? [part.text] : [],
  );
}

/**
 * A reasoning item as a neutral part of this kind: its summary texts joined by a blank line, its encrypted content
 * as the signature (kept exactly: OpenAI decrypts it when it comes back), its `rs_…` id.
 */
export function reasoningPartOf(item: Record<string, unknown>): ReasoningPart {
  return {
    type: 'reasoning',
    text: textsOf(item.summary, 'summary_text').join('\n\n'),
    ...(typeof item.encrypted_content === 'string' ? { signature: item.encrypted_content } : {}),
    ...(typeof item.id === 'string' ? { id: item.id } : {}),
    origin: 'openai-responses',
  };
}

interface ConvertedOutput {
  readonly text: string;
  readonly toolCalls: ToolCall[];
  readonly reasoning: ReasoningPart[];
  readonly refused: boolean;
}

function convertOutput(output: readonly unknown[]): ConvertedOutput {
  let text = '';
  let refused = false;
  const toolCalls: ToolCall[] = [];
  const reasoning: ReasoningPart[] = [];
  for (const item of output) {
    if (!isRecord(item)) continue;
    switch (item.type) {
      case 'message':
        text += textsOf(item.content, 'output_text').join('');
        if (Array.isArray(item.content))
          refused ||= item.content.some((part: unknown) => isRecord(part) && part.type === 'refusal');
        break;
      case 'function_call':
        if (typeof item.name !== 'string') break;
        toolCalls.push({
          // The call id is what its output names; the item's own `fc_…` id is not needed statelessly.
          id: typeof item.call_id === 'string' ? item.call_id : '',
          name: item.name,
          arguments: typeof item.arguments === 'string' ? item.arguments : '',
        });
        break;
      case 'reasoning':
        reasoning.push(reasoningPartOf(item));
        break;
      default:
        // Built-in tool calls (none are asked for) and anything newer carry nothing the neutral answer holds.
        break;
    }
  }
  return { text, toolCalls, reasoning, refused };
}

/**
 * The failure a failed response (or an `error` event) reports, classified by its code: it is a 200 whose answer
 * never came. Only the code is kept, never the message.
 */
export function responseFailure(error: unknown, context: ResponseContext, usage?: Usage): ProviderError {
  const details = isRecord(error) ? error : {};
  const code = safeIdentifier(details.code);
  const type = safeIdentifier(details.type);
  return providerFailure(
    context.label,
    classifyErrorCode(code, type),
    {
      status: 200,
      requestSent: true,
      ...(code !== undefined || type !== undefined ? { providerCode: code ?? type } : {}),
      ...(context.requestId !== null ? { requestId: context.requestId } : {}),
      ...(usage !== undefined ? { usage } : {}),
    },
    'the response failed',
  );
}

/**
 * Normalizes a response. Throws a ProviderError for an answer that is not one: no output array, or a status that
 * is not final (`invalid_response`), a failed response (classified by its code), a refusal (`refused`) or a
 * content-filter stop (`content_policy`): a 200 that routing must still treat as a failure, with the request id
 * and billed usage kept.
 */
export function convertResponsesResponse(response: unknown, context: ResponseContext): GenerationResult {
  const fail = answerFailure(context.label, context.requestId);

  if (!isRecord(response) || !Array.isArray(response.output)) {
    throw fail(FailureClass.invalidResponse, 'response has no output array');
  }
  const usage = convertResponsesUsage(response.usage);
  const status = typeof response.status === 'string' ? response.status : undefined;
  if (status === 'failed') throw responseFailure(response.error, context, usage);
  if (status !== 'completed' && status !== 'incomplete') {
    // Queued, in progress or cancelled: never the end of a call made without `background`.
    throw fail(FailureClass.invalidResponse, 'response is not finished', {
      usage,
      ...(safeIdentifier(status) !== undefined ? { providerCode: status } : {}),
    });
  }
  const { text, toolCalls, reasoning, refused } = convertOutput(response.output);
  if (refused) throw fail(FailureClass.refused, 'the model refused', { usage, providerCode: 'refusal' });
  const incomplete = isRecord(response.incomplete_details) ? response.incomplete_details : {};
  const finishReason = mapResponsesFinishReason(
    status,
    typeof incomplete.reason === 'string' ? incomplete.reason : undefined,
    toolCalls.length > 0,
  );
  if (finishReason.unified === 'content_filter') {
    throw fail(FailureClass.contentPolicy, 'stopped by the content filter', {
      usage,
      providerCode: 'content_filter',
    });
  }
  return {
    text,
    toolCalls,
    ...(reasoning.length > 0 ? { reasoning } : {}),
    finishReason,
    usage,
    provider: context.provider,
    model: typeof response.model === 'string' && response.model !== '' ? response.model : context.model,
    requestId: context.requestId,
  };
}

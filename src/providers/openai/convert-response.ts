// Turns an OpenAI chat completion (or an accumulated stream) into a GenerationResult. Pure; worker side.
import { FailureClass } from '../../config/failure-class';
import { isRecord, tokenCount } from '../json-value';
import { answerFailure } from '../provider-failure';
import type { ReasoningPart } from '../../config/request';
import type { GenerationResult, ToolCall, Usage } from '../types';
import { mapOpenAIFinishReason } from './map-finish-reason';

export interface ResponseContext {
  /** Prefix of error messages: the configured provider name and the model, e.g. `openai gpt-4o`. */
  readonly label: string;
  readonly provider: string;
  /** The provider kind, stamped as the `origin` of reasoning parts. @default 'openai' */
  readonly kind?: 'openai' | 'openai-compatible';
  /** The model that was asked for; used when the response does not name one. */
  readonly model: string;
  readonly requestId: string | null;
}

/**
 * OpenAI's `prompt_tokens` includes cached tokens; split them out so each is priced once. OpenAI caches on its
 * own with no write price, so the cache-write counts stay absent (their default, 0). `completion_tokens` includes the reasoning tokens,
 * which `completion_tokens_details.reasoning_tokens` counts where the server says.
 */
export function convertOpenAIUsage(raw: unknown): Usage {
  if (!isRecord(raw)) return { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, raw: {} };
  const details = isRecord(raw.prompt_tokens_details) ? raw.prompt_tokens_details : {};
  const completionDetails = isRecord(raw.completion_tokens_details) ? raw.completion_tokens_details : {};
  return usageWithCachedPart(
    {
      input: raw.prompt_tokens,
      cached: details.cached_tokens,
      output: raw.completion_tokens,
      reasoning: completionDetails.reasoning_tokens,
    },
    raw,
  );
}

/**
 * OpenAI's usage, whichever API reported it: the input count includes the cached tokens and the output count the
 * reasoning tokens. The cached part is split out so each token is priced once; counts that do not fit (more
 * cached than input) are capped.
 */
export function usageWithCachedPart(
  counts: {
    readonly input: unknown;
    readonly cached: unknown;
    readonly output: unknown;
    readonly reasoning: unknown;
  },
  raw: Record<string, unknown>,
): Usage {
  const input = tokenCount(counts.input);
  const cachedInputTokens = Math.min(tokenCount(counts.cached), input);
  const outputTokens = tokenCount(counts.output);
  return {
    inputTokens: input - cachedInputTokens,
    cachedInputTokens,
    outputTokens,
    ...(typeof counts.reasoning === 'number'
      ? { reasoningTokens: Math.min(tokenCount(counts.reasoning), outputTokens) }
      : {}),
    raw,
  };
}

/**
 * The reasoning text a compatible server sends beside the answer: `reasoning_content` (DeepSeek, vLLM, Qwen) or
 * `reasoning` (OpenRouter). OpenAI itself returns none in Chat Completions. Works on a message or a stream delta.
 */
export function reasoningTextOf(message: Record<string, unknown>): string | undefined {
  if (typeof message.reasoning_content === 'string') return message.reasoning_content;
  if (typeof message.reasoning === 'string') return message.reasoning;
  return undefined;
}

/** The answer's reasoning as one part stamped with its origin; none when there was no reasoning text. */
function convertReasoning(
  message: Record<string, unknown>,
  origin: 'openai' | 'openai-compatible',
): ReasoningPart[] {
  const text = reasoningTextOf(message);
  return text === undefined || text === '' ? [] : [{ type: 'reasoning', text, origin }];
}

function convertToolCalls(raw: unknown): ToolCall[] {
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((call: unknown) => {
    if (!isRecord(call) || !isRecord(call.function) || typeof call.function.name !== 'string') return [];
    return [
      {
        id: typeof call.id === 'string' ? call.id : '',
        name: call.function.name,
        arguments: typeof call.function.arguments === 'string' ? call.function.arguments : '',
      },
    ];
  });
}

/**
 * Normalizes a completion. Throws a ProviderError for an answer that is not one: no choices
 * (`invalid_response`), a refusal (`refused`) or a content-filter stop (`content_policy`) — a 200
 * that routing must still treat as a failure, with the request id and billed usage kept.
 */
export function convertOpenAIResponse(completion: unknown, context: ResponseContext): GenerationResult {
  const fail = answerFailure(context.label, context.requestId);

  if (!isRecord(completion) || !Array.isArray(completion.choices)) {
    throw fail(FailureClass.invalidResponse, 'response has no choices array');
  }
  const usage = convertOpenAIUsage(completion.usage);
  const choice: unknown = completion.choices[0];
  if (!isRecord(choice) || !isRecord(choice.message)) {
    throw fail(FailureClass.invalidResponse, 'response has no choices', { usage });
  }
  const message = choice.message;
  if (typeof message.refusal === 'string' && message.refusal !== '') {
    throw fail(FailureClass.refused, 'the model refused', { usage, providerCode: 'refusal' });
  }
  const finishReason = mapOpenAIFinishReason(
    typeof choice.finish_reason === 'string' ? choice.finish_reason : null,
  );
  if (finishReason.unified === 'content_filter') {
    throw fail(FailureClass.contentPolicy, 'stopped by the content filter', {
      usage,
      providerCode: 'content_filter',
    });
  }
  const reasoning = convertReasoning(message, context.kind ?? 'openai');
  return {
    text: typeof message.content === 'string' ? message.content : '',
    toolCalls: convertToolCalls(message.tool_calls),
    ...(reasoning.length > 0 ? { reasoning } : {}),
    finishReason,
    usage,
    provider: context.provider,
    model: typeof completion.model === 'string' && completion.model !== '' ? completion.model : context.model,
    requestId: context.requestId,
  };
}

// Turns an OpenAI chat completion (or an accumulated stream) into a GenerationResult. Pure; worker side.
import { FailureClass } from '../../routing/failure-class';
import { isRecord, tokenCount } from '../json-value';
import { providerFailure } from '../provider-failure';
import type { GenerationResult, ToolCall, Usage } from '../types';
import { mapOpenAIFinishReason } from './map-finish-reason';

export interface ResponseContext {
  /** Prefix of error messages: the configured provider name and the model, e.g. `openai gpt-4o`. */
  readonly label: string;
  readonly provider: string;
  /** The model that was asked for; used when the response does not name one. */
  readonly model: string;
  readonly requestId: string | null;
}

/** OpenAI's `prompt_tokens` includes cached tokens; split them out so each is priced once. */
export function convertOpenAIUsage(raw: unknown): Usage {
  if (!isRecord(raw)) return { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, raw: {} };
  const details = isRecord(raw.prompt_tokens_details) ? raw.prompt_tokens_details : {};
  const promptTokens = tokenCount(raw.prompt_tokens);
  const cachedInputTokens = Math.min(tokenCount(details.cached_tokens), promptTokens);
  return {
    inputTokens: promptTokens - cachedInputTokens,
    cachedInputTokens,
    outputTokens: tokenCount(raw.completion_tokens),
    raw,
  };
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
  return {
    text: typeof message.content === 'string' ? message.content : '',
    toolCalls: convertToolCalls(message.tool_calls),
    finishReason,
    usage,
    provider: context.provider,
    model: typeof completion.model === 'string' && completion.model !== '' ? completion.model : context.model,
    requestId: context.requestId,
  };
}

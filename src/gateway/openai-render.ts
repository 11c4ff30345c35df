// A routed call's answer in OpenAI Chat Completions shapes: the message, usage, finish reason, and the stream's chunks. Node side.
import type { OutputDelta, UnifiedFinishReason } from '../providers/types';
import type { GatewayError } from './gateway-error';
import type { RoutingSummary } from './routing-summary';
import { routingBody, sseEvent, type Answer, type ResponseIdentity, type StreamRenderer } from './surface';

export const FINISH_REASONS: Readonly<Record<UnifiedFinishReason, string>> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool_calls',
  content_filter: 'content_filter',
  refusal: 'content_filter',
  other: 'stop',
};

/**
 * OpenAI's usage: `prompt_tokens` is the whole prompt (cache reads and cache writes included), the details say
 * how much of it was read from the cache and how much of the completion was reasoning (when the provider said).
 */
export function usageOf(answer: Answer) {
  const { inputTokens, cachedInputTokens, outputTokens, reasoningTokens } = answer.usage;
  const cacheWrites = (answer.usage.cacheWriteInputTokens ?? 0) + (answer.usage.cacheWrite1hInputTokens ?? 0);
  const promptTokens = inputTokens + cachedInputTokens + cacheWrites;
  return {
    prompt_tokens: promptTokens,
    completion_tokens: outputTokens,
    total_tokens: promptTokens + outputTokens,
    prompt_tokens_details: { cached_tokens: cachedInputTokens },
    ...(reasoningTokens !== undefined
      ? { completion_tokens_details: { reasoning_tokens: reasoningTokens } }
      : {}),
  };
}

/**
 * The answer's reasoning as one text, the `reasoning_content` extension that DeepSeek, vLLM and OpenRouter
 * clients read; undefined when it has none. Signatures and redacted data have no place in this format.
 */
export function reasoningContentOf(answer: Answer): string | undefined {
  const texts = (answer.reasoning ?? []).map((part) => part.text).filter((text) => text !== '');
  return texts.length > 0 ? texts.join('\n\n') : undefined;
}

/** The `chat.completion` body of an answer. */
export function chatCompletionOf(answer: Answer, identity: ResponseIdentity, routing: RoutingSummary) {
  const toolCalls = answer.toolCalls.map((call) => ({
    id: call.id,
    type: 'function',
    function: { name: call.name, arguments: call.arguments },
  }));
  const reasoning = reasoningContentOf(answer);
  return {
    id: identity.id,
    object: 'chat.completion',
    created: identity.created,
    model: identity.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: answer.text === '' && toolCalls.length > 0 ? null : answer.text,
          refusal: null,
          ...(reasoning !== undefined ? { reasoning_content: reasoning } : {}),
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: FINISH_REASONS[answer.finishReason.unified],
      },
    ],
    usage: usageOf(answer),
    switchyard: routingBody(routing),
  };
}

/**
 * The stream's chunks: a role chunk, one chunk per piece (text as `content`, reasoning as `reasoning_content`,
 * tool calls by `index` with id, type and name on a call's first piece), the finish chunk carrying the routing
 * metadata, the usage chunk when asked for, and `[DONE]`.
 */
export class OpenAIStreamRenderer implements StreamRenderer {
  private identity: ResponseIdentity | undefined;
  private readonly startedTools = new Set<number>();
  /** Reasoning parts that already wrote text, so the next one starts on a new paragraph as in the answer. */
  private readonly startedReasoning = new Set<number>();

  constructor(
    private readonly includeUsage: boolean,
    private readonly errorBody: (error: GatewayError, routing: RoutingSummary) => unknown,
  ) {}

  private chunk(delta: Record<string, unknown>, finishReason: string | null = null, extra = {}): string {
    return sseEvent({
      id: this.identity?.id,
      object: 'chat.completion.chunk',
      created: this.identity?.created,
      model: this.identity?.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      ...extra,
    });
  }

  start(identity: ResponseIdentity): string {
    this.identity = identity;
    return this.chunk({ role: 'assistant', content: '' });
  }

  delta(delta: OutputDelta): string {
    switch (delta.type) {
      case 'text':
        return this.chunk({ content: delta.text });
      case 'tool_call': {
        const first = !this.startedTools.has(delta.index);
        this.startedTools.add(delta.index);
        return this.chunk({
          tool_calls: [
            {
              index: delta.index,
              ...(first ? { id: delta.id ?? `call_${delta.index}`, type: 'function' } : {}),
              function: { ...(first ? { name: delta.name ?? '' } : {}), arguments: delta.arguments },
            },
          ],
        });
      }
      case 'reasoning': {
        // Signatures and redacted data have no place in this format: only the text is streamed.
        if (delta.text === '') return '';
        const separator =
          this.startedReasoning.size > 0 && !this.startedReasoning.has(delta.index) ? '\n\n' : '';
        this.startedReasoning.add(delta.index);
        return this.chunk({ reasoning_content: separator + delta.text });
      }
      default:
        return delta satisfies never;
    }
  }

  finish(answer: Answer, routing: RoutingSummary): string {
    // The routing metadata rides on the finish chunk, which every client reads: a chunk of its own with no
    // choices would break clients that index choices[0].
    const switchyard = routingBody(routing);
    let text = this.chunk({}, FINISH_REASONS[answer.finishReason.unified], { switchyard });
    if (this.includeUsage) {
      text += sseEvent({
        id: this.identity?.id,
        object: 'chat.completion.chunk',
        created: this.identity?.created,
        model: this.identity?.model,
        choices: [],
        usage: usageOf(answer),
        switchyard,
      });
    }
    return text + sseEvent('[DONE]');
  }

  error(error: GatewayError, routing: RoutingSummary): string {
    // OpenAI's own mid-stream error: a data line holding `error`; both SDKs throw it as an APIError.
    return sseEvent(this.errorBody(error, routing));
  }
}

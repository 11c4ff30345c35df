// Turns a neutral GenerationRequest into an OpenAI Chat Completions request body. Pure; worker side.
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { GenerationRequest } from '../../config/request';

/** Which field carries the output bound; see {@link maxTokensFieldFor}. */
export type MaxTokensField = 'max_completion_tokens' | 'max_tokens';

/**
 * OpenAI itself deprecated `max_tokens` for Chat Completions and its reasoning models reject it, so kind
 * `openai` sends `max_completion_tokens`. Many OpenAI-compatible servers (older vLLM, llama.cpp, some
 * hosted gateways) know only `max_tokens` and silently ignore the newer field — the bound would not
 * hold and the budget reservation could be exceeded — so kind `openai-compatible` sends `max_tokens`.
 */
export function maxTokensFieldFor(kind: 'openai' | 'openai-compatible'): MaxTokensField {
  return kind === 'openai' ? 'max_completion_tokens' : 'max_tokens';
}

export function convertRequest(
  model: string,
  request: GenerationRequest,
  maxTokensField: MaxTokensField,
): ChatCompletionCreateParamsNonStreaming {
  // Chat Completions has no separate system field: the system prompt is the first message.
  const messages: ChatCompletionMessageParam[] = [
    ...(request.system !== undefined ? [{ role: 'system' as const, content: request.system }] : []),
    ...request.messages.map((message) => ({ role: message.role, content: message.content })),
  ];
  return {
    model,
    messages,
    [maxTokensField]: request.maxOutputTokens,
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.tools && request.tools.length > 0
      ? {
          tools: request.tools.map((tool) => ({
            type: 'function' as const,
            function: {
              name: tool.name,
              ...(tool.description !== undefined ? { description: tool.description } : {}),
              parameters: tool.parameters,
            },
          })),
        }
      : {}),
    ...(request.jsonSchema !== undefined
      ? {
          response_format: {
            type: 'json_schema',
            json_schema: { name: 'response', schema: request.jsonSchema },
          },
        }
      : {}),
  };
}

// Turns a neutral GenerationRequest into an Anthropic Messages request body. Pure; worker side.
import type { MessageCreateParamsNonStreaming, Tool } from '@anthropic-ai/sdk/resources/messages';
import type { GenerationRequest } from '../../config/request';

export function convertRequest(model: string, request: GenerationRequest): MessageCreateParamsNonStreaming {
  return {
    model,
    // Required by the API, and the budget bound of the attempt relies on it (DESIGN §5).
    max_tokens: request.maxOutputTokens,
    messages: request.messages.map((message) => ({ role: message.role, content: message.content })),
    // Anthropic takes the system prompt as a top-level field, not as a message.
    ...(request.system !== undefined ? { system: request.system } : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.tools && request.tools.length > 0
      ? {
          tools: request.tools.map(
            (tool): Tool => ({
              name: tool.name,
              ...(tool.description !== undefined ? { description: tool.description } : {}),
              // The neutral schema is any JSON Schema object; Anthropic requires `type: "object"`.
              input_schema: { ...tool.parameters, type: 'object' },
            }),
          ),
        }
      : {}),
    ...(request.jsonSchema !== undefined
      ? { output_config: { format: { type: 'json_schema', schema: request.jsonSchema } } }
      : {}),
  };
}

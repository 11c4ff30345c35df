// Turns a neutral GenerationRequest into an Anthropic Messages request body, or refuses it before sending. Pure; worker side.
import type {
  MessageCreateParamsNonStreaming,
  TextBlockParam,
  Tool,
  ToolChoice,
} from '@anthropic-ai/sdk/resources/messages';
import type { GenerationRequest } from '../../config/request';
import { cacheControl, convertMessages, textBlock } from './convert-messages';
import { requestRefusal, type RequestRefusal } from '../refuse-request';
import { optionMismatch } from '../../routing/kind-options';
import { thinkingConfig } from './thinking-budget';

function convertSystem(
  system: GenerationRequest['system'],
  refuse: RequestRefusal,
): string | TextBlockParam[] | undefined {
  if (system === undefined || typeof system === 'string') return system;
  return system.flatMap((part, index) => {
    const block = textBlock(part, `system[${index}]`, refuse);
    return block === undefined ? [] : [block];
  });
}

function convertTools(tools: GenerationRequest['tools']): Tool[] | undefined {
  if (tools === undefined || tools.length === 0) return undefined;
  return tools.map(
    (tool): Tool => ({
      name: tool.name,
      ...(tool.description !== undefined ? { description: tool.description } : {}),
      // The neutral schema is any JSON Schema object; Anthropic requires `type: "object"`.
      input_schema: { ...tool.parameters, type: 'object' },
      ...(tool.strict !== undefined ? { strict: tool.strict } : {}),
      ...cacheControl(tool.cache),
    }),
  );
}

/**
 * `tool_choice`. Without tools, `auto`/`none` mean nothing and are not sent (a forced call without its tool never
 * gets here: the request schema refuses it). `parallelToolCalls: false` is Anthropic's `disable_parallel_tool_use`.
 */
function convertToolChoice(request: GenerationRequest): ToolChoice | undefined {
  const hasTools = (request.tools?.length ?? 0) > 0;
  const choice = request.toolChoice ?? 'auto';
  if (!hasTools) return undefined;
  const serial = request.parallelToolCalls === false ? { disable_parallel_tool_use: true } : {};
  if (choice === 'none') return { type: 'none' };
  // Anthropic's default is auto: send it only to carry disable_parallel_tool_use.
  if (choice === 'auto') return request.parallelToolCalls === false ? { type: 'auto', ...serial } : undefined;
  if (choice === 'required') return { type: 'any', ...serial };
  return { type: 'tool', name: choice.name, ...serial };
}

/** Options Anthropic cannot honour as asked (the rule the route walk skips by): refused here as the last guard. */
function checkOptions(request: GenerationRequest, refuse: RequestRefusal): void {
  const mismatch = optionMismatch('anthropic', request);
  if (mismatch) throw refuse(mismatch.field, mismatch.reason);
}

/**
 * The Messages body for `request`. Throws an `invalid_request` ProviderError (nothing sent) for what Anthropic
 * cannot honour as asked.
 * @param label names the provider and model in refusals. @default `anthropic <model>`
 */
export function convertRequest(
  model: string,
  request: GenerationRequest,
  label = `anthropic ${model}`,
): MessageCreateParamsNonStreaming {
  const refuse = requestRefusal(label);
  checkOptions(request, refuse);
  const system = convertSystem(request.system, refuse);
  const tools = convertTools(request.tools);
  const toolChoice = convertToolChoice(request);
  return {
    model,
    // Required by the API, and the budget bound of the attempt relies on it.
    max_tokens: request.maxOutputTokens,
    messages: convertMessages(request.messages, refuse),
    // Anthropic takes the system prompt as a top-level field, not as a message.
    ...(system !== undefined && system.length > 0 ? { system } : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.topP !== undefined ? { top_p: request.topP } : {}),
    ...(request.topK !== undefined ? { top_k: request.topK } : {}),
    ...(request.stopSequences !== undefined && request.stopSequences.length > 0
      ? { stop_sequences: request.stopSequences }
      : {}),
    ...(request.reasoning !== undefined
      ? { thinking: thinkingConfig(request.reasoning, request.maxOutputTokens, refuse) }
      : {}),
    ...(tools !== undefined ? { tools } : {}),
    ...(toolChoice !== undefined ? { tool_choice: toolChoice } : {}),
    ...(request.jsonSchema !== undefined
      ? { output_config: { format: { type: 'json_schema', schema: request.jsonSchema } } }
      : {}),
  };
}

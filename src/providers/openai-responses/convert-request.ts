// Turns a neutral GenerationRequest into a stateless Responses API request body. Pure; worker side.
import type {
  FunctionTool,
  ResponseCreateParamsNonStreaming,
  ResponseIncludable,
  ToolChoiceFunction,
  ToolChoiceOptions,
} from 'openai/resources/responses/responses';
import { systemText } from '../../config/conversation';
import type { GenerationRequest } from '../../config/request';
import { optionMismatch } from '../../routing/kind-options';
import { reasoningEffortFor } from '../openai/convert-request';
import { requestRefusal, type RequestRefusal } from '../refuse-request';
import { convertInput, type InputOptions, type ResponsesInputItem } from './convert-input';

/**
 * The body sent: the SDK's, with `input` items of the shapes an earlier answer is sent back in, and always
 * `store: false`. Switchyard keeps the conversation itself; OpenAI keeps nothing, so no stored item, id or response
 * is ever referred to (`previous_response_id` is never sent).
 */
export type ResponsesRequestBody = Omit<ResponseCreateParamsNonStreaming, 'input' | 'store'> & {
  readonly input: ResponsesInputItem[];
  readonly store: false;
};

/**
 * Asks for each reasoning item's encrypted content: with `store: false` it is the only way the reasoning can go
 * back in the next turn (a tool loop, or another target of this kind after a failover).
 */
export const ENCRYPTED_REASONING: ResponseIncludable = 'reasoning.encrypted_content';

/**
 * `tool_choice` only with tools (OpenAI refuses it without; `auto` and `none` then mean what the request does
 * anyway; a forced call without its tool never gets here: the request schema refuses it).
 */
function convertToolChoice(request: GenerationRequest): ToolChoiceOptions | ToolChoiceFunction | undefined {
  const choice = request.toolChoice;
  if (choice === undefined || (request.tools ?? []).length === 0) return undefined;
  if (typeof choice === 'string') return choice;
  return { type: 'function', name: choice.name };
}

/**
 * Tools as `function` tools. `strict` is sent always, `false` when the tool does not ask: left out, the Responses
 * API makes a schema strict where it can (every property then required), unlike Chat Completions, so the same
 * tool would be called differently on the two OpenAI kinds. A tool's `cache` is a known no-op: OpenAI caches
 * prompt prefixes by itself.
 */
function convertTools(request: GenerationRequest): FunctionTool[] {
  return (request.tools ?? []).map((tool) => ({
    type: 'function',
    name: tool.name,
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    parameters: tool.parameters,
    strict: tool.strict ?? false,
  }));
}

/**
 * Converts `request` for the Responses API. Throws an `invalid_request` ProviderError with `requestSent: false`
 * (from `refuse`) for what the format cannot honour, before anything is sent.
 *
 * A reasoning `budgetTokens` is sent as the nearest effort, as for Chat Completions (see `reasoningEffortFor`):
 * the API has efforts only. The budget's purpose, a bound on what the attempt costs, still holds, because the
 * reasoning counts towards `max_output_tokens`, which is always sent; refusing it instead would pass every
 * OpenAI target over for a request that names a budget because Anthropic wants one.
 * @param refuse builds the refusal error @default errors labelled `openai-responses <model>`
 * @param options what the model takes @default a model that reasons
 */
export function convertRequest(
  model: string,
  request: GenerationRequest,
  refuse: RequestRefusal = requestRefusal(`openai-responses ${model}`),
  options: InputOptions = {},
): ResponsesRequestBody {
  // The kind's own limits (the rule the route walk skips by), refused here as the last guard.
  const mismatch = optionMismatch('openai-responses', request);
  if (mismatch) throw refuse(mismatch.field, mismatch.reason);
  const tools = convertTools(request);
  const toolChoice = convertToolChoice(request);
  const instructions = systemText(request.system);
  return {
    model,
    store: false,
    // OpenAI refuses the encrypted content for a model that does not reason.
    ...(options.reasoningItems !== false ? { include: [ENCRYPTED_REASONING] } : {}),
    // A system prompt's parts are one text: `instructions` is a string (their `cache` is a no-op, as above).
    ...(instructions !== undefined ? { instructions } : {}),
    input: convertInput(request.messages, refuse, options),
    max_output_tokens: request.maxOutputTokens,
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.topP !== undefined ? { top_p: request.topP } : {}),
    ...(tools.length > 0 ? { tools } : {}),
    ...(toolChoice !== undefined ? { tool_choice: toolChoice } : {}),
    // With no tools there are no calls to run in parallel; sent only with them, as for Chat Completions.
    ...(tools.length > 0 && request.parallelToolCalls !== undefined
      ? { parallel_tool_calls: request.parallelToolCalls }
      : {}),
    // No reasoning summary is asked for: the request has no such option, and OpenAI refuses summaries to an
    // organization until it is verified. The encrypted content carries the reasoning whatever the summary.
    ...(request.reasoning !== undefined
      ? { reasoning: { effort: reasoningEffortFor(request.reasoning) } }
      : {}),
    ...(request.jsonSchema !== undefined
      ? { text: { format: { type: 'json_schema', name: 'response', schema: request.jsonSchema } } }
      : {}),
  };
}

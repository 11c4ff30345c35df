// An OpenAI Chat Completions request → the neutral request of a routed call, refusing what it cannot honour. Node side.
import { z } from 'zod';
import type { GenerationRequestInput, Tool, ToolChoice } from '../config/request';
import { convertMessages } from './openai-parse-messages';
import { checkField, fieldPath, handledFields, invalidField } from './parse-body';
import { checkedToolChoice, toolChoiceWord } from './tool-choice';
import { OPENAI_SHARED_IGNORED_FIELDS, ServiceTierSchema } from './openai-common-fields';
import type { SurfaceRequest } from './surface';

/**
 * Fields the gateway accepts and ignores, each with why ignoring it changes neither what the call means nor
 * what it costs. Their values are still checked (a value that would change either is refused by name). Any
 * other field the gateway does not handle is refused by name.
 */
export const OPENAI_IGNORED_FIELDS: Readonly<Record<string, string>> = {
  ...OPENAI_SHARED_IGNORED_FIELDS,
  metadata: 'tags for stored completions; the routed call keeps its own record',
  store: 'whether OpenAI keeps the completion for its dashboard; the routed call keeps its own record',
  logprobs: 'false asks for nothing (true is refused)',
  frequency_penalty: '0 is no penalty (any other value is refused)',
  presence_penalty: '0 is no penalty (any other value is refused)',
  modalities: '["text"] is what every answer is (audio is refused)',
  'stream_options.include_obfuscation': 'padding against side channels; it changes no token',
  'messages.*.reasoning_content':
    'an assistant turn sent back with its reasoning: no Chat Completions model takes it as input, and a client ' +
    'cannot vouch for which provider wrote it, so it is dropped',
};

/** Fields OpenAI defines that the gateway refuses whenever they are set (null is not set), with why. */
const REFUSED_FIELDS: Readonly<Record<string, string>> = {
  audio: 'audio output cannot be routed',
  prediction: 'predicted outputs cannot be routed',
  web_search_options: 'web search runs at one provider and cannot be routed',
  logit_bias: 'token biases are tokenizer-specific and cannot be routed',
  top_logprobs: 'log probabilities cannot be routed',
  functions: 'the deprecated "functions" cannot be routed; use "tools"',
  function_call: 'the deprecated "function_call" cannot be routed; use "tool_choice"',
  verbosity: 'a verbosity setting cannot be routed',
  prompt_cache_retention: 'a provider cache retention cannot be routed',
};

const zeroOnly = z
  .number()
  .refine((value) => value === 0, 'changes the answer and cannot be routed; only 0 is accepted')
  .nullish();

const FunctionToolSchema = z.strictObject({
  type: z.literal('function'),
  function: z.strictObject({
    name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'tool names are 1-64 letters, digits, _ or -'),
    description: z.string().nullish(),
    parameters: z.record(z.string(), z.unknown()).nullish(),
    strict: z.boolean().nullish(),
  }),
});

const ChatRequestSchema = z.strictObject({
  /** A route name; absent for the default route. */
  model: z.string().min(1).optional(),
  messages: z.array(z.unknown()).min(1, 'at least one message is required'),
  max_tokens: z.number().int().positive().max(1_000_000).nullish(),
  max_completion_tokens: z.number().int().positive().max(1_000_000).nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  seed: z.number().int().nullish(),
  stop: z.union([z.string(), z.array(z.string()).max(16)]).nullish(),
  stream: z.boolean().nullish(),
  stream_options: z
    .strictObject({ include_usage: z.boolean().optional(), include_obfuscation: z.boolean().optional() })
    .nullish(),
  n: z.number().int().nullish(),
  tools: z.array(z.unknown()).nullish(),
  tool_choice: z.unknown().optional(),
  parallel_tool_calls: z.boolean().nullish(),
  reasoning_effort: z.string().nullish(),
  response_format: z
    .discriminatedUnion('type', [
      z.strictObject({ type: z.literal('text') }),
      z.strictObject({ type: z.literal('json_object') }),
      z.strictObject({
        type: z.literal('json_schema'),
        json_schema: z.strictObject({
          name: z.string(),
          description: z.string().optional(),
          schema: z.record(z.string(), z.unknown()).optional(),
          strict: z.boolean().nullish(),
        }),
      }),
    ])
    .nullish(),
  // Accepted and ignored (OPENAI_IGNORED_FIELDS); values that would matter are refused.
  user: z.string().nullish(),
  safety_identifier: z.string().nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
  store: z.boolean().nullish(),
  prompt_cache_key: z.string().nullish(),
  service_tier: ServiceTierSchema,
  logprobs: z
    .boolean()
    .refine((value) => !value, 'log probabilities cannot be routed')
    .nullish(),
  frequency_penalty: zeroOnly,
  presence_penalty: zeroOnly,
  modalities: z
    .array(z.string())
    .refine(
      (modalities) => modalities.every((modality) => modality === 'text'),
      'only text output can be routed',
    )
    .nullish(),
});
type ChatRequest = z.infer<typeof ChatRequestSchema>;

const HANDLED_FIELDS = new Set(Object.keys(ChatRequestSchema.shape));

function convertTools(tools: readonly unknown[]): Tool[] {
  return tools.map((raw, index) => {
    const path = fieldPath('tools', index);
    const type = checkField(z.looseObject({ type: z.unknown() }), raw, path).type;
    if (type !== 'function') {
      throw invalidField(fieldPath(path, 'type'), `only function tools can be routed, not "${String(type)}"`);
    }
    const tool = checkField(FunctionToolSchema, raw, path).function;
    return {
      name: tool.name,
      ...(typeof tool.description === 'string' ? { description: tool.description } : {}),
      // OpenAI reads a missing schema as "no arguments".
      parameters: tool.parameters ?? { type: 'object', properties: {} },
      ...(typeof tool.strict === 'boolean' ? { strict: tool.strict } : {}),
    };
  });
}

const NamedToolChoiceSchema = z.strictObject({
  type: z.literal('function'),
  function: z.strictObject({ name: z.string().min(1) }),
});

function convertToolChoice(choice: unknown, tools: readonly Tool[]): ToolChoice | undefined {
  if (choice === undefined || choice === null) return undefined;
  if (typeof choice === 'string')
    return checkedToolChoice(toolChoiceWord(choice), tools, 'tool_choice.function.name');
  const type = checkField(z.looseObject({ type: z.unknown() }), choice, 'tool_choice').type;
  if (type !== 'function') {
    throw invalidField('tool_choice.type', `only a function can be chosen, not "${String(type)}"`);
  }
  const name = checkField(NamedToolChoiceSchema, choice, 'tool_choice').function.name;
  return checkedToolChoice({ type: 'tool', name }, tools, 'tool_choice.function.name');
}

const REASONING_EFFORTS = ['minimal', 'low', 'medium', 'high'] as const;

function convertReasoningEffort(effort: string | null | undefined): GenerationRequestInput['reasoning'] {
  if (effort === undefined || effort === null) return undefined;
  const known = REASONING_EFFORTS.find((candidate) => candidate === effort);
  if (known === undefined) {
    // "none" and "xhigh" exist at OpenAI only; another provider has nothing that means the same.
    throw invalidField('reasoning_effort', `must be one of ${REASONING_EFFORTS.join(', ')}`);
  }
  return { effort: known };
}

function convertResponseFormat(format: ChatRequest['response_format']): Record<string, unknown> | undefined {
  if (!format || format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'object' };
  const schema = format.json_schema.schema;
  if (!schema)
    throw invalidField('response_format.json_schema.schema', 'a json_schema response format needs a schema');
  return schema;
}

function convertStop(stop: ChatRequest['stop']): string[] | undefined {
  if (stop === undefined || stop === null) return undefined;
  const sequences = typeof stop === 'string' ? [stop] : stop;
  const empty = sequences.indexOf('');
  if (empty >= 0) {
    throw invalidField(
      typeof stop === 'string' ? 'stop' : `stop.${empty}`,
      'a stop sequence must not be empty',
    );
  }
  return sequences.length > 0 ? sequences : undefined;
}

export function parseOpenAIRequest(raw: unknown): SurfaceRequest {
  const body = checkField(ChatRequestSchema, handledFields(raw, HANDLED_FIELDS, REFUSED_FIELDS), '');
  if (body.n !== undefined && body.n !== null && body.n !== 1)
    throw invalidField('n', 'only one choice (n: 1) is supported');
  const { system, messages } = convertMessages(body.messages);
  const tools = body.tools ? convertTools(body.tools) : [];
  const toolChoice = convertToolChoice(body.tool_choice, tools);
  const jsonSchema = convertResponseFormat(body.response_format);
  const stopSequences = convertStop(body.stop);
  const reasoning = convertReasoningEffort(body.reasoning_effort);
  const maxOutputTokens = body.max_completion_tokens ?? body.max_tokens ?? undefined;
  const request: GenerationRequestInput = {
    messages,
    ...(system !== undefined ? { system } : {}),
    ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
    ...(typeof body.temperature === 'number' ? { temperature: body.temperature } : {}),
    ...(typeof body.top_p === 'number' ? { topP: body.top_p } : {}),
    ...(typeof body.seed === 'number' ? { seed: body.seed } : {}),
    ...(stopSequences ? { stopSequences } : {}),
    ...(jsonSchema ? { jsonSchema } : {}),
    ...(tools.length > 0 ? { tools } : {}),
    ...(toolChoice !== undefined ? { toolChoice } : {}),
    ...(typeof body.parallel_tool_calls === 'boolean' ? { parallelToolCalls: body.parallel_tool_calls } : {}),
    ...(reasoning ? { reasoning } : {}),
  };
  return {
    ...(body.model !== undefined ? { route: body.model } : {}),
    request,
    stream: body.stream === true,
    includeUsage: body.stream_options?.include_usage === true,
  };
}

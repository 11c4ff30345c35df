// An Anthropic Messages request → the neutral request of a routed call, refusing what it cannot honour. Node side.
import { z } from 'zod';
import type { GenerationRequestInput, TextPart, Tool, ToolChoice } from '../config/request';
import { CacheControlSchema, cacheOf, convertMessages, TextBlockSchema } from './anthropic-parse-content';
import { blockType, checkField, fieldPath, handledFields, invalidField } from './parse-body';
import type { SurfaceRequest } from './surface';

/**
 * Top-level fields the gateway accepts and ignores, each with why ignoring it changes neither what the call
 * means nor what it costs. Their values are still checked. Any other field the gateway does not handle is
 * refused by name.
 */
export const ANTHROPIC_IGNORED_FIELDS: Readonly<Record<string, string>> = {
  metadata: "`user_id` feeds Anthropic's abuse detection; the gateway key already names the caller",
  service_tier: "`auto` and `standard_only` both leave the choice to the provider's account",
};

/** A message for a discriminated union whose `type` matched none of its branches. */
function unionMessage(message: string) {
  return (issue: { code?: string }) => (issue.code === 'invalid_union' ? message : undefined);
}

const MetadataSchema = z.strictObject({ user_id: z.string().max(256).nullish() });

const ToolChoiceSchema = z.discriminatedUnion(
  'type',
  [
    z.strictObject({ type: z.literal('auto'), disable_parallel_tool_use: z.boolean().optional() }),
    z.strictObject({ type: z.literal('any'), disable_parallel_tool_use: z.boolean().optional() }),
    z.strictObject({ type: z.literal('none') }),
    z.strictObject({
      type: z.literal('tool'),
      name: z.string().min(1),
      disable_parallel_tool_use: z.boolean().optional(),
    }),
  ],
  { error: unionMessage('must be "auto", "any", "none" or "tool"') },
);

const ThinkingSchema = z.discriminatedUnion(
  'type',
  [
    z.strictObject({ type: z.literal('enabled'), budget_tokens: z.number().int().min(1024).max(1_000_000) }),
    z.strictObject({ type: z.literal('disabled') }),
  ],
  { error: unionMessage('must be "enabled" (with budget_tokens) or "disabled"') },
);

const OutputConfigSchema = z.strictObject({
  format: z
    .strictObject({ type: z.literal('json_schema'), schema: z.record(z.string(), z.unknown()) })
    .nullish(),
});

const CustomToolSchema = z.strictObject({
  type: z.literal('custom').nullish(),
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'tool names are 1-64 letters, digits, _ or -'),
  description: z.string().optional(),
  input_schema: z.record(z.string(), z.unknown()),
  strict: z.boolean().optional(),
  cache_control: CacheControlSchema,
});

const MessagesRequestSchema = z.strictObject({
  /** A route name; absent for the default route. */
  model: z.string().min(1).optional(),
  max_tokens: z.number().int().positive().max(1_000_000).optional(),
  messages: z.array(z.unknown()).min(1, 'at least one message is required'),
  system: z.union([z.string(), z.array(z.unknown())]).optional(),
  temperature: z.number().min(0).max(1).optional(),
  top_p: z.number().min(0).max(1).optional(),
  top_k: z.number().int().positive().optional(),
  stream: z.boolean().optional(),
  stop_sequences: z.array(z.string().min(1)).max(16).optional(),
  tools: z.array(z.unknown()).optional(),
  tool_choice: ToolChoiceSchema.optional(),
  thinking: ThinkingSchema.optional(),
  output_config: OutputConfigSchema.optional(),
  metadata: MetadataSchema.optional(),
  service_tier: z.enum(['auto', 'standard_only']).optional(),
});

const HANDLED_FIELDS = new Set(Object.keys(MessagesRequestSchema.shape));

function convertSystem(system: string | unknown[] | undefined): string | TextPart[] | undefined {
  if (system === undefined || system === '') return undefined;
  if (typeof system === 'string') return system;
  const parts = system.map((block, index) => {
    const path = fieldPath('system', index);
    const type = blockType(block, path);
    if (type !== 'text') throw invalidField(fieldPath(path, 'type'), 'system blocks must be text');
    const text = checkField(TextBlockSchema, block, path);
    return { type: 'text' as const, text: text.text, ...cacheOf(text.cache_control) };
  });
  return parts.length > 0 ? parts : undefined;
}

/** Custom tools only: a server tool (web search, bash, text editor …) runs at one provider and is refused. */
function convertTools(tools: readonly unknown[]): Tool[] {
  return tools.map((raw, index) => {
    const path = fieldPath('tools', index);
    const type = checkField(z.looseObject({ type: z.unknown() }), raw, path).type;
    if (type !== undefined && type !== null && type !== 'custom') {
      throw invalidField(
        fieldPath(path, 'type'),
        `server tools ("${String(type)}") run at one provider and cannot be routed; define a custom tool`,
      );
    }
    const tool = checkField(CustomToolSchema, raw, path);
    return {
      name: tool.name,
      ...(tool.description !== undefined ? { description: tool.description } : {}),
      parameters: tool.input_schema,
      ...(tool.strict !== undefined ? { strict: tool.strict } : {}),
      ...cacheOf(tool.cache_control),
    };
  });
}

function convertToolChoice(
  choice: z.infer<typeof ToolChoiceSchema> | undefined,
  tools: readonly Tool[],
): { toolChoice?: ToolChoice; parallelToolCalls?: false } {
  if (choice === undefined) return {};
  if ((choice.type === 'any' || choice.type === 'tool') && tools.length === 0) {
    throw invalidField(
      'tool_choice',
      `"${choice.type}" forces a tool call, but the request defines no tools`,
    );
  }
  if (choice.type === 'tool' && !tools.some((tool) => tool.name === choice.name)) {
    throw invalidField('tool_choice.name', `no tool named "${choice.name}" is defined`);
  }
  const parallel = choice.type !== 'none' && choice.disable_parallel_tool_use === true;
  const toolChoice: ToolChoice =
    choice.type === 'tool'
      ? { type: 'tool', name: choice.name }
      : choice.type === 'any'
        ? 'required'
        : choice.type;
  return { toolChoice, ...(parallel ? { parallelToolCalls: false } : {}) };
}

export function parseAnthropicRequest(raw: unknown): SurfaceRequest {
  const body = checkField(MessagesRequestSchema, handledFields(raw, HANDLED_FIELDS), '');
  if (
    body.thinking?.type === 'enabled' &&
    body.max_tokens !== undefined &&
    body.thinking.budget_tokens >= body.max_tokens
  ) {
    throw invalidField('thinking.budget_tokens', 'the thinking budget must be less than max_tokens');
  }
  const thinking = body.thinking?.type === 'enabled';
  // With thinking on Anthropic takes temperature 1 only, which is what it uses anyway: clients such as Claude
  // Code send it, and passing it on would turn away the targets that refuse sampling options with reasoning.
  if (thinking && body.temperature !== undefined && body.temperature !== 1) {
    throw invalidField('temperature', 'with thinking enabled, temperature may only be 1');
  }
  const temperature = thinking ? undefined : body.temperature;
  const system = convertSystem(body.system);
  const tools = convertTools(body.tools ?? []);
  const jsonSchema = body.output_config?.format?.schema;
  const request: GenerationRequestInput = {
    messages: convertMessages(body.messages),
    ...(system !== undefined ? { system } : {}),
    ...(body.max_tokens !== undefined ? { maxOutputTokens: body.max_tokens } : {}),
    ...(temperature !== undefined ? { temperature } : {}),
    ...(body.top_p !== undefined ? { topP: body.top_p } : {}),
    ...(body.top_k !== undefined ? { topK: body.top_k } : {}),
    ...(body.stop_sequences !== undefined && body.stop_sequences.length > 0
      ? { stopSequences: body.stop_sequences }
      : {}),
    ...(jsonSchema ? { jsonSchema } : {}),
    ...(tools.length > 0 ? { tools } : {}),
    ...convertToolChoice(body.tool_choice, tools),
    ...(body.thinking?.type === 'enabled'
      ? { reasoning: { budgetTokens: body.thinking.budget_tokens } }
      : {}),
  };
  return {
    ...(body.model !== undefined ? { route: body.model } : {}),
    request,
    stream: body.stream === true,
    // Anthropic's stream always ends with its usage (message_delta).
    includeUsage: true,
  };
}

// OpenAI Responses tools, tool_choice, text.format and reasoning → the neutral request's options. Node side.
import { z } from 'zod';
import type { GenerationRequestInput, Tool, ToolChoice } from '../config/request';
import { checkField, fieldPath, invalidField } from './parse-body';
import { checkedToolChoice, toolChoiceWord } from './tool-choice';

/** Tool types OpenAI runs itself (or a client-side tool only OpenAI's models know): nothing to route them to. */
const BUILT_IN_TOOL =
  /^(web_search|file_search|computer|code_interpreter|image_generation|mcp|local_shell|shell|apply_patch|tool_search)/;

const FunctionToolSchema = z.strictObject({
  type: z.literal('function'),
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'tool names are 1-64 letters, digits, _ or -'),
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  strict: z.boolean().nullish(),
  // Loading a tool's definition later is OpenAI's tool search: false is what every target does.
  defer_loading: z
    .boolean()
    .refine((value) => !value, 'deferred tools need tool search, which runs at OpenAI only')
    .optional(),
});

/**
 * Function tools only. A tool without `strict` leaves strictness to the target (OpenAI's Responses API reads that
 * as strict, Chat Completions and Anthropic as not): send it to hold every target to the schema.
 */
export function convertTools(tools: readonly unknown[]): Tool[] {
  return tools.map((raw, index) => {
    const path = fieldPath('tools', index);
    const type = checkField(z.looseObject({ type: z.string() }), raw, path).type;
    if (type !== 'function') {
      throw invalidField(
        fieldPath(path, 'type'),
        BUILT_IN_TOOL.test(type)
          ? `${type} is a built-in tool Switchyard does not run; define function tools`
          : `"${type}" tools cannot be routed; define function tools`,
      );
    }
    const tool = checkField(FunctionToolSchema, raw, path);
    return {
      name: tool.name,
      ...(typeof tool.description === 'string' ? { description: tool.description } : {}),
      // OpenAI reads a missing schema as "no arguments".
      parameters: tool.parameters ?? { type: 'object', properties: {} },
      ...(typeof tool.strict === 'boolean' ? { strict: tool.strict } : {}),
    };
  });
}

const NamedFunctionSchema = z.strictObject({ type: z.literal('function'), name: z.string().min(1) });

export function convertToolChoice(choice: unknown, tools: readonly Tool[]): ToolChoice | undefined {
  if (choice === undefined || choice === null) return undefined;
  if (typeof choice === 'string') return checkedToolChoice(toolChoiceWord(choice), tools, 'tool_choice.name');
  const type = checkField(z.looseObject({ type: z.string() }), choice, 'tool_choice').type;
  if (type === 'allowed_tools') {
    throw invalidField(
      'tool_choice.type',
      'an allowed-tools list cannot be routed; send only the tools allowed',
    );
  }
  if (type !== 'function') {
    throw invalidField('tool_choice.type', `only a function can be chosen, not "${type}"`);
  }
  const name = checkField(NamedFunctionSchema, choice, 'tool_choice').name;
  return checkedToolChoice({ type: 'tool', name }, tools, 'tool_choice.name');
}

export const TextConfigSchema = z.strictObject({
  format: z
    .discriminatedUnion(
      'type',
      [
        z.strictObject({ type: z.literal('text') }),
        z.strictObject({ type: z.literal('json_object') }),
        z.strictObject({
          type: z.literal('json_schema'),
          name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'a format name is 1-64 letters, digits, _ or -'),
          schema: z.record(z.string(), z.unknown()),
          description: z.string().optional(),
          strict: z.boolean().nullish(),
        }),
      ],
      { error: 'the format is "text", "json_object" or "json_schema"' },
    )
    .optional(),
  // GPT-5's default; any other verbosity is a setting no other target has.
  verbosity: z
    .enum(['low', 'medium', 'high'])
    .refine((value) => value === 'medium', 'only "medium" (the default) can be routed')
    .nullish(),
});
export type TextConfig = z.infer<typeof TextConfigSchema>;

/** The neutral JSON Schema an answer must match, and what the label keeps of the format beside it. */
export function convertTextFormat(text: TextConfig | null | undefined): {
  readonly jsonSchema?: Record<string, unknown>;
  readonly label?: string;
} {
  const format = text?.format;
  if (!format || format.type === 'text') return {};
  // As on the Chat Completions surface: any JSON object is what a schema of type object allows.
  if (format.type === 'json_object')
    return { jsonSchema: { type: 'object' }, label: JSON.stringify({ type: 'json_object' }) };
  const { schema, ...rest } = format;
  return { jsonSchema: schema, label: JSON.stringify(rest) };
}

export const ReasoningConfigSchema = z.strictObject({
  effort: z.string().nullish(),
  // A readable summary of the reasoning changes no answer, and each target gives the reasoning it gives (see
  // RESPONSES_IGNORED_FIELDS): kept for the echo only.
  summary: z.enum(['auto', 'concise', 'detailed']).nullish(),
  generate_summary: z.enum(['auto', 'concise', 'detailed']).nullish(),
});

const REASONING_EFFORTS = ['minimal', 'low', 'medium', 'high'] as const;

export function convertReasoning(reasoning: z.infer<typeof ReasoningConfigSchema> | null | undefined): {
  readonly reasoning?: GenerationRequestInput['reasoning'];
  readonly summary?: string;
} {
  if (!reasoning) return {};
  const summary = reasoning.summary ?? reasoning.generate_summary ?? undefined;
  const effort = reasoning.effort;
  if (effort === undefined || effort === null) return summary !== undefined ? { summary } : {};
  const known = REASONING_EFFORTS.find((candidate) => candidate === effort);
  if (known === undefined) {
    // "none" and "xhigh" exist at OpenAI only; another provider has nothing that means the same.
    throw invalidField('reasoning.effort', `must be one of ${REASONING_EFFORTS.join(', ')}`);
  }
  return { reasoning: { effort: known }, ...(summary !== undefined ? { summary } : {}) };
}

/** The only `include` the gateway honours: reasoning items carry their encrypted content. */
export const ENCRYPTED_REASONING = 'reasoning.encrypted_content';

/** Whether `include` asks for encrypted reasoning; anything else it asks for is refused by name. */
export function convertInclude(include: readonly string[] | null | undefined): boolean {
  for (const [index, value] of (include ?? []).entries()) {
    if (value === ENCRYPTED_REASONING) continue;
    throw invalidField(
      fieldPath('include', index),
      value === 'message.output_text.logprobs'
        ? 'log probabilities cannot be routed'
        : `only "${ENCRYPTED_REASONING}" can be included ("${value}" is output of a tool or feature Switchyard does not run)`,
    );
  }
  return (include ?? []).includes(ENCRYPTED_REASONING);
}

/** OpenAI's metadata: at most 16 pairs, keys of at most 64 characters, values of at most 512. */
export const MetadataSchema = z
  .record(
    z.string().max(64, 'metadata keys are at most 64 characters'),
    z.string().max(512, 'metadata values are at most 512 characters'),
  )
  .refine((metadata) => Object.keys(metadata).length <= 16, 'at most 16 metadata pairs');

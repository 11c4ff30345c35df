// The provider-neutral generation request (a whole conversation): zod schemas and inferred types. Workflow-safe (zod only).
import { z } from 'zod';
import { strictObject } from './strict-object';

/**
 * Provider kinds, as the config names them. A reasoning part remembers the kind that produced it, because its
 * signature or encrypted content means something only to that kind's API.
 */
export const ProviderKindSchema = z.enum(['openai', 'anthropic', 'openai-compatible', 'openai-responses']);
export type ProviderKind = z.infer<typeof ProviderKindSchema>;

/**
 * A prompt-cache breakpoint: the provider may cache the prompt up to and including the part that carries it.
 * Providers that cache on their own (OpenAI) ignore it; Anthropic writes the cache at its own price.
 */
export const CacheBreakpointSchema = strictObject({
  /** How long the cached prefix lives: Anthropic's `5m` (the cheaper write) or `1h`. @default '5m' */
  ttl: z.enum(['5m', '1h']).optional(),
});
export type CacheBreakpoint = z.infer<typeof CacheBreakpointSchema>;

/** Base64 text (standard alphabet, padded), as providers accept inline data. */
const base64 = z
  .string()
  .min(1, 'data must not be empty')
  .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'data must be base64 (standard alphabet, no data: prefix)');

export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;

export const TextPartSchema = strictObject({
  type: z.literal('text'),
  text: z.string(),
  cache: CacheBreakpointSchema.optional(),
});
export type TextPart = z.infer<typeof TextPartSchema>;

/** An image, by URL (the provider fetches it) or inline as base64 with its media type. */
export const ImagePartSchema = strictObject({
  type: z.literal('image'),
  /** `https://` URL the provider downloads; exclusive with `data`. */
  url: z.url({ protocol: /^https?$/i, error: 'an image url must be http:// or https://' }).optional(),
  /** Base64 bytes of the image; exclusive with `url`. */
  data: base64.optional(),
  /** Media type of `data`. */
  mediaType: z.enum(IMAGE_MEDIA_TYPES).optional(),
  /** OpenAI's resolution hint; other providers ignore it. @default provider default */
  detail: z.enum(['auto', 'low', 'high']).optional(),
  cache: CacheBreakpointSchema.optional(),
}).superRefine((part, context) => {
  if ((part.url === undefined) === (part.data === undefined)) {
    context.addIssue({
      code: 'custom',
      message: 'an image needs exactly one of url and data',
      path: ['url'],
    });
  }
  if (part.data !== undefined && part.mediaType === undefined) {
    context.addIssue({
      code: 'custom',
      message: 'inline image data needs its mediaType',
      path: ['mediaType'],
    });
  }
});
export type ImagePart = z.infer<typeof ImagePartSchema>;

/** A PDF document, inline as base64. */
export const DocumentPartSchema = strictObject({
  type: z.literal('document'),
  data: base64,
  mediaType: z.literal('application/pdf'),
  /** A file name or title shown to the model. */
  title: z.string().max(512).optional(),
  cache: CacheBreakpointSchema.optional(),
});
export type DocumentPart = z.infer<typeof DocumentPartSchema>;

/** A tool call the assistant made, exactly as an answer returns it, so the answer can be sent back unchanged. */
export const ToolCallPartSchema = strictObject({
  type: z.literal('tool_call'),
  /** The call's id; its result names it. Adapters map ids a format cannot carry. */
  id: z.string().min(1, 'a tool call needs its id'),
  name: z.string().min(1, 'a tool call needs its name'),
  /** Arguments as the JSON text the model produced. */
  arguments: z.string(),
  cache: CacheBreakpointSchema.optional(),
});
export type ToolCallPart = z.infer<typeof ToolCallPartSchema>;

/** What a tool result may hold beside plain text. */
export const ToolResultContentPartSchema = z.discriminatedUnion('type', [TextPartSchema, ImagePartSchema], {
  error: 'a tool result part is of type text or image',
});
export type ToolResultContentPart = z.infer<typeof ToolResultContentPartSchema>;

/** The result of one earlier tool call. */
export const ToolResultPartSchema = strictObject({
  type: z.literal('tool_result'),
  /** The id of the tool call this answers. */
  callId: z.string().min(1, 'a tool result needs the id of its call'),
  /** The tool's name, where a format wants it. */
  name: z.string().optional(),
  content: z.union([z.string(), z.array(ToolResultContentPartSchema)]),
  /** The tool failed; the content says how. @default false */
  isError: z.boolean().optional(),
  cache: CacheBreakpointSchema.optional(),
});
export type ToolResultPart = z.infer<typeof ToolResultPartSchema>;

/**
 * The model's reasoning (extended thinking), as an answer returned it. `signature` (Anthropic's signature, or a
 * provider's encrypted reasoning) and `redactedData` are meaningful only to the provider kind in `origin`, and are
 * sent to no other kind: elsewhere the part is dropped.
 */
export const ReasoningPartSchema = strictObject({
  type: z.literal('reasoning'),
  text: z.string(),
  signature: z.string().optional(),
  /** A redacted block's opaque data (Anthropic `redacted_thinking`); `text` is then empty. */
  redactedData: z.string().optional(),
  /**
   * The producing provider's own id of the reasoning (an OpenAI Responses `rs_…` item), which that provider wants
   * back with its encrypted reasoning. @default none
   */
  id: z.string().optional(),
  /** The provider kind that produced the part. Without it the part is sent to no provider. */
  origin: ProviderKindSchema.optional(),
});
export type ReasoningPart = z.infer<typeof ReasoningPartSchema>;

export const UserContentPartSchema = z.discriminatedUnion(
  'type',
  [TextPartSchema, ImagePartSchema, DocumentPartSchema],
  { error: 'a user message part is of type text, image or document' },
);
export type UserContentPart = z.infer<typeof UserContentPartSchema>;

export const AssistantContentPartSchema = z.discriminatedUnion(
  'type',
  [TextPartSchema, ToolCallPartSchema, ReasoningPartSchema],
  { error: 'an assistant message part is of type text, tool_call or reasoning' },
);
export type AssistantContentPart = z.infer<typeof AssistantContentPartSchema>;

const nonEmptyText = z.string().min(1, 'a message needs content');

export const UserMessageSchema = strictObject({
  role: z.literal('user'),
  content: z.union([nonEmptyText, z.array(UserContentPartSchema).min(1, 'a message needs content')]),
});
export const AssistantMessageSchema = strictObject({
  role: z.literal('assistant'),
  content: z.union([nonEmptyText, z.array(AssistantContentPartSchema).min(1, 'a message needs content')]),
});
export const ToolMessageSchema = strictObject({
  role: z.literal('tool'),
  content: z.array(ToolResultPartSchema).min(1, 'a tool message needs at least one tool result'),
});

/**
 * One message. A plain string is still valid content for `user` and `assistant`: requests written before
 * content parts existed validate, and digest, as they always did.
 */
export const MessageSchema = z.discriminatedUnion(
  'role',
  [UserMessageSchema, AssistantMessageSchema, ToolMessageSchema],
  { error: 'a message role is user, assistant or tool' },
);
export type Message = z.infer<typeof MessageSchema>;
export type UserMessage = z.infer<typeof UserMessageSchema>;
export type AssistantMessage = z.infer<typeof AssistantMessageSchema>;
export type ToolMessage = z.infer<typeof ToolMessageSchema>;

/**
 * The deepest a JSON Schema (a tool's parameters, `jsonSchema`) may nest objects and arrays: far beyond any real
 * schema, and low enough that no recursive walk of it (digests, converters, SDKs) can run out of stack.
 */
export const MAX_JSON_SCHEMA_DEPTH = 64;

/**
 * The path (below `value`) of a node nested deeper than `maxDepth` (the value itself is depth 1), or undefined
 * when there is none. Walked with an explicit stack: no recursion.
 */
function tooDeepAt(value: unknown, maxDepth: number): (string | number)[] | undefined {
  const pending: [unknown, (string | number)[]][] = [[value, []]];
  while (pending.length > 0) {
    const [current, path] = pending.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (path.length + 1 > maxDepth) return path;
    for (const [key, child] of Object.entries(current))
      pending.push([child, [...path, Array.isArray(current) ? Number(key) : key]]);
  }
  return undefined;
}

/** A JSON Schema object, refused when nested deeper than {@link MAX_JSON_SCHEMA_DEPTH}, at the node too deep. */
const JsonSchemaObjectSchema = z.record(z.string(), z.unknown()).superRefine((schema, context) => {
  const path = tooDeepAt(schema, MAX_JSON_SCHEMA_DEPTH);
  if (path === undefined) return;
  context.addIssue({
    code: 'custom',
    message: `a JSON Schema may nest objects and arrays at most ${MAX_JSON_SCHEMA_DEPTH} levels deep`,
    path,
  });
});

export const ToolSchema = strictObject({
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'tool names are 1-64 letters, digits, _ or -'),
  description: z.string().optional(),
  /** JSON Schema of the tool's arguments. */
  parameters: JsonSchemaObjectSchema,
  /** Ask the provider to hold arguments to the schema exactly (OpenAI `strict`). @default provider default */
  strict: z.boolean().optional(),
  cache: CacheBreakpointSchema.optional(),
});
export type Tool = z.infer<typeof ToolSchema>;

/** Whether and which tool the model must call: `auto`, `none`, `required` (any tool), or one named tool. */
export const ToolChoiceSchema = z.union([
  z.enum(['auto', 'none', 'required']),
  strictObject({ type: z.literal('tool'), name: z.string().min(1) }),
]);
export type ToolChoice = z.infer<typeof ToolChoiceSchema>;

/**
 * Reasoning (extended thinking): an effort, or a token budget. Either way the reasoning tokens count as output
 * and stay within `maxOutputTokens`, so the attempt's budget bound holds.
 */
export const ReasoningOptionsSchema = strictObject({
  effort: z.enum(['minimal', 'low', 'medium', 'high']).optional(),
  /** Tokens the model may think for (Anthropic needs at least 1024 and less than `maxOutputTokens`). */
  budgetTokens: z.number().int().min(1024).max(1_000_000).optional(),
}).refine((options) => (options.effort === undefined) !== (options.budgetTokens === undefined), {
  message: 'reasoning takes exactly one of effort and budgetTokens',
});
export type ReasoningOptions = z.infer<typeof ReasoningOptionsSchema>;

export const GenerationRequestSchema = strictObject({
  /** The conversation, oldest first; the last message is usually the user's or a tool's. */
  messages: z.array(MessageSchema).min(1, 'at least one message is required'),
  /** System prompt, sent the way each provider expects it; parts may carry cache breakpoints. */
  system: z.union([z.string(), z.array(TextPartSchema).min(1)]).optional(),
  /**
   * Upper bound on generated tokens, reasoning included. Always sent to the provider, so the budget bound of an
   * attempt holds.
   * @default 1024
   */
  maxOutputTokens: z.number().int().positive().max(1_000_000).default(1024),
  /** Sampling temperature. @default provider default */
  temperature: z.number().min(0).max(2).optional(),
  /** Nucleus sampling. @default provider default */
  topP: z.number().min(0).max(1).optional(),
  /** Sample from the top K tokens only (Anthropic; refused by kinds without it). @default provider default */
  topK: z.number().int().positive().optional(),
  /** Seed for repeatable sampling, where the provider has one. @default none */
  seed: z.number().int().optional(),
  /** Stop generating at any of these texts. @default none */
  stopSequences: z.array(z.string().min(1)).max(16).optional(),
  /** Ask for a JSON answer matching this JSON Schema, where the target supports it. */
  jsonSchema: JsonSchemaObjectSchema.optional(),
  /** Tools the model may call. */
  tools: z.array(ToolSchema).optional(),
  /** @default 'auto' where tools are given */
  toolChoice: ToolChoiceSchema.optional(),
  /** Whether the model may call several tools in one turn. @default provider default (yes) */
  parallelToolCalls: z.boolean().optional(),
  /** Reasoning effort or budget. @default provider default (off for Anthropic) */
  reasoning: ReasoningOptionsSchema.optional(),
}).superRefine((request, context) => {
  // A forced tool call needs the tool: true of every provider, so refused here, at the edge, not by each target.
  const choice = request.toolChoice;
  if (choice === undefined || choice === 'auto' || choice === 'none') return;
  const tools = request.tools ?? [];
  if (tools.length === 0) {
    context.addIssue({
      code: 'custom',
      message: 'forces a tool call, but the request has no tools',
      path: ['toolChoice'],
    });
  } else if (typeof choice === 'object' && !tools.some((tool) => tool.name === choice.name)) {
    context.addIssue({
      code: 'custom',
      message: 'names no tool of the request',
      path: ['toolChoice', 'name'],
    });
  }
});

/** A request as accepted from callers (defaults not applied yet). */
export type GenerationRequestInput = z.input<typeof GenerationRequestSchema>;
/** A validated request with defaults applied. */
export type GenerationRequest = z.infer<typeof GenerationRequestSchema>;

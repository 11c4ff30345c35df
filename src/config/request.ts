// The provider-neutral generation request: zod schema and inferred type. Workflow-safe (zod only).
import { z } from 'zod';
import { strictObject } from './strict-object';

export const MessageSchema = strictObject({
  role: z.enum(['user', 'assistant']),
  content: z.string().min(1, 'a message needs content'),
});
export type Message = z.infer<typeof MessageSchema>;

export const ToolSchema = strictObject({
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'tool names are 1-64 letters, digits, _ or -'),
  description: z.string().optional(),
  /** JSON Schema of the tool's arguments. */
  parameters: z.record(z.string(), z.unknown()),
});
export type Tool = z.infer<typeof ToolSchema>;

export const GenerationRequestSchema = strictObject({
  /** The conversation, oldest first; the last message is usually the user's. */
  messages: z.array(MessageSchema).min(1, 'at least one message is required'),
  /** System prompt, sent the way each provider expects it. */
  system: z.string().optional(),
  /**
   * Upper bound on generated tokens. Always sent to the provider, so the budget bound of an attempt holds.
   * @default 1024
   */
  maxOutputTokens: z.number().int().positive().max(1_000_000).default(1024),
  /** Sampling temperature. @default provider default */
  temperature: z.number().min(0).max(2).optional(),
  /** Ask for a JSON answer matching this JSON Schema, where the target supports it. */
  jsonSchema: z.record(z.string(), z.unknown()).optional(),
  /** Tools the model may call. */
  tools: z.array(ToolSchema).optional(),
});

/** A request as accepted from callers (defaults not applied yet). */
export type GenerationRequestInput = z.input<typeof GenerationRequestSchema>;
/** A validated request with defaults applied. */
export type GenerationRequest = z.infer<typeof GenerationRequestSchema>;

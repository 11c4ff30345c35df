// Provider and model schemas: endpoints, key variables, prices and context windows. Workflow-safe (zod only).
import { z } from 'zod';
import { ProviderKindSchema } from './request';
import { strictObject } from './strict-object';

/** What kinds of input a model accepts; a target that cannot take a conversation is skipped before sending. */
export const ModelSupportSchema = strictObject({
  /** Images in user messages and tool results. @default true */
  images: z.boolean().optional(),
  /** PDF documents. @default true */
  documents: z.boolean().optional(),
  /** Tool definitions, tool calls and tool results. @default true */
  tools: z.boolean().optional(),
  /** Reasoning options (an effort or a thinking budget). @default true */
  reasoning: z.boolean().optional(),
});
export type ModelSupport = z.infer<typeof ModelSupportSchema>;

export const ModelSchema = strictObject({
  /** USD per million prompt tokens. */
  inputUsdPerMillion: z.number().min(0),
  /** USD per million prompt tokens served from cache. @default the input price */
  cachedInputUsdPerMillion: z.number().min(0).optional(),
  /**
   * USD per million prompt tokens written to a 5-minute prompt cache. @default 1.25 × the input price
   * (Anthropic's published multiplier)
   */
  cacheWriteUsdPerMillion: z.number().min(0).optional(),
  /** USD per million prompt tokens written to a 1-hour prompt cache. @default 2 × the input price (Anthropic's) */
  cacheWrite1hUsdPerMillion: z.number().min(0).optional(),
  /** USD per million generated tokens (reasoning included). */
  outputUsdPerMillion: z.number().min(0),
  /** Context window in tokens. */
  contextWindow: z.number().int().positive().optional(),
  /**
   * The most prompt tokens one image can cost on this model. @default the provider kind's published worst case
   * (see the routing's media bounds)
   */
  maxImageTokens: z.number().int().positive().optional(),
  /** What the model accepts. @default everything */
  supports: ModelSupportSchema.optional(),
});
export type ModelConfig = z.infer<typeof ModelSchema>;

/**
 * A model name: visible ASCII, no spaces, at most 200 characters. It travels where only such text is safe: the
 * gateway's `x-switchyard-served-by` header (HTTP header values are Latin-1 at best), and a relay push, whose
 * schema caps it at 200. A name past either would fail a paid call after the provider answered.
 */
export const ModelNameSchema = z
  .string()
  .regex(
    /^[\x21-\x7e]{1,200}$/,
    'model names are visible ASCII without spaces, 1-200 characters (they travel in HTTP headers)',
  );

export const ProviderSchema = strictObject({
  /**
   * Wire format: `openai` (Chat Completions), `openai-responses` (OpenAI's Responses API, called statelessly),
   * `anthropic` (Messages) or any `openai-compatible` server.
   */
  kind: ProviderKindSchema,
  /** Name of the environment variable that holds the API key; read by the worker only. */
  apiKeyEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name'),
  /**
   * Base URL of the API, `http://` or `https://` only: the SDKs would send the key to whatever else it names.
   * The OpenAI kinds include the version (`https://api.openai.com/v1`); Anthropic does not
   * (`https://api.anthropic.com`). @default the provider's public endpoint
   */
  baseURL: z.url({ protocol: /^https?$/i, error: 'baseURL must be an http:// or https:// URL' }).optional(),
  /** Models this provider serves, with their prices. */
  models: z.record(z.string().min(1), ModelSchema).superRefine((models, context) => {
    // Checked here rather than as the record's key schema, whose failure zod reports as a bare "Invalid key".
    for (const name of Object.keys(models)) {
      const parsed = ModelNameSchema.safeParse(name);
      if (!parsed.success)
        context.addIssue({ code: 'custom', path: [name], message: parsed.error.issues[0]!.message });
    }
  }),
});
export type ProviderConfig = z.infer<typeof ProviderSchema>;

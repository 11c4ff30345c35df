// Provider and model schemas: endpoints, key variables, prices and context windows. Workflow-safe (zod only).
import { z } from 'zod';
import { strictObject } from './strict-object';

export const ModelSchema = strictObject({
  /** USD per million prompt tokens. */
  inputUsdPerMillion: z.number().min(0),
  /** USD per million prompt tokens served from cache. @default the input price */
  cachedInputUsdPerMillion: z.number().min(0).optional(),
  /** USD per million generated tokens. */
  outputUsdPerMillion: z.number().min(0),
  /** Context window in tokens. */
  contextWindow: z.number().int().positive().optional(),
});
export type ModelConfig = z.infer<typeof ModelSchema>;

export const ProviderSchema = strictObject({
  /** Wire format: `openai` (Chat Completions), `anthropic` (Messages) or any `openai-compatible` server. */
  kind: z.enum(['openai', 'anthropic', 'openai-compatible']),
  /** Name of the environment variable that holds the API key; read by the worker only. */
  apiKeyEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name'),
  /**
   * Base URL of the API, `http://` or `https://` only: the SDKs would send the key to whatever else it names.
   * The OpenAI kinds include the version (`https://api.openai.com/v1`); Anthropic does not
   * (`https://api.anthropic.com`). @default the provider's public endpoint
   */
  baseURL: z.url({ protocol: /^https?$/i, error: 'baseURL must be an http:// or https:// URL' }).optional(),
  /** Models this provider serves, with their prices. */
  models: z.record(z.string().min(1), ModelSchema),
});
export type ProviderConfig = z.infer<typeof ProviderSchema>;

// The provider factory and the neutral provider contract. Worker side (adapters do I/O).
import { AnthropicMessagesProvider } from './anthropic';
import { OpenAIChatProvider } from './openai';
import type { LanguageModelProvider, ProviderKind } from './types';

export * from './types';
export { parseRetryAfterMs } from './retry-after';

export interface ProviderClientConfig {
  /** The provider's name in the config (e.g. `openai`, `groq`); it prefixes error messages. */
  readonly name: string;
  readonly kind: ProviderKind;
  /** The secret key. Sent only as the provider's auth header; never in errors or results. */
  readonly apiKey: string;
  /**
   * API base URL. OpenAI kinds include `/v1` (`http://host/v1`); Anthropic does not (`http://host`).
   * Required in practice for `openai-compatible`. @default the SDK's own default for the kind
   */
  readonly baseURL?: string;
}

/** Builds the adapter for one configured provider; its SDK client is created once, with `maxRetries: 0`. */
export function createProvider(config: ProviderClientConfig): LanguageModelProvider {
  const { name, kind, apiKey } = config;
  const baseURL = config.baseURL !== undefined ? { baseURL: config.baseURL } : {};
  switch (kind) {
    case 'openai':
    case 'openai-compatible':
      return new OpenAIChatProvider({ name, kind, apiKey, ...baseURL });
    case 'anthropic':
      return new AnthropicMessagesProvider({ name, apiKey, ...baseURL });
  }
}

// The provider factory and the neutral provider contract. Worker side (adapters do I/O).
import { AnthropicMessagesProvider } from './anthropic';
import { OpenAIChatProvider } from './openai';
import { scrubbingProvider } from './scrubbing-provider';
import { SecretScrubber } from './secret-scrubber';
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
  /**
   * Further secret values to scrub from what this provider returns and logs, besides its own key: the keys of
   * every other configured provider (a gateway in front of several may echo any of them). @default none
   */
  readonly secrets?: readonly string[];
}

/**
 * Builds the adapter for one configured provider; its SDK client is created once, with `maxRetries: 0`. Its
 * answers, failures and SDK log lines are scrubbed of its key and of `secrets`, whatever field they are in.
 */
export function createProvider(config: ProviderClientConfig): LanguageModelProvider {
  const { name, kind, apiKey } = config;
  const scrubber = new SecretScrubber([apiKey, ...(config.secrets ?? [])]);
  const baseURL = config.baseURL !== undefined ? { baseURL: config.baseURL } : {};
  // TODO(openai-responses): the Responses adapter lands in src/providers/openai-responses.
  if (kind === 'openai-responses') throw new Error(`${name}: the openai-responses kind has no adapter yet`);
  const adapter =
    kind === 'anthropic'
      ? new AnthropicMessagesProvider({ name, apiKey, scrubber, ...baseURL })
      : new OpenAIChatProvider({ name, kind, apiKey, scrubber, ...baseURL });
  return scrubbingProvider(adapter, scrubber);
}

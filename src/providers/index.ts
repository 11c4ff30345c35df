// The provider factory and the neutral provider contract. Worker side (adapters do I/O).
import { AnthropicMessagesProvider } from './anthropic';
import { OpenAIChatProvider } from './openai';
import { OpenAIResponsesProvider } from './openai-responses';
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
  /**
   * Models the config says do not reason (`supports.reasoning: false`). Read by `openai-responses` only: it asks
   * every other model for its encrypted reasoning, which OpenAI refuses for a model that does not reason.
   * @default none
   */
  readonly modelsWithoutReasoning?: readonly string[];
}

/**
 * Builds the adapter for one configured provider; its SDK client is created once, with `maxRetries: 0`. Its
 * answers, failures and SDK log lines are scrubbed of its key and of `secrets`, whatever field they are in.
 */
export function createProvider(config: ProviderClientConfig): LanguageModelProvider {
  const { name, kind, apiKey } = config;
  const scrubber = new SecretScrubber([apiKey, ...(config.secrets ?? [])]);
  const baseURL = config.baseURL !== undefined ? { baseURL: config.baseURL } : {};
  const adapter = adapterFor(kind, { name, apiKey, scrubber, ...baseURL }, config);
  return scrubbingProvider(adapter, scrubber);
}

/** The adapter of `kind`: one switch, so a new kind cannot go without one. */
function adapterFor(
  kind: ProviderKind,
  common: { name: string; apiKey: string; scrubber: SecretScrubber; baseURL?: string },
  config: ProviderClientConfig,
): LanguageModelProvider {
  switch (kind) {
    case 'anthropic':
      return new AnthropicMessagesProvider(common);
    case 'openai':
    case 'openai-compatible':
      return new OpenAIChatProvider({ ...common, kind });
    case 'openai-responses':
      return new OpenAIResponsesProvider({
        ...common,
        ...(config.modelsWithoutReasoning !== undefined
          ? { modelsWithoutReasoning: config.modelsWithoutReasoning }
          : {}),
      });
    default:
      return kind satisfies never;
  }
}

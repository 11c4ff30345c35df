// The Anthropic Messages adapter, on `@anthropic-ai/sdk`. Worker side.
import Anthropic from '@anthropic-ai/sdk';
import type { GenerationRequest } from '../../config/request';
import type { SecretScrubber } from '../secret-scrubber';
import { messageOnlyLogger } from '../sdk-logger';
import type { CallOptions, GenerationResult, LanguageModelProvider } from '../types';
import { AnthropicStreamAccumulator } from './accumulate-stream';
import { classifyAnthropicError } from './classify-error';
import { convertRequest } from './convert-request';
import { convertAnthropicResponse, type ResponseContext } from './convert-response';
import { runAttempt } from '../run-attempt';

export interface AnthropicMessagesProviderConfig {
  /** The provider's name in the config (e.g. `anthropic`); prefixes error messages. */
  readonly name: string;
  readonly apiKey: string;
  /** API base URL without `/v1`. @default the SDK's (`ANTHROPIC_BASE_URL` or https://api.anthropic.com) */
  readonly baseURL?: string;
  /** Scrubs the configured keys from the SDK's log lines (its debug line names the request id). @default none */
  readonly scrubber?: SecretScrubber;
}

export class AnthropicMessagesProvider implements LanguageModelProvider {
  readonly name: string;
  readonly kind = 'anthropic' as const;
  private readonly client: Anthropic;

  constructor(config: AnthropicMessagesProviderConfig) {
    this.name = config.name;
    // maxRetries 0: retries are the workflow's decision, each one a visible attempt. An
    // explicit apiKey also keeps the SDK from picking up other credentials from the environment.
    this.client = new Anthropic({
      apiKey: config.apiKey,
      maxRetries: 0,
      // The SDK logs unparsable stream chunks (and, at debug, bodies) beside its messages; keep only those.
      logger: messageOnlyLogger(`${config.name} (anthropic SDK)`, undefined, config.scrubber),
      ...(config.baseURL !== undefined ? { baseURL: config.baseURL } : {}),
    });
  }

  async generate(model: string, request: GenerationRequest, options: CallOptions): Promise<GenerationResult> {
    // Errors name the provider and the model, never anything the provider wrote.
    const label = `${this.name} ${model}`;
    // A request Anthropic cannot take as asked is refused here, before anything is sent.
    const body = convertRequest(model, request, label);
    // Passing `timeout` (runAttempt does) also stops the SDK refusing large non-streaming max_tokens.
    return runAttempt(options, {
      label,
      requestIdHeader: 'request-id',
      context: (requestId): ResponseContext => ({ label, provider: this.name, model, requestId }),
      whole: (requestOptions) => this.client.messages.create(body, requestOptions),
      convert: convertAnthropicResponse,
      streamed: (requestOptions) => this.client.messages.create({ ...body, stream: true }, requestOptions),
      accumulator: () => new AnthropicStreamAccumulator(options.onDelta),
      userAbort: () => new Anthropic.APIUserAbortError(),
      classify: classifyAnthropicError,
    });
  }
}

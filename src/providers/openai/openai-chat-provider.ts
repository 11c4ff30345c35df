// The OpenAI Chat Completions adapter (kinds `openai` and `openai-compatible`), on the `openai` SDK. Worker side.
import OpenAI from 'openai';
import type { GenerationRequest } from '../../config/request';
import type { SecretScrubber } from '../secret-scrubber';
import { messageOnlyLogger } from '../sdk-logger';
import type { CallOptions, GenerationResult, LanguageModelProvider } from '../types';
import { OpenAIStreamAccumulator } from './accumulate-stream';
import { classifyOpenAIError } from './classify-error';
import { convertRequest } from './convert-request';
import { convertOpenAIResponse, type ResponseContext } from './convert-response';
import { requestRefusal } from '../refuse-request';
import { runAttempt } from '../run-attempt';

export interface OpenAIChatProviderConfig {
  /** The provider's name in the config (e.g. `openai`, `groq`); prefixes error messages. */
  readonly name: string;
  readonly kind: 'openai' | 'openai-compatible';
  readonly apiKey: string;
  /** API base URL including `/v1`. @default the SDK's (`OPENAI_BASE_URL` or https://api.openai.com/v1) */
  readonly baseURL?: string;
  /** Scrubs the configured keys from the SDK's log lines (its debug line names the request id). @default none */
  readonly scrubber?: SecretScrubber;
}

export class OpenAIChatProvider implements LanguageModelProvider {
  readonly name: string;
  readonly kind: 'openai' | 'openai-compatible';
  private readonly client: OpenAI;

  constructor(config: OpenAIChatProviderConfig) {
    this.name = config.name;
    this.kind = config.kind;
    // maxRetries 0: retries are the workflow's decision, each one a visible attempt.
    this.client = new OpenAI({
      apiKey: config.apiKey,
      maxRetries: 0,
      // The SDK logs unparsable stream chunks (and, at debug, bodies) beside its messages; keep only those.
      logger: messageOnlyLogger(`${config.name} (openai SDK)`, undefined, config.scrubber),
      ...(config.baseURL !== undefined ? { baseURL: config.baseURL } : {}),
    });
  }

  async generate(model: string, request: GenerationRequest, options: CallOptions): Promise<GenerationResult> {
    // Errors name the provider and the model, never anything the provider wrote.
    const label = `${this.name} ${model}`;
    // A request the format cannot honour is refused here, before anything is sent.
    const body = convertRequest(model, request, this.kind, requestRefusal(label));
    return runAttempt(options, {
      label,
      requestIdHeader: 'x-request-id',
      context: (requestId): ResponseContext => ({
        label,
        provider: this.name,
        kind: this.kind,
        model,
        requestId,
      }),
      whole: (requestOptions) => this.client.chat.completions.create(body, requestOptions),
      convert: convertOpenAIResponse,
      streamed: (requestOptions) =>
        this.client.chat.completions.create(
          { ...body, stream: true, stream_options: { include_usage: true } },
          requestOptions,
        ),
      accumulator: () => new OpenAIStreamAccumulator(this.kind, options.onDelta),
      userAbort: () => new OpenAI.APIUserAbortError(),
      classify: classifyOpenAIError,
    });
  }
}

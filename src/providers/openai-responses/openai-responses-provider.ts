// The OpenAI Responses API adapter (kind `openai-responses`), on the `openai` SDK, called statelessly. Worker side.
import OpenAI from 'openai';
import type { ResponseCreateParamsNonStreaming } from 'openai/resources/responses/responses';
import type { GenerationRequest } from '../../config/request';
import { classifyOpenAIError } from '../openai/classify-error';
import { requestRefusal } from '../refuse-request';
import { runAttempt } from '../run-attempt';
import type { SecretScrubber } from '../secret-scrubber';
import { messageOnlyLogger } from '../sdk-logger';
import type { CallOptions, GenerationResult, LanguageModelProvider } from '../types';
import { ResponsesStreamAccumulator } from './accumulate-stream';
import { convertRequest } from './convert-request';
import { convertResponsesResponse, type ResponseContext } from './convert-response';

export interface OpenAIResponsesProviderConfig {
  /** The provider's name in the config (e.g. `openai`); prefixes error messages. */
  readonly name: string;
  readonly apiKey: string;
  /** API base URL including `/v1`. @default the SDK's (`OPENAI_BASE_URL` or https://api.openai.com/v1) */
  readonly baseURL?: string;
  /** Scrubs the configured keys from the SDK's log lines (its debug line names the request id). @default none */
  readonly scrubber?: SecretScrubber;
  /**
   * Models that do not reason (the config's `supports.reasoning: false`, e.g. `gpt-4.1`): they are asked without
   * the encrypted reasoning, which OpenAI refuses for them, and sent no reasoning items. @default none
   */
  readonly modelsWithoutReasoning?: readonly string[];
}

export class OpenAIResponsesProvider implements LanguageModelProvider {
  readonly name: string;
  readonly kind = 'openai-responses' as const;
  private readonly client: OpenAI;
  private readonly modelsWithoutReasoning: ReadonlySet<string>;

  constructor(config: OpenAIResponsesProviderConfig) {
    this.name = config.name;
    this.modelsWithoutReasoning = new Set(config.modelsWithoutReasoning ?? []);
    // maxRetries 0: retries are the workflow's decision, each one a visible attempt.
    this.client = new OpenAI({
      apiKey: config.apiKey,
      maxRetries: 0,
      // The SDK logs unparsable stream events (and, at debug, bodies) beside its messages; keep only those.
      logger: messageOnlyLogger(`${config.name} (openai SDK)`, undefined, config.scrubber),
      ...(config.baseURL !== undefined ? { baseURL: config.baseURL } : {}),
    });
  }

  async generate(model: string, request: GenerationRequest, options: CallOptions): Promise<GenerationResult> {
    // Errors name the provider and the model, never anything the provider wrote.
    const label = `${this.name} ${model}`;
    // A request the format cannot honour is refused here, before anything is sent.
    const converted = convertRequest(model, request, requestRefusal(label), {
      reasoningItems: !this.modelsWithoutReasoning.has(model),
    });
    // The SDK's input type lists the items as stored ones; the API takes them without their stored ids.
    const body = converted as unknown as ResponseCreateParamsNonStreaming;
    return runAttempt(options, {
      label,
      requestIdHeader: 'x-request-id',
      context: (requestId): ResponseContext => ({ label, provider: this.name, model, requestId }),
      whole: (requestOptions) => this.client.responses.create(body, requestOptions),
      convert: convertResponsesResponse,
      streamed: (requestOptions) => this.client.responses.create({ ...body, stream: true }, requestOptions),
      accumulator: () => new ResponsesStreamAccumulator(options.onDelta),
      userAbort: () => new OpenAI.APIUserAbortError(),
      classify: classifyOpenAIError,
    });
  }
}

// The OpenAI Responses API adapter (kind `openai-responses`), on the `openai` SDK, called statelessly. Worker side.
import OpenAI from 'openai';
import type { ResponseCreateParamsNonStreaming } from 'openai/resources/responses/responses';
import { FailureClass } from '../../config/failure-class';
import type { GenerationRequest } from '../../config/request';
import { AttemptAbort } from '../attempt-abort';
import { classifyOpenAIError } from '../openai/classify-error';
import { providerFailure, safeIdentifier } from '../provider-failure';
import { requestRefusal } from '../refuse-request';
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

const REQUEST_ID_HEADER = 'x-request-id';

/** The provider's request id header, kept only when it is identifier-shaped (it is recorded in history). */
function readRequestId(response: Response): string | null {
  return safeIdentifier(response.headers.get(REQUEST_ID_HEADER)) ?? null;
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
    if (options.signal?.aborted) {
      throw providerFailure(label, FailureClass.cancelled, { requestSent: false }, 'aborted before sending');
    }
    const attempt = new AttemptAbort(options.signal, options.timeoutMs);
    const requestOptions = { timeout: options.timeoutMs, signal: attempt.signal };
    let requestId: string | null = null;
    const context = (): ResponseContext => ({ label, provider: this.name, model, requestId });
    try {
      if (!options.stream) {
        const call = this.client.responses.create(body, requestOptions);
        // Read the headers first so an unparsable body still reports its request id.
        requestId = readRequestId(await call.asResponse());
        return convertResponsesResponse(await call, context());
      }
      const call = this.client.responses.create({ ...body, stream: true }, requestOptions);
      requestId = readRequestId(await call.asResponse());
      const accumulator = new ResponsesStreamAccumulator(options.onDelta);
      for await (const event of await call) {
        accumulator.add(event);
        options.onProgress?.();
      }
      // The SDK ends a stream quietly when its signal aborts; an abort is not an incomplete answer.
      const abort = attempt.state();
      if (abort.callerAborted || abort.deadlineExceeded) throw new OpenAI.APIUserAbortError();
      return accumulator.finish(context());
    } catch (error) {
      throw classifyOpenAIError(error, {
        abort: attempt.state(),
        label,
        ...(requestId !== null ? { requestId } : {}),
      });
    } finally {
      attempt.dispose();
    }
  }
}

// The OpenAI Chat Completions adapter (kinds `openai` and `openai-compatible`), on the `openai` SDK. Worker side.
import OpenAI from 'openai';
import type { GenerationRequest } from '../../config/request';
import { AttemptAbort } from '../attempt-abort';
import { providerFailure, safeIdentifier } from '../provider-failure';
import type { SecretScrubber } from '../secret-scrubber';
import { messageOnlyLogger } from '../sdk-logger';
import { FailureClass } from '../../config/failure-class';
import type { CallOptions, GenerationResult, LanguageModelProvider } from '../types';
import { OpenAIStreamAccumulator } from './accumulate-stream';
import { classifyOpenAIError } from './classify-error';
import { convertRequest } from './convert-request';
import { convertOpenAIResponse, type ResponseContext } from './convert-response';
import { requestRefusal } from '../refuse-request';

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

const REQUEST_ID_HEADER = 'x-request-id';

/** The provider's request id header, kept only when it is identifier-shaped (it is recorded in history). */
function readRequestId(response: Response): string | null {
  return safeIdentifier(response.headers.get(REQUEST_ID_HEADER)) ?? null;
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
    if (options.signal?.aborted) {
      throw providerFailure(label, FailureClass.cancelled, { requestSent: false }, 'aborted before sending');
    }
    const attempt = new AttemptAbort(options.signal, options.timeoutMs);
    const requestOptions = { timeout: options.timeoutMs, signal: attempt.signal };
    let requestId: string | null = null;
    const context = (): ResponseContext => ({
      label,
      provider: this.name,
      kind: this.kind,
      model,
      requestId,
    });
    try {
      if (!options.stream) {
        const call = this.client.chat.completions.create(body, requestOptions);
        // Read the headers first so an unparsable body still reports its request id.
        requestId = readRequestId(await call.asResponse());
        return convertOpenAIResponse(await call, context());
      }
      const call = this.client.chat.completions.create(
        { ...body, stream: true, stream_options: { include_usage: true } },
        requestOptions,
      );
      requestId = readRequestId(await call.asResponse());
      const accumulator = new OpenAIStreamAccumulator(this.kind, options.onDelta);
      for await (const chunk of await call) {
        accumulator.add(chunk);
        options.onProgress?.();
      }
      // The SDK ends a stream quietly when its signal aborts; an abort is not an incomplete answer.
      const abort = attempt.state();
      if (abort.callerAborted || abort.deadlineExceeded) {
        throw new OpenAI.APIUserAbortError();
      }
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

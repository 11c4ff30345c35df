// The Anthropic Messages adapter, on `@anthropic-ai/sdk`. Worker side.
import Anthropic from '@anthropic-ai/sdk';
import type { GenerationRequest } from '../../config/request';
import { FailureClass } from '../../config/failure-class';
import { AttemptAbort } from '../attempt-abort';
import { providerFailure, safeIdentifier } from '../provider-failure';
import type { SecretScrubber } from '../secret-scrubber';
import { messageOnlyLogger } from '../sdk-logger';
import type { CallOptions, GenerationResult, LanguageModelProvider } from '../types';
import { AnthropicStreamAccumulator } from './accumulate-stream';
import { classifyAnthropicError } from './classify-error';
import { convertRequest } from './convert-request';
import { convertAnthropicResponse, type ResponseContext } from './convert-response';

export interface AnthropicMessagesProviderConfig {
  /** The provider's name in the config (e.g. `anthropic`); prefixes error messages. */
  readonly name: string;
  readonly apiKey: string;
  /** API base URL without `/v1`. @default the SDK's (`ANTHROPIC_BASE_URL` or https://api.anthropic.com) */
  readonly baseURL?: string;
  /** Scrubs the configured keys from the SDK's log lines (its debug line names the request id). @default none */
  readonly scrubber?: SecretScrubber;
}

const REQUEST_ID_HEADER = 'request-id';

/** The provider's request id header, kept only when it is identifier-shaped (it is recorded in history). */
function readRequestId(response: Response): string | null {
  return safeIdentifier(response.headers.get(REQUEST_ID_HEADER)) ?? null;
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
    if (options.signal?.aborted) {
      throw providerFailure(label, FailureClass.cancelled, { requestSent: false }, 'aborted before sending');
    }
    const attempt = new AttemptAbort(options.signal, options.timeoutMs);
    // Passing `timeout` also stops the SDK refusing large non-streaming max_tokens ("streaming required").
    const requestOptions = { timeout: options.timeoutMs, signal: attempt.signal };
    let requestId: string | null = null;
    const context = (): ResponseContext => ({ label, provider: this.name, model, requestId });
    try {
      if (!options.stream) {
        const call = this.client.messages.create(body, requestOptions);
        // Read the headers first so an unparsable body still reports its request id.
        requestId = readRequestId(await call.asResponse());
        return convertAnthropicResponse(await call, context());
      }
      const call = this.client.messages.create({ ...body, stream: true }, requestOptions);
      requestId = readRequestId(await call.asResponse());
      const accumulator = new AnthropicStreamAccumulator(options.onDelta);
      for await (const event of await call) {
        accumulator.add(event);
        options.onProgress?.();
      }
      // The SDK ends a stream quietly when its signal aborts; an abort is not an incomplete answer.
      const abort = attempt.state();
      if (abort.callerAborted || abort.deadlineExceeded) throw new Anthropic.APIUserAbortError();
      return accumulator.finish(context());
    } catch (error) {
      throw classifyAnthropicError(error, {
        abort: attempt.state(),
        label,
        ...(requestId !== null ? { requestId } : {}),
      });
    } finally {
      attempt.dispose();
    }
  }
}

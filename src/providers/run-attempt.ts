// One provider attempt, whole or streamed, run the same way by every adapter: refused before sending when already
// cancelled, bounded by the attempt's deadline, its request id read from the headers first, failures classified.
// Worker side.
import { FailureClass } from '../config/failure-class';
import { AttemptAbort, type AbortState } from './attempt-abort';
import { providerFailure, safeIdentifier } from './provider-failure';
import type { CallOptions, GenerationResult } from './types';

/** What an SDK's `create()` returns: awaitable for the body, with the raw response for its headers. */
export interface SdkCall<Body> extends PromiseLike<Body> {
  asResponse(): Promise<Response>;
}

/** The per-request options every adapter hands its SDK. */
export interface SdkRequestOptions {
  /** The SDK's own timeout, in milliseconds (it covers only the wait for headers). */
  readonly timeout: number;
  readonly signal: AbortSignal;
}

/** What a provider knows when it classifies a failure. */
export interface FailureFacts {
  readonly abort: AbortState;
  readonly label: string;
  readonly requestId?: string;
}

/** The parts of an attempt that differ between providers. */
export interface AttemptSteps<Answer, Event, Context> {
  /** Prefix of error messages: the provider's name and the model. */
  readonly label: string;
  /** The response header that carries the provider's request id (`x-request-id`, `request-id`). */
  readonly requestIdHeader: string;
  /** What the conversion of an answer needs to know, once the request id is known. */
  readonly context: (requestId: string | null) => Context;
  /** Sends the request for a whole answer. */
  readonly whole: (requestOptions: SdkRequestOptions) => SdkCall<Answer>;
  readonly convert: (answer: Answer, context: Context) => GenerationResult;
  /** Sends the request for a stream of events. */
  readonly streamed: (requestOptions: SdkRequestOptions) => SdkCall<AsyncIterable<Event>>;
  readonly accumulator: () => { add(event: Event): void; finish(context: Context): GenerationResult };
  /** The SDK's own user-abort error: a stream its signal ended quietly is an abort, not an incomplete answer. */
  readonly userAbort: () => Error;
  readonly classify: (error: unknown, facts: FailureFacts) => Error;
}

/**
 * Runs one attempt. The SDK's timeout covers only the wait for headers, so the attempt's own deadline (and the
 * caller's signal) abort the whole of it; the request id is read before the body so that an unparsable body still
 * reports it; every failure leaves as the provider's classified error.
 */
export async function runAttempt<Answer, Event, Context>(
  options: CallOptions,
  steps: AttemptSteps<Answer, Event, Context>,
): Promise<GenerationResult> {
  const { label } = steps;
  if (options.signal?.aborted) {
    throw providerFailure(label, FailureClass.cancelled, { requestSent: false }, 'aborted before sending');
  }
  const attempt = new AttemptAbort(options.signal, options.timeoutMs);
  const requestOptions = { timeout: options.timeoutMs, signal: attempt.signal };
  let requestId: string | null = null;
  // The request id is recorded in history: kept only when it is identifier-shaped.
  const readRequestId = (response: Response) =>
    safeIdentifier(response.headers.get(steps.requestIdHeader)) ?? null;
  try {
    if (!options.stream) {
      const call = steps.whole(requestOptions);
      requestId = readRequestId(await call.asResponse());
      return steps.convert(await call, steps.context(requestId));
    }
    const call = steps.streamed(requestOptions);
    requestId = readRequestId(await call.asResponse());
    const accumulator = steps.accumulator();
    for await (const event of await call) {
      accumulator.add(event);
      options.onProgress?.();
    }
    const abort = attempt.state();
    if (abort.callerAborted || abort.deadlineExceeded) throw steps.userAbort();
    return accumulator.finish(steps.context(requestId));
  } catch (error) {
    throw steps.classify(error, {
      abort: attempt.state(),
      label,
      ...(requestId !== null ? { requestId } : {}),
    });
  } finally {
    attempt.dispose();
  }
}

// Classifies OpenAI SDK errors into failure classes by error class and error code. Pure; worker side.
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  InternalServerError,
  PermissionDeniedError,
  RateLimitError,
} from 'openai';
import { FailureClass } from '../../config/failure-class';
import { NOT_ABORTED, type AbortState } from '../attempt-abort';
import {
  certainlyNotSent,
  classifyAbort,
  classifyTransportError,
  isAbortError,
  safeIdentifier,
  toProviderError,
  type Classification,
} from '../provider-failure';
import { parseRetryAfterMs } from '../retry-after';
import { ProviderError } from '../types';

export interface ClassifyContext {
  /** Who had aborted the attempt when it failed. @default neither */
  readonly abort?: AbortState;
  /** Who failed, prefixing the error message: the configured provider name and the model. @default 'openai' */
  readonly label?: string;
  /** Current time in epoch milliseconds, for `retry-after` dates. @default Date.now() */
  readonly nowMs?: number;
  /** Request id from response headers already received, for errors raised after them. */
  readonly requestId?: string;
}

/** Codes OpenAI sends when the account, not the request rate, is the problem. */
const QUOTA_CODES = new Set(['insufficient_quota', 'billing_hard_limit_reached', 'billing_not_active']);

/** The failure class of an HTTP error response, switching on SDK class first, then status and code. */
function classifyStatusError(error: APIError): FailureClass {
  const code = error.code ?? undefined;
  const isQuota = QUOTA_CODES.has(code ?? '') || QUOTA_CODES.has(error.type ?? '');
  if (error instanceof RateLimitError)
    return isQuota ? FailureClass.quotaExhausted : FailureClass.rateLimited;
  if (error instanceof AuthenticationError || error instanceof PermissionDeniedError) {
    return FailureClass.authentication;
  }
  if (error instanceof BadRequestError) {
    if (code === 'context_length_exceeded') return FailureClass.contextOverflow;
    // OpenAI has answered a hard billing limit with a 400; it is about the account, not the request.
    return isQuota ? FailureClass.quotaExhausted : FailureClass.invalidRequest;
  }
  // InternalServerError covers every 5xx; a gateway timeout is still a timeout.
  if (error instanceof InternalServerError) {
    return error.status === 504 ? FailureClass.timeout : FailureClass.unavailable;
  }
  // The SDK has no classes for the remaining statuses; they arrive as a plain APIError.
  const status = error.status;
  if (status === undefined) return classifyErrorCode(code, error.type);
  if (status === 402 || isQuota) return FailureClass.quotaExhausted;
  if (status === 408) return FailureClass.timeout;
  if (status >= 400 && status < 500) return FailureClass.invalidRequest;
  return FailureClass.invalidResponse;
}

/**
 * Codes of a Responses API failure (`response.failed`, whose error has a code and no type) that blame the
 * request's images: sending the same request elsewhere would fail the same way.
 */
const IMAGE_FAULT_CODES = new Set([
  'invalid_image',
  'invalid_image_format',
  'invalid_base64_image',
  'invalid_image_url',
  'image_too_large',
  'image_too_small',
  'image_parse_error',
  'invalid_image_mode',
  'image_file_too_large',
  'unsupported_image_media_type',
  'empty_image_file',
  'failed_to_download_image',
  'image_file_not_found',
]);

/**
 * A failure reported inside a 200 (an `error` chunk of a Chat Completions stream, an `error` event or a failed
 * response of the Responses API) has no status: only its code and type say what happened. The Responses API's
 * `invalid_prompt` is its usage-policy refusal of the prompt.
 */
export function classifyErrorCode(code: string | undefined, type: string | undefined): FailureClass {
  if (code === 'context_length_exceeded') return FailureClass.contextOverflow;
  if (code === 'rate_limit_exceeded') return FailureClass.rateLimited;
  if (QUOTA_CODES.has(code ?? '') || QUOTA_CODES.has(type ?? '')) return FailureClass.quotaExhausted;
  if (code === 'invalid_prompt' || code === 'image_content_policy_violation')
    return FailureClass.contentPolicy;
  if (code === 'vector_store_timeout') return FailureClass.timeout;
  if (IMAGE_FAULT_CODES.has(code ?? '') || type === 'invalid_request_error')
    return FailureClass.invalidRequest;
  // The provider broke off its own answer (server_error, or nothing said): the stream is unusable.
  return FailureClass.unavailable;
}

/**
 * Classifies anything an OpenAI call threw. Order matters: a ProviderError the adapter raised itself
 * passes through; aborts come first (APIUserAbortError is an APIError subclass), then the timeout
 * class before its parent APIConnectionError, then HTTP errors; non-SDK errors came from reading the
 * body.
 */
export function classifyOpenAIError(error: unknown, context: ClassifyContext = {}): ProviderError {
  if (error instanceof ProviderError) return error;
  return toProviderError(context.label ?? 'openai', classify(error, context), context.requestId);
}

function classify(error: unknown, context: ClassifyContext): Classification {
  if (error instanceof APIUserAbortError || isAbortError(error))
    return classifyAbort(context.abort ?? NOT_ABORTED);
  if (error instanceof APIConnectionTimeoutError) {
    return {
      failureClass: FailureClass.timeout,
      facts: { requestSent: true },
      reason: 'no response headers in time',
    };
  }
  if (error instanceof APIConnectionError) {
    const requestSent = !certainlyNotSent(error.cause);
    return { failureClass: FailureClass.unavailable, facts: { requestSent }, reason: 'connection failed' };
  }
  if (error instanceof APIError) {
    // The first of code and type that is identifier-shaped: a free-text code must not hide the type.
    const providerCode = safeIdentifier(error.code) ?? safeIdentifier(error.type);
    const retryAfterMs = parseRetryAfterMs(error.headers, context.nowMs);
    return {
      failureClass: classifyStatusError(error),
      facts: {
        requestSent: true,
        ...(error.status !== undefined ? { status: error.status } : {}),
        ...(providerCode !== undefined ? { providerCode } : {}),
        ...(error.requestID ? { requestId: error.requestID } : {}),
        ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      },
    };
  }
  return classifyTransportError(error);
}

// Classifies Anthropic SDK errors into failure classes by error class, type and code. Pure; worker side.
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  ClientClosedRequestError,
  GatewayTimeoutError,
  InternalServerError,
  PaymentRequiredError,
  PermissionDeniedError,
  RateLimitError,
  RequestTimeoutError,
} from '@anthropic-ai/sdk';
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
  /** Who failed, prefixing the error message: the configured provider name and the model. @default 'anthropic' */
  readonly label?: string;
  /** Current time in epoch milliseconds, for `retry-after` dates. @default Date.now() */
  readonly nowMs?: number;
  /** Request id from response headers already received, for errors raised after them. */
  readonly requestId?: string;
}

/** `error.details.error_code` values of a 429 that mean a spend limit, not a rate limit. */
const SPEND_LIMIT_CODES = new Set([
  'contract_spend_limit_reached',
  'enforced_spend_limit_reached',
  'linked_organization_spend_limit_reached',
  'linked_organization_billing_unavailable',
]);

/**
 * Anthropic gives a too-long prompt no error code: it is a 400 `invalid_request_error` whose message
 * starts "prompt is too long". The message is only consulted once class, status and type have
 * already narrowed the error to exactly that case, never on its own.
 */
const PROMPT_TOO_LONG = /^prompt is too long/i;

function classifyStatusError(error: APIError): FailureClass {
  const isQuota = error.type === 'billing_error' || SPEND_LIMIT_CODES.has(error.errorCode ?? '');
  if (error instanceof RateLimitError)
    return isQuota ? FailureClass.quotaExhausted : FailureClass.rateLimited;
  if (error instanceof PaymentRequiredError || isQuota) return FailureClass.quotaExhausted;
  if (error instanceof AuthenticationError || error instanceof PermissionDeniedError) {
    return FailureClass.authentication;
  }
  if (error instanceof RequestTimeoutError || error instanceof GatewayTimeoutError)
    return FailureClass.timeout;
  // OverloadedError (529), ServiceUnavailableError (503) and every other 5xx.
  if (error instanceof InternalServerError) return FailureClass.unavailable;
  // 499 says a proxy in between saw the connection close; nothing about the request itself was wrong.
  if (error instanceof ClientClosedRequestError) return FailureClass.unavailable;
  if (error instanceof BadRequestError) {
    const promptTooLong =
      error.type === 'invalid_request_error' && PROMPT_TOO_LONG.test(error.apiMessage ?? '');
    return promptTooLong ? FailureClass.contextOverflow : FailureClass.invalidRequest;
  }
  const status = error.status;
  if (status === undefined) return classifyStreamError(error.type);
  if (status >= 400 && status < 500) return FailureClass.invalidRequest;
  return FailureClass.invalidResponse;
}

/** An `error` event inside a 200 stream has no status: only its type says what happened. */
function classifyStreamError(type: string | null): FailureClass {
  switch (type) {
    case 'rate_limit_error':
      return FailureClass.rateLimited;
    case 'billing_error':
      return FailureClass.quotaExhausted;
    case 'timeout_error':
      return FailureClass.timeout;
    case 'authentication_error':
    case 'permission_error':
      return FailureClass.authentication;
    case 'invalid_request_error':
      return FailureClass.invalidRequest;
    default:
      // overloaded_error, api_error or nothing said: the provider broke off its own answer.
      return FailureClass.unavailable;
  }
}

/**
 * Classifies anything an Anthropic call threw. Order matters: a ProviderError the adapter raised itself
 * passes through; aborts come first (APIUserAbortError is an APIError subclass), then the timeout
 * class before its parent APIConnectionError, then HTTP errors; non-SDK errors came from reading the
 * body.
 */
export function classifyAnthropicError(error: unknown, context: ClassifyContext = {}): ProviderError {
  if (error instanceof ProviderError) return error;
  return toProviderError(context.label ?? 'anthropic', classify(error, context), context.requestId);
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
    const providerCode = safeIdentifier(error.errorCode) ?? safeIdentifier(error.type);
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

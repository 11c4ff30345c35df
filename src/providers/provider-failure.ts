// Building ProviderErrors safely, plus the classification rules both adapters share. Worker side.
import { FailureClass } from '../config/failure-class';
import type { AbortState } from './attempt-abort';
import { ProviderError, type Usage } from './types';

/** What a classified failure carries; nothing from the provider's message text or our request. */
export interface FailureFacts {
  readonly status?: number;
  readonly providerCode?: string;
  readonly retryAfterMs?: number;
  readonly requestId?: string;
  readonly requestSent: boolean;
  readonly usage?: Usage;
}

/**
 * Provider codes and request ids are kept only when they look like identifiers: no spaces, quotes or
 * punctuation beyond `_ . : -`, so no sentence of provider text (which may echo the prompt or part of
 * the key, like OpenAI's "Incorrect API key provided: sk-...abcd") can pass as one.
 */
const IDENTIFIER = /^[\w.:-]{1,100}$/;

/** `value` when it is an identifier-shaped string (see above), else undefined. */
export function safeIdentifier(value: unknown): string | undefined {
  return typeof value === 'string' && IDENTIFIER.test(value) ? value : undefined;
}

/**
 * A ProviderError whose message is assembled only from the failure class, HTTP status, provider code,
 * request id and our own `reason`, e.g. `openai gpt-4o: 429 rate_limited (rate_limit_exceeded, request
 * req_123)`. Neither the API key nor the provider's response text (which can echo parts of the key or
 * the prompt) can reach it, and so neither can reach workflow history, logs or the caller's error.
 * @param label who failed: the configured provider name and the model, e.g. `openai gpt-4o`
 * @param reason a fixed phrase written by the adapter, never provider text
 */
export function providerFailure(
  label: string,
  failureClass: FailureClass,
  facts: FailureFacts,
  reason?: string,
): ProviderError {
  const providerCode = safeIdentifier(facts.providerCode);
  const requestId = safeIdentifier(facts.requestId);
  const headline = [facts.status, failureClass].filter((part) => part !== undefined).join(' ');
  const notes = [reason, providerCode, requestId !== undefined ? `request ${requestId}` : undefined].filter(
    (part): part is string => part !== undefined && part !== '',
  );
  const message = `${label}: ${headline}${notes.length > 0 ? ` (${notes.join(', ')})` : ''}`;
  return new ProviderError(message, failureClass, {
    requestSent: facts.requestSent,
    ...(facts.status !== undefined ? { status: facts.status } : {}),
    ...(providerCode !== undefined ? { providerCode } : {}),
    ...(facts.retryAfterMs !== undefined ? { retryAfterMs: facts.retryAfterMs } : {}),
    ...(requestId !== undefined ? { requestId } : {}),
    ...(facts.usage !== undefined ? { usage: facts.usage } : {}),
  });
}

/** A failure class with its facts and our own reason phrase, before it becomes a ProviderError. */
export interface Classification {
  readonly failureClass: FailureClass;
  readonly facts: FailureFacts;
  /** A fixed phrase written by the adapter, never provider text. */
  readonly reason?: string;
}

/** Whose abort it was: the caller's cancellation wins over our own deadline. */
export function classifyAbort(abort: AbortState): Classification {
  if (!abort.callerAborted && abort.deadlineExceeded) {
    return {
      failureClass: FailureClass.timeout,
      facts: { requestSent: true },
      reason: 'attempt deadline passed',
    };
  }
  // An abort nobody claims can still only have come through the caller's signal.
  return {
    failureClass: FailureClass.cancelled,
    facts: { requestSent: true },
    reason: 'aborted by the caller',
  };
}

/**
 * The error's `name`. Errors raised inside fetch (undici) may come from another realm (Node's own
 * internals, or the host realm under a test sandbox), where `instanceof Error` is false; names are not.
 */
function errorName(error: unknown): string | undefined {
  const name = typeof error === 'object' && error !== null ? (error as { name?: unknown }).name : undefined;
  return typeof name === 'string' ? name : undefined;
}

/** A fetch / DOM abort (the body read was aborted after the SDK handed the response over). */
export function isAbortError(error: unknown): boolean {
  return errorName(error) === 'AbortError';
}

/** Network error codes that prove the request never left: no connection was ever made. */
const NEVER_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** Network error codes of a connection that broke mid-exchange (a cut body or stream). */
const BROKEN_CONNECTION_CODES = new Set([
  'UND_ERR_SOCKET',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
]);

/** Every `code` on the error's `cause` chain (and inside AggregateErrors, which undici uses for IPv4+6). */
export function networkErrorCodes(error: unknown, depth = 0): string[] {
  if (typeof error !== 'object' || error === null || depth > 6) return [];
  const codes: string[] = [];
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') codes.push(code);
  const inner = (error as { errors?: unknown }).errors;
  if (Array.isArray(inner)) for (const each of inner) codes.push(...networkErrorCodes(each, depth + 1));
  codes.push(...networkErrorCodes((error as { cause?: unknown }).cause, depth + 1));
  return codes;
}

/** True only when the cause chain proves no byte of the request reached the provider. */
export function certainlyNotSent(cause: unknown): boolean {
  const codes = networkErrorCodes(cause);
  return codes.length > 0 && codes.every((code) => NEVER_SENT_CODES.has(code));
}

/**
 * Errors that are not SDK errors: they come from reading the body after the SDK returned the response
 * (a connection cut mid-body or mid-stream, or a body that is not JSON).
 */
export function classifyTransportError(error: unknown): Classification {
  if (networkErrorCodes(error).some((code) => BROKEN_CONNECTION_CODES.has(code))) {
    return {
      failureClass: FailureClass.unavailable,
      facts: { requestSent: true },
      reason: 'connection cut mid-response',
    };
  }
  if (errorName(error) === 'SyntaxError') {
    return {
      failureClass: FailureClass.invalidResponse,
      facts: { requestSent: true },
      reason: 'response body is not JSON',
    };
  }
  return {
    failureClass: FailureClass.invalidResponse,
    facts: { requestSent: true },
    reason: 'unreadable response',
  };
}

/**
 * Turns a classification into the ProviderError; `fallbackRequestId` (from the response headers the
 * adapter already saw) fills in for errors raised after them, which carry no id of their own.
 */
export function toProviderError(
  label: string,
  classification: Classification,
  fallbackRequestId: string | undefined,
): ProviderError {
  const requestId = classification.facts.requestId ?? fallbackRequestId;
  return providerFailure(
    label,
    classification.failureClass,
    { ...classification.facts, ...(requestId !== undefined ? { requestId } : {}) },
    classification.reason,
  );
}

/**
 * The failures of one answered request (a 200): an answer that is not one, or one routing must still treat as a
 * failure (a refusal, a filter stop), each with the request id and, where known, the billed usage kept.
 */
export function answerFailure(
  label: string,
  requestId: string | null,
): (
  failureClass: FailureClass,
  reason: string,
  extra?: { usage?: Usage; providerCode?: string },
) => ProviderError {
  return (failureClass, reason, extra = {}) =>
    providerFailure(
      label,
      failureClass,
      { status: 200, requestSent: true, ...(requestId !== null ? { requestId } : {}), ...extra },
      reason,
    );
}

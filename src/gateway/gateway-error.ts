// What a gateway request can fail with, surface-neutral: kind, HTTP status, and the routed call behind it. Node side.
import { SwitchyardError } from '../config/branded-error';
import { IdempotencyConflictError, InvalidRequestError, RoutedCallError } from '../client/errors';
import type { RoutingRecord } from '../routing/routing-record';

/** A failure's kind decides the HTTP status and each surface's error type. */
export const GatewayErrorKind = {
  invalidRequest: 'invalid_request',
  authentication: 'authentication',
  permission: 'permission',
  notFound: 'not_found',
  /** The request clashes with an earlier one (an Idempotency-Key reused with another body). */
  conflict: 'conflict',
  requestTooLarge: 'request_too_large',
  /** Too many requests at once for one key: wait `retry-after` and send it again. */
  rateLimited: 'rate_limited',
  budget: 'budget',
  refused: 'refused',
  unavailable: 'unavailable',
  upstream: 'upstream',
  timeout: 'timeout',
  cancelled: 'cancelled',
  internal: 'internal',
} as const;
export type GatewayErrorKind = (typeof GatewayErrorKind)[keyof typeof GatewayErrorKind];

export const STATUS_OF_KIND: Readonly<Record<GatewayErrorKind, number>> = {
  invalid_request: 400,
  authentication: 401,
  permission: 403,
  not_found: 404,
  conflict: 409,
  request_too_large: 413,
  rate_limited: 429,
  budget: 402,
  refused: 422,
  unavailable: 503,
  upstream: 502,
  timeout: 504,
  cancelled: 499,
  internal: 500,
};

/** A refused or failed gateway request. `code` is stable: a routed call's failure type, or the gateway's own. */
export class GatewayError extends SwitchyardError {
  static override readonly brand: string = 'switchyard.GatewayError';

  override readonly name = 'GatewayError';
  constructor(
    message: string,
    readonly kind: GatewayErrorKind,
    /** `BudgetExceeded`, `CircuitOpen` … for a routed call; `invalid_api_key`, `model_not_found` … before one. */
    readonly code: string,
    readonly context: {
      /** The request field at fault, as the caller wrote it (`messages.1.content`). */
      readonly param?: string;
      /** Seconds the caller should wait before trying again (`Retry-After`). */
      readonly retryAfterSeconds?: number;
      readonly workflowId?: string;
      readonly record?: RoutingRecord;
    } = {},
  ) {
    super(message);
  }

  get status(): number {
    return STATUS_OF_KIND[this.kind];
  }
}

/** The kind of each routed-call failure type. */
const KIND_OF_FAILURE: Readonly<Record<string, GatewayErrorKind>> = {
  InvalidRequest: GatewayErrorKind.invalidRequest,
  ContextOverflow: GatewayErrorKind.invalidRequest,
  ContentRefused: GatewayErrorKind.refused,
  BudgetExceeded: GatewayErrorKind.budget,
  CircuitOpen: GatewayErrorKind.unavailable,
  AllTargetsFailed: GatewayErrorKind.upstream,
  StreamInterrupted: GatewayErrorKind.upstream,
  DeadlineExceeded: GatewayErrorKind.timeout,
  Cancelled: GatewayErrorKind.cancelled,
};

/** A routed call's failure, or a refused input, as a gateway error; anything else is internal. */
export function toGatewayError(error: unknown, nowMs: number = Date.now()): GatewayError {
  if (error instanceof GatewayError) return error;
  if (error instanceof RoutedCallError) {
    const retryAfterSeconds =
      error.retryAt !== undefined
        ? Math.max(1, Math.ceil((error.retryAt.getTime() - nowMs) / 1000))
        : undefined;
    return new GatewayError(
      error.message,
      KIND_OF_FAILURE[error.type] ?? GatewayErrorKind.internal,
      error.type,
      {
        workflowId: error.workflowId,
        ...(error.record ? { record: error.record } : {}),
        ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
      },
    );
  }
  if (error instanceof InvalidRequestError) {
    return new GatewayError(error.message, GatewayErrorKind.invalidRequest, 'InvalidRequest', {
      param: error.field,
    });
  }
  // The caller's own key, reused: the call it names was started with another request. Our words: the client's
  // message names the routed call's key, which holds the gateway key's id.
  if (error instanceof IdempotencyConflictError) {
    return new GatewayError(
      'Idempotency-Key was already used with a different request; use a new key for a new request',
      GatewayErrorKind.conflict,
      'idempotency_key_reused',
      { param: 'Idempotency-Key', workflowId: error.workflowId },
    );
  }
  // The client's own size check (a payload too large for Temporal) names the limit in its message: our words.
  if ((error as Error | undefined)?.name === 'PayloadTooLargeError') {
    return new GatewayError((error as Error).message, GatewayErrorKind.requestTooLarge, 'payload_too_large', {
      param: 'messages',
    });
  }
  // Our own words only: an unexpected error's message could hold anything.
  return new GatewayError(
    `internal gateway error (${(error as Error | undefined)?.name ?? 'unknown'})`,
    GatewayErrorKind.internal,
    'internal_error',
  );
}

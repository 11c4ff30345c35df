// Errors the client API throws: typed routed-call failures, rejected requests, idempotency conflicts. Node side.
import { SwitchyardError } from '../config/branded-error';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { WorkflowFailedError } from '@temporalio/client';
import { nanoToUsd } from '../routing/money';
import type { RoutedCallFailureType, RoutingRecord } from '../routing/routing-record';

/** Why a `BudgetExceeded` call was refused: the tightest refusal among its targets. */
export interface BudgetRefusal {
  /** `ledger` when the scope's limit refused; `call` when the call's own `maxCostUsd` did. */
  readonly limitedBy: 'ledger' | 'call';
  /** The budget scope, when the ledger refused. */
  readonly scope?: string;
  /** The cheapest attempt's worst case, which did not fit. */
  readonly requestedNanoUsd: number;
  readonly requestedUsd: number;
  /** The scope's limit (or the call's `maxCostUsd`); `null` for an unlimited scope. */
  readonly limitNanoUsd: number | null;
  readonly limitUsd: number | null;
  /** What was left to reserve; `null` when unlimited. */
  readonly availableNanoUsd: number | null;
  readonly availableUsd: number | null;
}

/** The typed fields a failure's details may fill in, besides the record. */
export interface RoutedCallErrorFields {
  /** `CircuitOpen`: when the earliest target may be tried again. */
  readonly retryAt?: Date;
  /** `CircuitOpen`: milliseconds from when the error was read until {@link retryAt} (0 once it has passed). */
  readonly retryAfterMs?: number;
  /** `BudgetExceeded`: the numbers of the refusal. */
  readonly budget?: BudgetRefusal;
  /** `InvalidRequest` refused by the workflow's own validation: the path of the first bad field. */
  readonly field?: string;
}

/**
 * A routed call that ended without an answer; `type` is stable (`AllTargetsFailed`, `BudgetExceeded`, …), and
 * what its type carries is in typed fields: `retryAt` / `retryAfterMs` for `CircuitOpen`, `budget` for
 * `BudgetExceeded`, `field` for an `InvalidRequest` the workflow refused, and the routing record.
 */
export class RoutedCallError extends SwitchyardError implements RoutedCallErrorFields {
  static override readonly brand: string = 'switchyard.RoutedCallError';

  override readonly name = 'RoutedCallError';
  readonly retryAt?: Date;
  readonly retryAfterMs?: number;
  readonly budget?: BudgetRefusal;
  readonly field?: string;

  constructor(
    message: string,
    readonly type: RoutedCallFailureType,
    readonly workflowId: string,
    /** Every attempt made before the call ended; absent only if the call failed before resolving its route. */
    readonly record: RoutingRecord | undefined,
    fields: RoutedCallErrorFields = {},
  ) {
    super(message);
    if (fields.retryAt !== undefined) this.retryAt = fields.retryAt;
    if (fields.retryAfterMs !== undefined) this.retryAfterMs = fields.retryAfterMs;
    if (fields.budget !== undefined) this.budget = fields.budget;
    if (fields.field !== undefined) this.field = fields.field;
  }

  /** The error as plain JSON: type, message, workflow id and the typed fields (the record is left out). */
  toJSON(): Record<string, unknown> {
    return {
      type: this.type,
      message: this.message,
      workflowId: this.workflowId,
      ...(this.retryAt !== undefined ? { retryAt: this.retryAt.toISOString() } : {}),
      ...(this.retryAfterMs !== undefined ? { retryAfterMs: this.retryAfterMs } : {}),
      ...(this.budget !== undefined ? { budget: this.budget } : {}),
      ...(this.field !== undefined ? { field: this.field } : {}),
    };
  }
}

// Apart, so validating a call (the CLI's `plan`, a bad flag) does not load the Temporal client.
export { InvalidRequestError } from './invalid-request-error';

/**
 * An idempotency key reused with a different input: the key's call exists (running or ended) and was started
 * with other input, so returning its answer would answer a question that was not asked. Nothing was started.
 */
export class IdempotencyConflictError extends SwitchyardError {
  static override readonly brand: string = 'switchyard.IdempotencyConflictError';

  override readonly name = 'IdempotencyConflictError';
  constructor(
    message: string,
    readonly idempotencyKey: string,
    /** The existing call's workflow id. */
    readonly workflowId: string,
  ) {
    super(message);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isRecord(value: unknown): value is RoutingRecord {
  return isObject(value) && Array.isArray(value.attempts) && typeof value.route === 'string';
}

const nullableNumber = (value: unknown): value is number | null =>
  value === null || (typeof value === 'number' && Number.isFinite(value));

function budgetRefusal(value: unknown): BudgetRefusal | undefined {
  if (!isObject(value)) return undefined;
  const { limitedBy, scope, requestedNanoUsd, limitNanoUsd, availableNanoUsd } = value;
  if (limitedBy !== 'ledger' && limitedBy !== 'call') return undefined;
  if (typeof requestedNanoUsd !== 'number' || !Number.isFinite(requestedNanoUsd)) return undefined;
  if (!nullableNumber(limitNanoUsd) || !nullableNumber(availableNanoUsd)) return undefined;
  const usd = (nano: number | null) => (nano === null ? null : nanoToUsd(nano));
  return {
    limitedBy,
    ...(typeof scope === 'string' ? { scope } : {}),
    requestedNanoUsd,
    requestedUsd: nanoToUsd(requestedNanoUsd),
    limitNanoUsd,
    limitUsd: usd(limitNanoUsd),
    availableNanoUsd,
    availableUsd: usd(availableNanoUsd),
  };
}

/**
 * The typed fields of a failure's details, whichever entry carries them: the workflow puts the record first
 * and its type's own facts after it (`{ shortfall }`, `{ retryAtMs }`, `{ field }`), and an entry that is not
 * what it should be is ignored rather than trusted.
 */
export function readFailureDetails(
  details: readonly unknown[] | null | undefined,
  nowMs: number = Date.now(),
): { record: RoutingRecord | undefined; fields: RoutedCallErrorFields } {
  let record: RoutingRecord | undefined;
  const fields: { -readonly [Key in keyof RoutedCallErrorFields]: RoutedCallErrorFields[Key] } = {};
  for (const entry of details ?? []) {
    if (isRecord(entry)) {
      record ??= entry;
      continue;
    }
    if (!isObject(entry)) continue;
    const retryAtMs = entry.retryAtMs;
    if (typeof retryAtMs === 'number' && Number.isFinite(retryAtMs) && fields.retryAt === undefined) {
      fields.retryAt = new Date(retryAtMs);
      fields.retryAfterMs = Math.max(0, retryAtMs - nowMs);
    }
    const budget = budgetRefusal(entry.shortfall);
    if (budget && fields.budget === undefined) fields.budget = budget;
    if (typeof entry.field === 'string' && fields.field === undefined) fields.field = entry.field;
  }
  return { record, fields };
}

/** Converts a failed workflow result into a {@link RoutedCallError}; other errors pass through. */
export function toRoutedCallError(error: unknown, workflowId: string): unknown {
  if (!(error instanceof WorkflowFailedError)) return error;
  const cause = error.cause;
  if (cause instanceof CancelledFailure) {
    const { record } = readFailureDetails(cause.details);
    return new RoutedCallError(cause.message, 'Cancelled', workflowId, record);
  }
  if (cause instanceof ApplicationFailure && cause.type) {
    const { record, fields } = readFailureDetails(cause.details);
    return new RoutedCallError(
      cause.message,
      cause.type as RoutedCallFailureType,
      workflowId,
      record,
      fields,
    );
  }
  return error;
}

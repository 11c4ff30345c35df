// Ledger names and payloads shared by workflow, activity and client: id, messages, schemas. Workflow-safe.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { z } from 'zod';
import { BudgetScopeSchema } from '../../config/budget';
import type { LimitChange } from '../../routing/ledger-limits';
import type { LedgerSnapshot } from '../../routing/ledger-snapshot';
import type {
  AllowanceClaims,
  LedgerLimit,
  LedgerState,
  ReservationDecision,
  ReservationRequest,
  Settlement,
} from '../../routing/ledger-state';
import { LEDGER_PERIODS, type LedgerPeriod } from '../../config/budget';

/** Workflow id of the ledger of a budget scope: one ledger per scope, shared by every route and worker. */
export function ledgerWorkflowId(scope: string): string {
  return `switchyard-ledger-${scope}`;
}

/** Most reservations one reserve update carries; a worker splits larger backlogs into several updates. */
export const MAX_RESERVATIONS_PER_UPDATE = 500;
/** Longest lease a reservation may ask for: one day, in milliseconds. */
export const MAX_LEASE_MS = 86_400_000;
/** Longest lease an allowance may ask for, in milliseconds: what it holds is held from everyone else. */
export const MAX_ALLOWANCE_LEASE_MS = 60_000;
/**
 * Messages (updates and signals) one ledger run handles before it continues as new. Temporal refuses more
 * than 2 000 updates per run; history size is watched too, through `continueAsNewSuggested`.
 */
export const DEFAULT_CONTINUE_AS_NEW_AFTER_MESSAGES = 1000;

/** `ApplicationFailure.type` of a reserve update refused whole by its validator: nothing in it fitted. */
export const RESERVE_REFUSED_FAILURE_TYPE = 'BudgetExceeded';

const NanoUsdSchema = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const PeriodSchema = z.enum(LEDGER_PERIODS as [LedgerPeriod, ...LedgerPeriod[]]);

const ClaimSchema = z.object({
  reservationId: z.string().min(1).max(500),
  amountNanoUsd: NanoUsdSchema,
  holder: z.string().max(1000),
  leaseMs: z.number().int().min(1).max(MAX_LEASE_MS),
}) satisfies z.ZodType<ReservationRequest>;

export const ReservationRequestSchema = ClaimSchema.extend({ allowance: z.literal(true).optional() }).refine(
  (request) => request.allowance !== true || request.leaseMs <= MAX_ALLOWANCE_LEASE_MS,
  { message: `an allowance's lease is at most ${MAX_ALLOWANCE_LEASE_MS} ms`, path: ['leaseMs'] },
) satisfies z.ZodType<ReservationRequest>;

export const LedgerLimitSchema = z.object({
  limitNanoUsd: NanoUsdSchema.nullable(),
  period: PeriodSchema.nullable(),
}) satisfies z.ZodType<LedgerLimit>;

export const ReserveBatchSchema = z.object({
  requests: z.array(ReservationRequestSchema).min(1).max(MAX_RESERVATIONS_PER_UPDATE),
  /** The config file's budget for the scope, as the sending worker sees it; applied when it changes. */
  declaredLimit: LedgerLimitSchema.optional(),
});
export type ReserveBatch = z.infer<typeof ReserveBatchSchema>;

export interface ReserveBatchResult {
  /** One decision per request, in request order. */
  readonly decisions: ReservationDecision[];
}

export const SettlementSchema = z.object({
  reservationId: z.string().min(1).max(500),
  costNanoUsd: NanoUsdSchema,
  costKnown: z.boolean(),
}) satisfies z.ZodType<Settlement>;

export const ReleaseSchema = z.object({ reservationId: z.string().min(1).max(500) });
export type Release = z.infer<typeof ReleaseSchema>;

/** The claims of a claim signal alone: applied even when what rides with them is malformed. */
export const ClaimsOnlySchema = z.object({
  allowanceId: z.string().min(1).max(500),
  claims: z.array(ClaimSchema).min(1).max(MAX_RESERVATIONS_PER_UPDATE),
});

export const AllowanceClaimsSchema = z.object({
  allowanceId: z.string().min(1).max(500),
  claims: z.array(ClaimSchema).min(1).max(MAX_RESERVATIONS_PER_UPDATE),
  settlements: z.array(SettlementSchema).max(MAX_RESERVATIONS_PER_UPDATE).optional(),
  releases: z.array(ReleaseSchema).max(MAX_RESERVATIONS_PER_UPDATE).optional(),
}) satisfies z.ZodType<AllowanceClaims>;

/**
 * One worker's messages to a ledger in one update: settles and releases (applied first: they free budget), then
 * reservations, granted in order while they fit. Capped at {@link MAX_RESERVATIONS_PER_UPDATE} in all.
 */
export const LedgerMessagesSchema = z
  .object({
    requests: z.array(ReservationRequestSchema).max(MAX_RESERVATIONS_PER_UPDATE),
    settlements: z.array(SettlementSchema).max(MAX_RESERVATIONS_PER_UPDATE),
    releases: z.array(ReleaseSchema).max(MAX_RESERVATIONS_PER_UPDATE),
    /** The config file's budget for the scope, as the sending worker sees it; applied when it changes. */
    declaredLimit: LedgerLimitSchema.optional(),
  })
  .refine(
    (messages) => {
      const count = messages.requests.length + messages.settlements.length + messages.releases.length;
      return count > 0 && count <= MAX_RESERVATIONS_PER_UPDATE;
    },
    { message: `a batch carries from 1 to ${MAX_RESERVATIONS_PER_UPDATE} messages` },
  );
export type LedgerMessages = z.infer<typeof LedgerMessagesSchema>;

export const LimitChangeSchema = z.object({
  limitNanoUsd: NanoUsdSchema.nullable(),
  period: PeriodSchema.nullable().optional(),
}) satisfies z.ZodType<LimitChange>;

export const LedgerWorkflowInputSchema = z.object({
  scope: BudgetScopeSchema,
  /** State carried over by continue-as-new; absent when the ledger is first created. */
  carried: z.custom<LedgerState>((value) => typeof value === 'object' && value !== null).optional(),
  /** Test-only: fixed window length in milliseconds, replacing the calendar period. @default none */
  windowMs: z.number().int().min(1).optional(),
  /** Messages per run before continue-as-new. @default {@link DEFAULT_CONTINUE_AS_NEW_AFTER_MESSAGES} */
  continueAsNewAfterMessages: z.number().int().min(1).max(1500).optional(),
});
export type LedgerWorkflowInput = z.input<typeof LedgerWorkflowInputSchema>;

/**
 * Reserves a batch of reservations, granted in order while they fit. The validator refuses the whole update
 * when nothing in it can be granted (details[0] is the {@link ReserveBatchResult}), so refusals of a spent
 * scope add nothing to its history.
 */
export const reserveUpdate = defineUpdate<ReserveBatchResult, [ReserveBatch]>('reserve');
/**
 * A worker's batch of settles, releases and reservations (see {@link LedgerMessagesSchema}); answers the
 * reservations as `reserve` does, and like it is refused whole, without history, when it holds nothing but
 * reservations and none of them fits. Workers send every message this way: unlike a signal, an update that
 * arrives while the ledger continues as new never fails that workflow task (it is retried on the next run).
 */
export const messagesUpdate = defineUpdate<ReserveBatchResult, [LedgerMessages]>('messages');
/** Sets the limit (and optionally the period) as an operator; returns the snapshot after the change. */
export const setLimitUpdate = defineUpdate<LedgerSnapshot, [LimitChange]>('setLimit');
/** Closes a reservation with its cost (known, or unknown: charged in full). */
export const settleSignal = defineSignal<[Settlement]>('settle');
/**
 * Reservations a worker granted its attempts from its allowance, recorded before any of them is sent (a signal
 * is in the ledger's history once its send returns, without waiting for a workflow task); see `claimFromAllowance`.
 */
export const claimSignal = defineSignal<[AllowanceClaims]>('claim');
/** Closes a reservation without charge: nothing was sent. */
export const releaseSignal = defineSignal<[Release]>('release');
export const snapshotQuery = defineQuery<LedgerSnapshot>('snapshot');

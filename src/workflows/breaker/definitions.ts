// Names shared by the breaker entity, the worker's breaker access and clients: ids, messages, inputs. Workflow-safe.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { z } from 'zod';
import { BreakerPolicySchema } from '../../config/route';
import { ALL_FAILURE_CLASSES, type FailureClass } from '../../config/failure-class';
import { BreakerOutcome, breakerKey, parseBreakerKey, type BreakerState } from '../../routing/breaker-state';
import type { AdmitDecision } from '../../routing/breaker-admission';
import type { CarriedBreakerState } from '../../routing/breaker-migration';

/** Workflow type of the breaker entity, as listed by visibility queries. */
export const BREAKER_WORKFLOW_TYPE = 'breakerWorkflow';

const BREAKER_WORKFLOW_ID_PREFIX = 'switchyard-breaker-';

/** Workflow id of the one breaker entity of `(provider, model)`: `switchyard-breaker-<provider>/<model>`. */
export function breakerWorkflowId(provider: string, model: string): string {
  return `${BREAKER_WORKFLOW_ID_PREFIX}${breakerKey(provider, model)}`;
}

/** The `provider/model` key of a breaker workflow id, or undefined for any other workflow id. */
export function breakerKeyOfWorkflowId(workflowId: string): string | undefined {
  if (!workflowId.startsWith(BREAKER_WORKFLOW_ID_PREFIX)) return undefined;
  const key = workflowId.slice(BREAKER_WORKFLOW_ID_PREFIX.length);
  return parseBreakerKey(key) ? key : undefined;
}

/** The UI summary a breaker entity is started with. */
export function breakerStaticSummary(provider: string, model: string): string {
  return `breaker ${breakerKey(provider, model)}`;
}

const callerSchema = z.string().min(1).max(1000);

export const BreakerAdmitInputSchema = z.object({
  /** `<routed-call workflow id>#<attempt>`: the probe holder's name, and what makes a repeated ask idempotent. */
  caller: callerSchema,
  /** The asking route's breaker policy. */
  policy: BreakerPolicySchema,
  /** How long a granted probe is held before another caller may take it, in milliseconds. */
  probeLeaseMs: z.number().int().min(1).max(86_400_000),
  /** Take the probe before the cooldown because every target of the route is open. @default false */
  force: z.boolean().optional(),
});
export type BreakerAdmitInput = z.infer<typeof BreakerAdmitInputSchema>;

export interface BreakerAdmitResult {
  readonly decision: AdmitDecision;
  /** For `deny`: epoch milliseconds when this caller could next be admitted. */
  readonly retryAtMs?: number;
  /** For `deny`: a provider's `Retry-After` pauses the target for every route until `retryAtMs`. */
  readonly paused?: true;
  /** The breaker's state after the decision, so the asking worker can refresh its hint. */
  readonly state: BreakerState;
}

export const BreakerOutcomeInputSchema = z.object({
  /** Unique per report; a report delivered twice (a retried local activity) is applied once. */
  reportId: z.string().min(1).max(1100),
  caller: callerSchema,
  /** The reporting route's breaker policy. */
  policy: BreakerPolicySchema,
  outcome: z.enum(Object.values(BreakerOutcome) as [BreakerOutcome, ...BreakerOutcome[]]),
  failureClass: z.enum(ALL_FAILURE_CLASSES as [FailureClass, ...FailureClass[]]).optional(),
  /**
   * The provider's `Retry-After` with a `rate_limited` failure, in milliseconds: pauses the target for every route
   * (clamped to 1–60 s). Absent in reports written before pauses existed, which pause nothing.
   */
  retryAfterMs: z.number().nonnegative().optional(),
  /** Epoch milliseconds the reporter saw the failure, sent with `retryAfterMs`: the pause runs from then. */
  failedAtMs: z.number().int().nonnegative().optional(),
});
export type BreakerOutcomeInput = z.infer<typeof BreakerOutcomeInputSchema>;

export const BreakerResetInputSchema = z.object({
  /** Who resets (an operator name, `cli`, `api`); recorded in the transition log. */
  by: z.string().min(1).max(200),
  /** Why; recorded in the transition log. @default 'reset by an operator' */
  detail: z.string().max(500).optional(),
});
export type BreakerResetInput = z.infer<typeof BreakerResetInputSchema>;

/** What the state query returns. */
export interface BreakerSnapshot {
  readonly provider: string;
  readonly model: string;
  /** `provider/model`. */
  readonly key: string;
  /**
   * The shared facts; `state.status` is the breaker as judged by the strictest policy seen, and each policy in
   * `state.policies` judges the counts for itself (`judgeBreaker`).
   */
  readonly state: BreakerState;
  /** Runs of this entity before the current one (continue-as-new count). */
  readonly generation: number;
  /** Events in the current run's history. */
  readonly historyLength: number;
}

export interface BreakerWorkflowInput {
  readonly provider: string;
  readonly model: string;
  /**
   * State carried over continue-as-new; a state written by earlier code is migrated when the run starts.
   * @default a closed breaker with no failures
   */
  readonly state?: CarriedBreakerState;
  /** Ids of recently applied reports, carried over continue-as-new so a late duplicate is still ignored. */
  readonly recentReportIds?: readonly string[];
  /** @default 0 */
  readonly generation?: number;
  /**
   * Continue as new once the run's history has this many events (or when the server suggests it first).
   * Tests set it low to force continue-as-new. @default 4000
   */
  readonly continueAsNewAfterEvents?: number;
  /**
   * Continue as new after this many updates in one run; Temporal refuses more than 2 000 per run.
   * @default 1000
   */
  readonly continueAsNewAfterUpdates?: number;
}

/** Asks for admission: `allow`, `probe` (this caller holds the one half-open probe) or `deny` with a retry time. */
export const admitUpdate = defineUpdate<BreakerAdmitResult, [BreakerAdmitInput]>('admit');
/** Reports an attempt's outcome; sent only when it can change the breaker's state. */
export const outcomeSignal = defineSignal<[BreakerOutcomeInput]>('outcome');
/** Closes the breaker, forgetting its failures and probe; returns the snapshot after the reset. */
export const resetUpdate = defineUpdate<BreakerSnapshot, [BreakerResetInput]>('reset');
/** The breaker's state, transitions and counts. Queries add nothing to the entity's history. */
export const stateQuery = defineQuery<BreakerSnapshot>('state');

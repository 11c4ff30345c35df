// The routing record: what a routed call did, attempt by attempt. Plain JSON types, workflow-safe.
import type { GenerationResult } from '../providers/types';
import type { FailureClass } from '../config/failure-class';

export const AttemptOutcome = { succeeded: 'succeeded', failed: 'failed', skipped: 'skipped' } as const;
export type AttemptOutcome = (typeof AttemptOutcome)[keyof typeof AttemptOutcome];

/** Why a target was passed over without a request. */
export const SkipReason = {
  circuitOpen: 'circuit_open',
  overBudget: 'over_budget',
  /** The target's configured context window cannot hold the prompt's token bound plus the output cap. */
  contextWindow: 'context_window',
  /**
   * The target cannot take the conversation as it stands: its model does not accept images, documents, tools or
   * reasoning options, or it would need reasoning that another provider kind produced.
   */
  unsupportedInput: 'unsupported_input',
  /**
   * The target answered a call (of any route) with a rate limit and a `Retry-After`: every route passes it over
   * until then (1–60 s); the message names until when. Counts like `circuit_open` for retry times.
   */
  paused: 'paused',
} as const;
export type SkipReason = (typeof SkipReason)[keyof typeof SkipReason];

export interface AttemptRecord {
  /** 1-based attempt number within the call (skips included). */
  readonly attempt: number;
  readonly targetIndex: number;
  readonly provider: string;
  readonly model: string;
  /** 0 for the first try of the target, 1.. for its retries. */
  readonly retry: number;
  /** Walk of the route this attempt belongs to: 1, then 2.. for each round a patient call waited for. */
  readonly round: number;
  readonly outcome: AttemptOutcome;
  readonly skipReason?: SkipReason;
  readonly failureClass?: FailureClass;
  /** Short machine-made description; never a provider body or a secret. */
  readonly message?: string;
  readonly httpStatus?: number;
  readonly providerCode?: string;
  readonly retryAfterMs?: number;
  readonly requestId?: string;
  /** ISO time the attempt started (workflow time). */
  readonly startedAt: string;
  /** Wall time from scheduling the attempt to its end, in milliseconds (workflow time). */
  readonly latencyMs: number;
  /** The worst-case cost reserved for this attempt before it was made, in nano-USD; absent for skips. */
  readonly reservedNanoUsd?: number;
  /** Charged cost in nano-USD (0 for skips and for requests that were never sent). */
  readonly costNanoUsd: number;
  /** False when the cost is the attempt's worst-case bound because usage is unknown. */
  readonly costKnown: boolean;
}

/** A candidate passed over before the walk, or while it ran, and why. */
export interface CandidateVerdict {
  /** `provider/model`, or `route:<name>` for a nested route. */
  readonly candidate: string;
  readonly reason: string;
}

/** Why the call went where it went: the strategy's order, and what was rejected or skipped on the way. */
export interface RoutingExplanation {
  /** The strategy that ordered the candidates (the route's, or the call's `prefer`). */
  readonly strategy: string;
  /** Every candidate, in the order the strategy put them. */
  readonly considered: readonly string[];
  /** The candidate that served the call (absent on failure). */
  readonly chosen?: string;
  /** One sentence: why this order, and why the chosen candidate. */
  readonly reason: string;
  /** Candidates removed by a hard filter (`require`, capabilities, context window) before anything was sent. */
  readonly rejected: readonly CandidateVerdict[];
  /** Candidates passed over during the walk (breaker open, over budget, paused). */
  readonly skipped: readonly CandidateVerdict[];
}

export interface RoutingRecord {
  readonly route: string;
  /** The route's version the call used (routes changed at runtime); absent: the config file's. */
  readonly routeVersion?: number;
  /** `hit`: served from the response cache, free, nothing sent; `miss`: answered by a provider and cached. */
  readonly cache?: 'hit' | 'miss';
  /** Why the call went where it went; absent in records of calls made before explanations existed. */
  readonly explanation?: RoutingExplanation;
  readonly workflowId: string;
  /** The target that served the call, absent on failure. */
  readonly servedBy?: { readonly targetIndex: number; readonly provider: string; readonly model: string };
  /** Attempts with a request beyond the first one (failovers and retries). */
  readonly fallbacks: number;
  /** Walks of the route: more than 1 when a patient call waited out an outage. */
  readonly rounds: number;
  readonly totalCostNanoUsd: number;
  readonly totalCostUsd: number;
  readonly attempts: readonly AttemptRecord[];
}

/** Stable `ApplicationFailure.type` strings of a failed routed call; each carries the routing record. */
export const RoutedCallFailureType = {
  allTargetsFailed: 'AllTargetsFailed',
  budgetExceeded: 'BudgetExceeded',
  circuitOpen: 'CircuitOpen',
  deadlineExceeded: 'DeadlineExceeded',
  invalidRequest: 'InvalidRequest',
  contentRefused: 'ContentRefused',
  contextOverflow: 'ContextOverflow',
  cancelled: 'Cancelled',
  /** A streamed call's attempt failed after its output reached the caller, so it could not fail over. */
  streamInterrupted: 'StreamInterrupted',
} as const;
export type RoutedCallFailureType = (typeof RoutedCallFailureType)[keyof typeof RoutedCallFailureType];

/** What a successful routed call returns: the normalized answer and how it was obtained. */
export interface RoutedCallResult {
  readonly answer: Omit<GenerationResult, 'provider' | 'model'>;
  readonly record: RoutingRecord;
}

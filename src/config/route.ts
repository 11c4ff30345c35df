// Route schemas: ordered targets with timeouts and retries, failover and breaker policy. Workflow-safe (zod only).
import { z } from 'zod';
import { strictObject } from './strict-object';
import { FAILOVER_CLASSES, type FailureClass } from './failure-class';

/** Hard cap on attempts of one routed call, retries and failovers included. */
export const MAX_ATTEMPTS_CAP = 10;

export const TargetSchema = strictObject({
  /** Provider name as configured under `providers`. */
  provider: z.string().min(1),
  /** Model id sent to the provider; must be listed under that provider's `models`. */
  model: z.string().min(1),
  /**
   * Deadline of one attempt on this target, in milliseconds (the activity's start-to-close timeout).
   * @default 60000
   */
  timeoutMs: z.number().int().min(100).max(3_600_000).default(60_000),
  /** Further attempts on this same target after a failure that fails over. @default 0 */
  retries: z
    .number()
    .int()
    .min(0)
    .max(MAX_ATTEMPTS_CAP - 1)
    .default(0),
});
export type Target = z.infer<typeof TargetSchema>;

export const BreakerPolicySchema = strictObject({
  /** Consecutive counted failures that open the breaker. @default 3 */
  failureThreshold: z.number().int().min(1).max(1000).default(3),
  /** How long an open breaker stays open before one probe is allowed, in milliseconds. @default 30000 */
  cooldownMs: z.number().int().min(0).max(86_400_000).default(30_000),
});
export type BreakerPolicy = z.infer<typeof BreakerPolicySchema>;

export const WhenAllOpen = { probeFirst: 'probe_first', fail: 'fail' } as const;

export const RouteSpecSchema = strictObject({
  /** Targets in order of preference; the first that succeeds serves the call. */
  targets: z.array(TargetSchema).min(1, 'a route needs at least one target').max(MAX_ATTEMPTS_CAP),
  /** Cap on attempts for one call, retries included (at most 10). @default 10 */
  maxAttempts: z.number().int().min(1).max(MAX_ATTEMPTS_CAP).default(MAX_ATTEMPTS_CAP),
  /** Deadline for the whole call, in milliseconds from its start. @default no deadline beyond the targets' own */
  deadlineMs: z.number().int().positive().optional(),
  /**
   * Failure classes that move on to the next target. Narrows the default set; classes that never fail over
   * (invalid request, refusals, cancellation) cannot be listed. @default every class that fails over
   */
  failoverOn: z.array(z.enum(FAILOVER_CLASSES as [FailureClass, ...FailureClass[]])).optional(),
  /** Breaker policy this route applies to its targets' breakers. */
  breaker: BreakerPolicySchema.default({ failureThreshold: 3, cooldownMs: 30_000 }),
  /** What to do when every target's breaker is open. @default 'probe_first' */
  whenAllOpen: z.enum([WhenAllOpen.probeFirst, WhenAllOpen.fail]).default(WhenAllOpen.probeFirst),
  /** Refuse calls on this route that name no budget scope. @default false */
  requireBudget: z.boolean().default(false),
  /**
   * Heartbeat timeout of each attempt, in milliseconds: how soon a dead worker is noticed. The attempt
   * heartbeats three times per timeout, so a lost worker is noticed within this long.
   * @default 2000
   */
  heartbeatTimeoutMs: z.number().int().min(1000).max(600_000).default(2_000),
});
export type RouteSpecInput = z.input<typeof RouteSpecSchema>;
export type RouteSpec = z.infer<typeof RouteSpecSchema>;

// Route schemas: ordered targets with timeouts and retries, failover and breaker policy. Workflow-safe (zod only).
import { z } from 'zod';
import { strictObject } from './strict-object';
import { FAILOVER_CLASSES, type FailureClass } from './failure-class';

/** Hard cap on attempts of one routed call, retries and failovers included. */
export const MAX_ATTEMPTS_CAP = 10;

const WeightSchema = z.number().positive().max(1_000_000).default(1);

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
  /** Share of calls this target leads under the `weighted` strategy, relative to the others'. @default 1 */
  weight: WeightSchema,
});
export type Target = z.infer<typeof TargetSchema>;

/**
 * Another configured route as one candidate of this one: its own strategy picks one of its targets, and when that
 * attempt fails the outer route moves on to its next candidate (the nested route does not fail over inside).
 */
export const NestedRouteTargetSchema = strictObject({
  /** Name of a configured route; it may not itself contain nested routes. */
  route: z.string().min(1),
  /** Share of calls this candidate leads under the `weighted` strategy. @default 1 */
  weight: WeightSchema,
});
export type NestedRouteTarget = z.infer<typeof NestedRouteTargetSchema>;

/**
 * A target or a nested route, told apart by the `route` key. Checked by shape rather than by `z.union`, whose
 * refusal of a target with one bad field is a bare "Invalid input": this way the error names the field.
 */
export const RouteTargetSchema = z
  .custom<z.input<typeof TargetSchema> | z.input<typeof NestedRouteTargetSchema>>()
  .transform((value, context): Target | NestedRouteTarget => {
    const nested = typeof value === 'object' && value !== null && 'route' in value;
    const parsed = (nested ? NestedRouteTargetSchema : TargetSchema).safeParse(value);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) context.addIssue(issue as z.core.$ZodRawIssue);
    return z.NEVER;
  });
export type RouteTarget = Target | NestedRouteTarget;

export function isNestedRouteTarget(target: RouteTarget): target is NestedRouteTarget {
  return 'route' in target;
}

/**
 * How a route orders its candidates for each call:
 * - `ordered`: as declared;
 * - `cheapest`: lowest worst-case cost of the call first (input plus output price), declared order on ties;
 * - `fastest`: lowest recent measured latency first, targets without measurements after them in declared order;
 * - `weighted`: one candidate leads, drawn with probability proportional to its weight, the rest follow in order;
 * - `fewest_failures`: fewest recent failures first, ties in declared order; asked again after each failure.
 */
export const ROUTING_STRATEGIES = ['ordered', 'cheapest', 'fastest', 'weighted', 'fewest_failures'] as const;
export type RoutingStrategy = (typeof ROUTING_STRATEGIES)[number];

export const ResponseCacheSchema = strictObject({
  /** How long a cached answer is served, in milliseconds (1 s to 7 days). */
  ttlMs: z
    .number()
    .int()
    .min(1_000)
    .max(7 * 86_400_000),
});
export type ResponseCacheSpec = z.infer<typeof ResponseCacheSchema>;

export const BreakerPolicySchema = strictObject({
  /** Consecutive counted failures that open the breaker. @default 3 */
  failureThreshold: z.number().int().min(1).max(1000).default(3),
  /** How long an open breaker stays open before one probe is allowed, in milliseconds. @default 30000 */
  cooldownMs: z.number().int().min(0).max(86_400_000).default(30_000),
});
export type BreakerPolicy = z.infer<typeof BreakerPolicySchema>;

export const WhenAllOpen = { probeFirst: 'probe_first', fail: 'fail' } as const;

export const RouteSpecSchema = strictObject({
  /** Targets (or nested routes) in order of preference; the strategy orders them for each call. */
  targets: z.array(RouteTargetSchema).min(1, 'a route needs at least one target').max(MAX_ATTEMPTS_CAP),
  /** How the targets are ordered for each call. @default 'ordered' */
  strategy: z.enum(ROUTING_STRATEGIES).default('ordered'),
  /** Serve an identical request's answer from the response cache for this long. @default no caching */
  cache: ResponseCacheSchema.optional(),
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

// Input of the routed-call workflow: zod schema shared by the client and the workflow. Workflow-safe.
import { z } from 'zod';
import { RelayTargetSchema } from './relay';
import { strictObject } from './strict-object';
import { GenerationRequestSchema } from './request';
import { ResponseCacheSchema, RouteSpecSchema, type RouteSpecInput } from './route';

const RouteNameSchema = z.string().min(1);

/**
 * A configured route's name, or an inline route. Checked by the value's type rather than by `z.union`, whose
 * refusal of an inline route with one bad field is a bare "Invalid input" at `route`: this way the error names
 * the field inside it (`route.targets.0.provider`).
 */
const RouteReferenceSchema = z.custom<string | RouteSpecInput>().transform((value, context) => {
  if (typeof value !== 'string' && (typeof value !== 'object' || value === null || Array.isArray(value))) {
    context.addIssue({
      code: 'custom',
      input: value,
      message: "a route is a configured route's name or an inline route object",
    });
    return z.NEVER;
  }
  const parsed = (typeof value === 'string' ? RouteNameSchema : RouteSpecSchema).safeParse(value);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) context.addIssue(issue as z.core.$ZodRawIssue);
  return z.NEVER;
});

/** What a target must offer to be considered for a call. */
export const RoutingRequirementsSchema = strictObject({
  /** Capabilities the model must declare (`supports` in the config; undeclared means supported). */
  capabilities: z.array(z.enum(['images', 'documents', 'tools', 'reasoning'])).optional(),
  /** Reject targets whose recent measured latency (or, unmeasured, whose timeout) is above this, in milliseconds. */
  maxLatencyMs: z.number().int().positive().optional(),
  /** Reject targets whose worst-case cost for this call is above this, in USD. */
  maxCostUsd: z.number().positive().max(1_000_000).optional(),
});
export type RoutingRequirements = z.infer<typeof RoutingRequirementsSchema>;

/**
 * The label that names the gateway key which made a call (written by the gateway last, so no request sets it): what
 * a key may read back, and what keeps keys from sharing cached answers.
 */
export const GATEWAY_KEY_LABEL = 'gatewayKey';

export const RoutedCallInputSchema = strictObject({
  /** A configured route's name, or an inline route. @default the config's `defaultRoute` */
  route: RouteReferenceSchema.optional(),
  request: GenerationRequestSchema,
  /** Budget scope charged for this call (a team, a project, a schedule). */
  budget: z.string().min(1).max(200).optional(),
  /** Ceiling on what this one call may cost, in USD, attempts' worst cases included. @default none */
  maxCostUsd: z.number().positive().max(1_000_000).optional(),
  /** Deadline of the whole call in milliseconds from its start; tighter of this and the route's wins. */
  deadlineMs: z.number().int().positive().optional(),
  /**
   * How long an unattended call may wait out an outage, in milliseconds: when every target failed for
   * reasons that fail over (or every breaker is open), the call sleeps until the earliest breaker may be
   * probed, or a bounded backoff, and walks the route again. @default 0 (no waiting)
   */
  patienceMs: z
    .number()
    .int()
    .min(0)
    .max(30 * 86_400_000)
    .optional(),
  /** Stream each answer from the provider (heartbeats per chunk). @default false */
  stream: z.boolean().default(false),
  /**
   * Where each attempt pushes the answer's pieces as they stream in (the gateway's relay for one request), and,
   * with the relay's `answer`, the whole answer once history holds it; needs `stream` or `answer`. Once an
   * attempt's output reached the caller, the call never fails over. @default none
   */
  relay: RelayTargetSchema.optional(),
  /**
   * What this call cares about most, overriding the route's strategy: `cost` orders candidates cheapest first,
   * `latency` fastest first, `reliability` fewest recent failures first. @default the route's strategy
   */
  prefer: z.enum(['cost', 'latency', 'reliability']).optional(),
  /** Hard filters: a target that does not meet them is rejected, with the reason, before anything is sent. */
  require: RoutingRequirementsSchema.optional(),
  /**
   * The response cache for this call: `true` uses the route's TTL (or the default), an object sets the TTL,
   * `false` bypasses a route's cache. @default the route's `cache`
   */
  cache: z.union([z.boolean(), ResponseCacheSchema]).optional(),
  /** Free-form labels kept with the call (not sent to providers). */
  labels: z.record(z.string(), z.string()).optional(),
}).refine((input) => input.relay === undefined || input.stream || input.relay.answer === true, {
  message: 'a relay needs stream: true or answer: true',
  path: ['relay'],
});

export type RoutedCallInputValue = z.input<typeof RoutedCallInputSchema>;
export type RoutedCallInput = z.infer<typeof RoutedCallInputSchema>;

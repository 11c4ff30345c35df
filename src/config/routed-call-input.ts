// Input of the routed-call workflow: zod schema shared by the client and the workflow. Workflow-safe.
import { z } from 'zod';
import { RelayTargetSchema } from './relay';
import { GenerationRequestSchema } from './request';
import { RouteSpecSchema, type RouteSpecInput } from './route';

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

export const RoutedCallInputSchema = z
  .object({
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
     * Where each attempt pushes the answer's pieces as they stream in (the gateway's relay for one request);
     * needs `stream`. Once an attempt's output reached the caller, the call never fails over. @default none
     */
    relay: RelayTargetSchema.optional(),
    /** Free-form labels kept with the call (not sent to providers). */
    labels: z.record(z.string(), z.string()).optional(),
  })
  .refine((input) => input.relay === undefined || input.stream, {
    message: 'a relay needs stream: true',
    path: ['relay'],
  });

export type RoutedCallInputValue = z.input<typeof RoutedCallInputSchema>;
export type RoutedCallInput = z.infer<typeof RoutedCallInputSchema>;

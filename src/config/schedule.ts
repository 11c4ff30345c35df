// Schedule schemas: when a scheduled generation runs, its routed call, overlap and catch-up, delivery. Workflow-safe (zod only).
import { z } from 'zod';
import { strictObject } from './strict-object';
import { BudgetScopeSchema } from './budget';
import { cronProblem } from './cron';
import { DurationError, formatDuration, parseDuration } from './duration';
import { RoutedCallInputSchema } from './routed-call-input';

/**
 * What happens when a run comes due while the previous one still runs (Temporal's overlap policies):
 * `skip` drops the new run; `buffer_one` starts it once the running one ends, keeping at most one waiting;
 * `buffer_all` keeps every one and starts them in turn; `cancel_other` cancels the running one first;
 * `terminate_other` terminates it; `allow_all` runs them side by side.
 */
export const OverlapPolicy = {
  skip: 'skip',
  bufferOne: 'buffer_one',
  bufferAll: 'buffer_all',
  cancelOther: 'cancel_other',
  terminateOther: 'terminate_other',
  allowAll: 'allow_all',
} as const;
export type OverlapPolicy = (typeof OverlapPolicy)[keyof typeof OverlapPolicy];
export const OVERLAP_POLICIES = Object.values(OverlapPolicy) as [OverlapPolicy, ...OverlapPolicy[]];

/**
 * Default overlap policy: `skip`. An unattended generation still running when the next one comes due is
 * usually waiting out a provider outage (patience); starting more would pile near-identical generations onto
 * the same outage and the same budget, and release them in a burst when it ends. Skipping keeps at most one
 * generation per schedule in flight; the running one still delivers its result.
 */
export const DEFAULT_OVERLAP_POLICY: OverlapPolicy = OverlapPolicy.skip;

/**
 * Default catch-up window, in milliseconds: 10 minutes. After the Temporal service was unavailable, runs
 * missed by up to this long are still made (subject to the overlap policy); older ones are dropped rather
 * than delivered hours late in a burst. Temporal's own default is a year.
 */
export const DEFAULT_CATCHUP_WINDOW_MS = 10 * 60_000;
/** Temporal's scheduler does not honour a catch-up window shorter than this, in milliseconds. */
export const MIN_CATCHUP_WINDOW_MS = 10_000;
/** Shortest interval between runs, in milliseconds; Temporal schedules work in whole seconds. */
export const MIN_INTERVAL_MS = 1_000;

/**
 * Patience given to a scheduled call that sets none, in milliseconds: 30 minutes. Nobody waits on an
 * unattended generation, so an outage should delay it rather than fail it.
 */
export const DEFAULT_SCHEDULED_PATIENCE_MS = 30 * 60_000;

/** A schedule id: it names the Temporal Schedule and, with a prefix, the workflows it starts. */
export const ScheduleIdSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/,
    'a schedule id is 1-128 letters, digits, ".", "_" or "-", starting with a letter or digit',
  );

/** A duration in milliseconds, or text like `30s`, `10m`, `1h`, `1h30m`, `2d`; parsed to milliseconds. */
export const DurationSchema = z.union([z.number(), z.string()]).transform((value, context) => {
  try {
    return parseDuration(value);
  } catch (error) {
    if (!(error instanceof DurationError)) throw error;
    context.addIssue({ code: 'custom', message: error.message });
    return z.NEVER;
  }
});

/** True for a time zone name the runtime knows (`Europe/Berlin`, `UTC`); Temporal reads the same IANA names. */
export function isKnownTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** An absolute path on POSIX (`/var/out`) or Windows (`C:\out`). */
function isAbsolutePath(path: string): boolean {
  return path.startsWith('/') || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith('\\\\');
}

/** Where the result of each scheduled run goes, besides its workflow history. */
export const DeliverySpecSchema = strictObject({
  /**
   * POST the result JSON here (`Idempotency-Key: <workflow id>`), retried on 408, 429, 5xx and network
   * errors. The URL is stored in the schedule and in workflow history: keep secrets out of it.
   */
  webhookUrl: z
    .url('the webhook must be an http(s) URL')
    .refine((url) => /^https?:\/\//i.test(url), 'the webhook must be an http(s) URL')
    .optional(),
  /** Write the result JSON to `<directory>/<workflow id>.json` on the worker's machine (absolute path). */
  directory: z
    .string()
    .refine(isAbsolutePath, 'the delivery directory must be an absolute path on the worker machine')
    .optional(),
}).refine((deliver) => deliver.webhookUrl !== undefined || deliver.directory !== undefined, {
  message: 'delivery needs a webhookUrl, a directory, or both',
});
export type DeliverySpec = z.infer<typeof DeliverySpecSchema>;

/** A schedule as given to `schedules.create`: when, what, and what to do with the results. */
export const ScheduleDefinitionSchema = strictObject({
  id: ScheduleIdSchema,
  /** Run at this interval (milliseconds, or text like `1h`), counted from the Unix epoch in UTC. Give this or `cron`. */
  every: DurationSchema.optional(),
  /** Run at the times of this five-field cron expression (or `@hourly`, `@daily`, …). Give this or `every`. */
  cron: z.string().optional(),
  /** IANA time zone the cron expression is read in, e.g. `Europe/Berlin`. @default 'UTC' */
  timezone: z.string().optional(),
  /** The routed call each run makes. `patienceMs` defaults to {@link DEFAULT_SCHEDULED_PATIENCE_MS}. */
  call: RoutedCallInputSchema,
  /** Budget scope every run is charged to (a team, a project, the schedule itself). @default `call.budget`, else none */
  budget: BudgetScopeSchema.optional(),
  /** A note for people, shown by `describe`, `list` and the Temporal UI. */
  note: z.string().max(1_000).optional(),
  /** What happens when a run comes due while the previous one still runs. @default 'skip' */
  overlap: z.enum(OVERLAP_POLICIES).default(DEFAULT_OVERLAP_POLICY),
  /** How late a missed run may still be made after an outage of Temporal itself. @default 10 minutes */
  catchupWindow: DurationSchema.default(DEFAULT_CATCHUP_WINDOW_MS),
  /** Deliver each run's result to a webhook and/or a directory. @default none: results stay in Temporal */
  deliver: DeliverySpecSchema.optional(),
  /** Create the schedule paused. @default false */
  paused: z.boolean().default(false),
})
  .superRefine((definition, context) => {
    const issue = (path: string, message: string) =>
      context.addIssue({ code: 'custom', path: [path], message });
    if ((definition.every === undefined) === (definition.cron === undefined)) {
      issue(
        definition.every === undefined ? 'every' : 'cron',
        'give either an interval (every) or a cron expression',
      );
    }
    if (definition.every !== undefined) {
      if (definition.every < MIN_INTERVAL_MS || definition.every % 1_000 !== 0) {
        issue(
          'every',
          `the interval must be whole seconds, at least 1s; got ${formatDuration(definition.every)}`,
        );
      }
      if (definition.timezone !== undefined) {
        issue('timezone', 'a time zone applies to cron expressions only; intervals count in UTC');
      }
    }
    if (definition.cron !== undefined) {
      const problem = cronProblem(definition.cron);
      if (problem) issue('cron', `invalid cron expression: ${problem}`);
    }
    if (definition.timezone !== undefined && !isKnownTimeZone(definition.timezone)) {
      issue(
        'timezone',
        `unknown time zone "${definition.timezone}" (use an IANA name such as Europe/Berlin)`,
      );
    }
    if (definition.catchupWindow < MIN_CATCHUP_WINDOW_MS) {
      issue(
        'catchupWindow',
        `the catch-up window must be at least 10s; got ${formatDuration(definition.catchupWindow)}`,
      );
    }
    const callBudget = definition.call.budget;
    if (definition.budget !== undefined && callBudget !== undefined && callBudget !== definition.budget) {
      issue(
        'budget',
        `the schedule's budget "${definition.budget}" and the call's budget "${callBudget}" differ`,
      );
    }
  })
  .transform(({ budget, ...definition }) => {
    const scope = budget ?? definition.call.budget;
    return {
      ...definition,
      ...(definition.cron !== undefined ? { cron: definition.cron.trim() } : {}),
      // One place for the scope: the call it charges.
      call: { ...definition.call, ...(scope !== undefined ? { budget: scope } : {}) },
      ...(scope !== undefined ? { budget: scope } : {}),
    };
  });

/** A schedule definition as callers write it (durations as text or milliseconds, defaults not applied). */
export type ScheduleDefinitionInput = z.input<typeof ScheduleDefinitionSchema>;
/** A validated definition: durations in milliseconds, defaults applied, `budget` equal to `call.budget`. */
export type ScheduleDefinition = z.infer<typeof ScheduleDefinitionSchema>;

/** Input of the scheduled-generation workflow, which a schedule's action starts. */
export const ScheduledGenerationInputSchema = strictObject({
  scheduleId: ScheduleIdSchema,
  /** The routed call, run as a child workflow. */
  call: RoutedCallInputSchema,
  deliver: DeliverySpecSchema.optional(),
  /** Static summary for the routed call in the UI (a request digest, computed by the client). */
  callSummary: z.string().max(400).optional(),
});
export type ScheduledGenerationInputValue = z.input<typeof ScheduledGenerationInputSchema>;
export type ScheduledGenerationInput = z.infer<typeof ScheduledGenerationInputSchema>;

// The schedules API: Temporal Schedules whose runs make a routed call and deliver its outcome. Node side.
import { existsSync } from 'node:fs';
import {
  ScheduleAlreadyRunning,
  WorkflowFailedError,
  type Client,
  type ScheduleDescription,
  type ScheduleHandle,
  type ScheduleOptions,
  type ScheduleOptionsStartWorkflowAction,
  type ScheduleUpdateOptions,
  type WorkflowExecutionInfo,
  type WorkflowExecutionStatusName,
} from '@temporalio/client';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { z } from 'zod';
import type { Config } from '../config/config';
import { configPath, loadConfig } from '../config/load-config';
import { resolveRoute, RouteResolutionError } from '../config/resolve-route';
import {
  DEFAULT_SCHEDULED_PATIENCE_MS,
  ScheduleDefinitionSchema,
  ScheduleIdSchema,
  type OverlapPolicy,
  type ScheduleDefinition,
  type ScheduleDefinitionInput,
  type ScheduledGenerationInput,
} from '../config/schedule';
import type { RoutedCallResult, RoutingRecord } from '../routing/routing-record';
import {
  DELIVERY_MEMO,
  SCHEDULE_CRON_MEMO,
  SCHEDULED_GENERATION_WORKFLOW_TYPE,
  scheduledCallWorkflowId,
  scheduledRunWorkflowIdBase,
  type DeliveryReport,
  type ScheduledGenerationResult,
} from '../workflows/scheduled-generation/definitions';
import type { scheduledGenerationWorkflow } from '../workflows/scheduled-generation/scheduled-generation-workflow';
import { InvalidRequestError, RoutedCallError, toRoutedCallError } from './errors';
import { staticSummary } from './request-digest';
import { applyScheduleChange, type ScheduleChange } from './schedule-change';

/** Set by Temporal on every workflow a schedule starts. */
const scheduledByIdAttribute = defineSearchAttributeKey('TemporalScheduledById', SearchAttributeType.KEYWORD);
const scheduledStartTimeAttribute = defineSearchAttributeKey(
  'TemporalScheduledStartTime',
  SearchAttributeType.DATETIME,
);

export interface SchedulesOptions {
  /** A connected Temporal client (see `connectClient`). */
  readonly client: Client;
  /** Task queue the scheduled runs (and their routed calls) run on: the Switchyard workers' queue. */
  readonly taskQueue: string;
  /**
   * Config that route names are checked against before a schedule is created or changed.
   * @default `configFile`, else `SWITCHYARD_CONFIG`, else ./switchyard.config.json if it exists, else no check
   */
  readonly config?: Config;
  /** Config file to load when `config` is not given. */
  readonly configFile?: string;
}

/** A recent or running run of a schedule, as `describe` lists it. */
export interface ScheduleRunReference {
  readonly workflowId: string;
  /** When the schedule meant it to run (a trigger's is the moment it was triggered). */
  readonly scheduledAt: Date;
  readonly takenAt: Date;
}

/** A Switchyard schedule: its definition as validated, with Temporal's view of its runs. */
export type ScheduleView = ScheduleDefinition & {
  /** Task queue its runs go to. */
  readonly taskQueue: string;
  /** Upcoming run times (none while paused). */
  readonly nextRunTimes: readonly Date[];
  /** The latest runs, newest first (Temporal keeps a handful). */
  readonly recentRuns: readonly ScheduleRunReference[];
  /** Workflow ids of runs still running. */
  readonly runningWorkflowIds: readonly string[];
  readonly runsTaken: number;
  /** Runs dropped because one was still running (overlap policy `skip`). */
  readonly runsSkippedByOverlap: number;
  /** Runs dropped because Temporal was unavailable past the catch-up window. */
  readonly runsMissedCatchupWindow: number;
  readonly createdAt: Date;
  readonly updatedAt?: Date;
};

export interface PauseOptions {
  /** Replaces the schedule's note (e.g. why it is paused). @default the current note */
  readonly note?: string;
}

export interface TriggerOptions {
  /** Overlap policy for this one run. @default the schedule's own policy */
  readonly overlap?: OverlapPolicy;
}

export interface ResultsOptions {
  /** How many runs to return, newest first. @default 10 */
  readonly limit?: number;
}

/** One run of a schedule and what came of it. */
export interface ScheduledRun {
  /** The run's workflow id (`switchyard-schedule-<id>-<time>`); the webhook's `Idempotency-Key`. */
  readonly workflowId: string;
  readonly runId: string;
  /** The routed call it made. */
  readonly callWorkflowId: string;
  /** `RUNNING`, `COMPLETED`, `FAILED`, `CANCELLED`, `TERMINATED`, `TIMED_OUT`, … */
  readonly status: WorkflowExecutionStatusName;
  /** When the schedule meant it to run. */
  readonly scheduledAt?: Date;
  readonly startedAt: Date;
  readonly closedAt?: Date;
  /** The answer, when the call answered. */
  readonly answer?: RoutedCallResult['answer'];
  /** The routing record, once the call has ended (absent after a terminate or timeout). */
  readonly record?: RoutingRecord;
  /** Why the run ended without an answer: a routed-call failure type, or `Cancelled` / `Terminated` / `TimedOut`. */
  readonly error?: { readonly type: string; readonly message: string };
  /** Where the outcome was delivered, or why it could not be; absent when the schedule delivers nowhere. */
  readonly delivery?: DeliveryReport;
}

type ScheduleAction = ScheduleOptionsStartWorkflowAction<typeof scheduledGenerationWorkflow>;

/** Our name of a Temporal overlap policy; an unspecified one means Temporal's default, SKIP. */
function overlapOf(policy: string | undefined): OverlapPolicy {
  return (policy ?? 'SKIP').toLowerCase() as OverlapPolicy;
}

function validScheduleId(id: string): string {
  const parsed = ScheduleIdSchema.safeParse(id);
  if (!parsed.success)
    throw new InvalidRequestError(`Invalid schedule id:\n${z.prettifyError(parsed.error)}`, 'id');
  return parsed.data;
}

/** Lists, creates and operates Switchyard schedules. */
export class Schedules {
  private config: Config | undefined;

  constructor(private readonly options: SchedulesOptions) {
    this.config = options.config;
  }

  private get client(): Client {
    return this.options.client;
  }

  /**
   * Validates `definition` and creates its Temporal Schedule. A bad definition — an invalid cron expression or
   * time zone, an interval under a second, an unknown route (when a config is at hand), an invalid request —
   * is refused with an {@link InvalidRequestError} naming the field, and nothing is created. An id already in
   * use is refused the same way.
   */
  async create(definition: ScheduleDefinitionInput): Promise<ScheduleView> {
    const validated = this.validate(definition);
    try {
      await this.client.schedule.create<typeof scheduledGenerationWorkflow>({
        scheduleId: validated.id,
        ...this.scheduleOptions(validated),
        action: this.action(validated),
        state: {
          paused: validated.paused,
          ...(validated.note !== undefined ? { note: validated.note } : {}),
        },
      } satisfies ScheduleOptions<ScheduleAction>);
    } catch (error) {
      if (error instanceof ScheduleAlreadyRunning) {
        throw new InvalidRequestError(`a schedule with id "${validated.id}" already exists`, 'id');
      }
      throw this.refusedSpec(error, validated);
    }
    return this.describe(validated.id);
  }

  /** Every Switchyard schedule in the namespace, sorted by id. Schedules of other applications are left out. */
  async list(): Promise<ScheduleView[]> {
    const ids: string[] = [];
    // The listing is eventually consistent and has no action arguments: each schedule is described afresh.
    for await (const summary of this.client.schedule.list()) {
      if (summary.action?.workflowType === SCHEDULED_GENERATION_WORKFLOW_TYPE) ids.push(summary.scheduleId);
    }
    ids.sort();
    const views: ScheduleView[] = [];
    for (const id of ids) {
      try {
        views.push(this.view(await this.handle(id).describe()));
      } catch (error) {
        // Deleted between the listing and the description.
        if ((error as Error).name !== 'ScheduleNotFoundError') throw error;
      }
    }
    return views;
  }

  /** One schedule. Rejects with Temporal's `ScheduleNotFoundError` for an unknown id. */
  async describe(id: string): Promise<ScheduleView> {
    return this.view(await this.describeOwn(id));
  }

  /** Stops taking runs until `unpause`; a run in progress goes on. `trigger` still runs it on demand. */
  async pause(id: string, options: PauseOptions = {}): Promise<ScheduleView> {
    const current = await this.describeOwn(id);
    await this.handle(id).pause(options.note ?? current.state.note ?? 'paused');
    return this.describe(id);
  }

  /** Takes runs again from the next scheduled time; runs missed while paused are not made up. */
  async unpause(id: string, options: PauseOptions = {}): Promise<ScheduleView> {
    const current = await this.describeOwn(id);
    await this.handle(id).unpause(options.note ?? current.state.note ?? '');
    return this.describe(id);
  }

  /**
   * Starts a run now, also while paused. By default the schedule's own overlap policy applies, so with `skip`
   * nothing starts while a run is still going; pass `{ overlap: 'allow_all' }` to run regardless.
   */
  async trigger(id: string, options: TriggerOptions = {}): Promise<void> {
    const current = await this.describeOwn(id);
    const overlap = options.overlap ?? overlapOf(current.policies.overlap);
    await this.handle(id).trigger(overlap.toUpperCase() as Uppercase<OverlapPolicy>);
  }

  /**
   * Changes a schedule: a {@link ScheduleChange}, or a function from the current definition to one. The result
   * is validated like a new definition and refused as a whole if anything is wrong. Runs already started keep
   * their request; later runs use the new one.
   */
  async update(
    id: string,
    change: ScheduleChange | ((current: ScheduleDefinition) => ScheduleChange),
  ): Promise<ScheduleView> {
    await this.describeOwn(id);
    try {
      await this.handle(id).update<typeof scheduledGenerationWorkflow>((description) => {
        const current = this.definitionOf(description);
        const next = this.validate(
          applyScheduleChange(current, typeof change === 'function' ? change(current) : change),
        );
        return {
          ...this.scheduleOptions(next),
          action: this.action(next),
          state: {
            paused: next.paused,
            ...(next.note !== undefined ? { note: next.note } : {}),
          },
        } satisfies ScheduleUpdateOptions<ScheduleAction>;
      });
    } catch (error) {
      throw this.refusedSpec(error, undefined);
    }
    return this.describe(id);
  }

  /** Deletes the schedule. Runs already started finish; their results stay listable until retention ends. */
  async delete(id: string): Promise<void> {
    await this.describeOwn(id);
    await this.handle(id).delete();
  }

  /**
   * The latest runs of a schedule, newest first, with their answers or errors and deliveries. Read from
   * Temporal's visibility store, which is eventually consistent: a run that just started or ended may take a
   * moment to appear (or to show its end). Works for a deleted schedule too, until its runs' retention ends.
   */
  async results(id: string, options: ResultsOptions = {}): Promise<ScheduledRun[]> {
    const scheduleId = validScheduleId(id);
    const limit = options.limit ?? 10;
    if (!Number.isInteger(limit) || limit < 1)
      throw new InvalidRequestError('limit must be a positive integer', 'limit');
    const query =
      `WorkflowType = '${SCHEDULED_GENERATION_WORKFLOW_TYPE}' AND ` +
      `${scheduledByIdAttribute.name} = '${scheduleId}'`;
    const executions: WorkflowExecutionInfo[] = [];
    for await (const execution of this.client.workflow.list({ query })) executions.push(execution);
    executions.sort((a, b) => b.startTime.getTime() - a.startTime.getTime());
    return Promise.all(executions.slice(0, limit).map((execution) => this.readRun(execution)));
  }

  private handle(id: string): ScheduleHandle {
    return this.client.schedule.getHandle(validScheduleId(id));
  }

  /** The schedule's description; refuses schedules that belong to something other than Switchyard. */
  private async describeOwn(id: string): Promise<ScheduleDescription> {
    const description = await this.handle(id).describe();
    if (description.action.workflowType !== SCHEDULED_GENERATION_WORKFLOW_TYPE) {
      throw new InvalidRequestError(
        `schedule "${id}" starts ${description.action.workflowType} workflows; it is not a Switchyard schedule`,
        'id',
      );
    }
    return description;
  }

  /** Validates a definition (schema, then routes against the config) and gives its call a default patience. */
  private validate(definition: ScheduleDefinitionInput): ScheduleDefinition {
    const parsed = ScheduleDefinitionSchema.safeParse(definition);
    if (!parsed.success) {
      const field = parsed.error.issues[0]?.path.join('.') ?? '';
      throw new InvalidRequestError(`Invalid schedule:\n${z.prettifyError(parsed.error)}`, field);
    }
    const validated = parsed.data;
    const config = this.routeConfig();
    if (config) {
      let route;
      try {
        route = resolveRoute(config, validated.call.route);
      } catch (error) {
        if (error instanceof RouteResolutionError) {
          throw new InvalidRequestError(`Invalid schedule: ${error.message}`, `call.${error.field}`);
        }
        throw error;
      }
      if (route.requireBudget && validated.call.budget === undefined) {
        throw new InvalidRequestError(
          `Invalid schedule: route ${route.name} requires a budget scope and the schedule names none`,
          'budget',
        );
      }
    }
    return {
      ...validated,
      call: { ...validated.call, patienceMs: validated.call.patienceMs ?? DEFAULT_SCHEDULED_PATIENCE_MS },
    };
  }

  /** The config to check routes against, loaded on first use; undefined when there is none to be had. */
  private routeConfig(): Config | undefined {
    if (this.config) return this.config;
    const explicit = this.options.configFile ?? process.env.SWITCHYARD_CONFIG;
    // Without an explicit config, a client away from the workers' config leaves the check to the workers.
    if (explicit === undefined && !existsSync(configPath())) return undefined;
    this.config = loadConfig(explicit);
    return this.config;
  }

  private scheduleOptions(definition: ScheduleDefinition): Pick<ScheduleOptions, 'spec' | 'policies'> {
    return {
      spec:
        definition.every !== undefined
          ? { intervals: [{ every: definition.every }] }
          : {
              cronExpressions: [definition.cron!],
              ...(definition.timezone !== undefined ? { timezone: definition.timezone } : {}),
            },
      policies: {
        overlap: definition.overlap.toUpperCase() as Uppercase<OverlapPolicy>,
        catchupWindow: definition.catchupWindow,
      },
    };
  }

  private action(definition: ScheduleDefinition): ScheduleAction {
    const { call } = definition;
    const routeLabel = typeof call.route === 'string' ? call.route : call.route ? 'inline' : 'default';
    const callSummary = staticSummary(routeLabel, call.request);
    const input: ScheduledGenerationInput = {
      scheduleId: definition.id,
      call,
      ...(definition.deliver !== undefined ? { deliver: definition.deliver } : {}),
      callSummary,
    };
    return {
      type: 'startWorkflow',
      workflowType: SCHEDULED_GENERATION_WORKFLOW_TYPE,
      workflowId: scheduledRunWorkflowIdBase(definition.id),
      taskQueue: this.options.taskQueue,
      args: [input],
      ...(definition.cron !== undefined ? { memo: { [SCHEDULE_CRON_MEMO]: definition.cron } } : {}),
      staticSummary: `schedule ${definition.id} · ${callSummary}`,
    };
  }

  /** The definition a schedule was created (or last updated) with, read back from Temporal. */
  private definitionOf(description: ScheduleDescription): ScheduleDefinition {
    const input = description.action.args?.[0] as ScheduledGenerationInput;
    const every = description.spec.intervals?.[0]?.every;
    const cron = description.action.memo?.[SCHEDULE_CRON_MEMO] as string | undefined;
    const note = description.state.note || undefined;
    return {
      id: description.scheduleId,
      ...(every !== undefined ? { every } : { cron: cron ?? '' }),
      ...(description.spec.timezone ? { timezone: description.spec.timezone } : {}),
      call: input.call,
      ...(input.call.budget !== undefined ? { budget: input.call.budget } : {}),
      ...(note !== undefined ? { note } : {}),
      overlap: overlapOf(description.policies.overlap),
      catchupWindow: description.policies.catchupWindow,
      ...(input.deliver !== undefined ? { deliver: input.deliver } : {}),
      paused: description.state.paused,
    };
  }

  private view(description: ScheduleDescription): ScheduleView {
    const { info } = description;
    return {
      ...this.definitionOf(description),
      taskQueue: description.action.taskQueue,
      // Temporal keeps computing times while paused; none of them will run.
      nextRunTimes: description.state.paused ? [] : info.nextActionTimes,
      recentRuns: info.recentActions
        .map((action) => ({
          workflowId: action.action.workflow.workflowId,
          scheduledAt: action.scheduledAt,
          takenAt: action.takenAt,
        }))
        .reverse(),
      runningWorkflowIds: info.runningActions.map((action) => action.workflow.workflowId),
      runsTaken: info.numActionsTaken,
      runsSkippedByOverlap: info.numActionsSkippedOverlap,
      runsMissedCatchupWindow: info.numActionsMissedCatchupWindow,
      createdAt: info.createdAt,
      ...(info.lastUpdatedAt ? { updatedAt: info.lastUpdatedAt } : {}),
    };
  }

  /** Temporal refuses a spec our checks let through (its rules may grow): report it like ours. */
  private refusedSpec(error: unknown, definition: ScheduleDefinition | undefined): unknown {
    if (error instanceof TypeError && !(error instanceof InvalidRequestError)) {
      const field = definition?.every !== undefined ? 'every' : definition?.cron !== undefined ? 'cron' : '';
      return new InvalidRequestError(`Temporal refused the schedule: ${error.message}`, field);
    }
    return error;
  }

  private async readRun(execution: WorkflowExecutionInfo): Promise<ScheduledRun> {
    const memoDelivery = execution.memo?.[DELIVERY_MEMO] as DeliveryReport | undefined;
    const scheduledAt = execution.typedSearchAttributes.get(scheduledStartTimeAttribute);
    const base = {
      workflowId: execution.workflowId,
      runId: execution.runId,
      callWorkflowId: scheduledCallWorkflowId(execution.workflowId),
      status: execution.status.name,
      ...(scheduledAt ? { scheduledAt } : {}),
      startedAt: execution.startTime,
      ...(execution.closeTime ? { closedAt: execution.closeTime } : {}),
      ...(memoDelivery ? { delivery: memoDelivery } : {}),
    };
    if (execution.status.name === 'RUNNING') return base;
    const handle = this.client.workflow.getHandle<typeof scheduledGenerationWorkflow>(
      execution.workflowId,
      execution.runId,
    );
    try {
      const result: ScheduledGenerationResult = await handle.result();
      const hasDelivery = Object.keys(result.delivery).length > 0;
      return {
        ...base,
        answer: result.answer,
        record: result.record,
        ...(hasDelivery ? { delivery: result.delivery } : {}),
      };
    } catch (error) {
      const converted = toRoutedCallError(error, base.callWorkflowId);
      if (converted instanceof RoutedCallError) {
        return {
          ...base,
          ...(converted.record ? { record: converted.record } : {}),
          error: { type: converted.type, message: converted.message },
        };
      }
      if (error instanceof WorkflowFailedError) {
        const type = { TERMINATED: 'Terminated', TIMED_OUT: 'TimedOut', CANCELLED: 'Cancelled' }[
          execution.status.name as 'TERMINATED' | 'TIMED_OUT' | 'CANCELLED'
        ];
        return { ...base, error: { type: type ?? 'Failed', message: error.cause?.message ?? error.message } };
      }
      throw error;
    }
  }
}

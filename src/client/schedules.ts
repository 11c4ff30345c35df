// The schedules API: Temporal Schedules whose runs make a routed call and deliver its outcome. Node side.
import {
  ScheduleAlreadyRunning,
  type Client,
  type ScheduleDescription,
  type ScheduleHandle,
  type ScheduleOptions,
  type ScheduleUpdateOptions,
} from '@temporalio/client';
import type { Config } from '../config/config';
import { loadConfigIfPresent } from '../config/load-config';
import { resolveRoute, RouteResolutionError } from '../config/resolve-route';
import { configWithRuntimeRoutes, type RuntimeRoutes } from '../config/runtime-routes';
import { firstIssueField, prettifyIssues } from '../config/strict-object';
import {
  DEFAULT_SCHEDULED_PATIENCE_MS,
  ScheduleDefinitionSchema,
  type OverlapPolicy,
  type ScheduleDefinition,
  type ScheduleDefinitionInput,
} from '../config/schedule';
import { SCHEDULED_GENERATION_WORKFLOW_TYPE } from '../workflows/scheduled-generation/definitions';
import type { scheduledGenerationWorkflow } from '../workflows/scheduled-generation/scheduled-generation-workflow';
import { InvalidRequestError } from './errors';
import { applyScheduleChange, type ScheduleChange } from './schedule-change';
import { scheduleAction, scheduleTiming, type ScheduleAction } from './schedule-action';
import { validScheduleId } from './schedule-id';
import { readScheduleResults, type ResultsOptions, type ScheduledRun } from './schedule-results';
import { overlapOf, scheduleDefinitionOf, scheduleViewOf, type ScheduleView } from './schedule-view';

export type { ResultsOptions, ScheduledRun } from './schedule-results';
export type { ScheduleRunReference, ScheduleView } from './schedule-view';

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
  /**
   * The routes changed at runtime, overlaid on the config's when a schedule's route is checked (a route set at
   * runtime may be scheduled; one deleted at runtime may not). @default none: the config's routes only
   */
  readonly runtimeRoutes?: () => Promise<RuntimeRoutes>;
}

export interface PauseOptions {
  /** Replaces the schedule's note (e.g. why it is paused). @default the current note */
  readonly note?: string;
}

export interface TriggerOptions {
  /** Overlap policy for this one run. @default the schedule's own policy */
  readonly overlap?: OverlapPolicy;
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
    const validated = this.validate(definition, await this.runtimeRoutes());
    try {
      await this.client.schedule.create<typeof scheduledGenerationWorkflow>({
        scheduleId: validated.id,
        ...scheduleTiming(validated),
        action: scheduleAction(validated, this.options.taskQueue),
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
        views.push(scheduleViewOf(await this.handle(id).describe()));
      } catch (error) {
        // Deleted between the listing and the description.
        if ((error as Error).name !== 'ScheduleNotFoundError') throw error;
      }
    }
    return views;
  }

  /** One schedule. Rejects with Temporal's `ScheduleNotFoundError` for an unknown id. */
  async describe(id: string): Promise<ScheduleView> {
    return scheduleViewOf(await this.describeOwn(id));
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
    const runtime = await this.runtimeRoutes();
    try {
      await this.handle(id).update<typeof scheduledGenerationWorkflow>((description) => {
        const current = scheduleDefinitionOf(description);
        const next = this.validate(
          applyScheduleChange(current, typeof change === 'function' ? change(current) : change),
          runtime,
        );
        return {
          ...scheduleTiming(next),
          action: scheduleAction(next, this.options.taskQueue),
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
    return readScheduleResults(this.client, validScheduleId(id), options);
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
  private validate(definition: ScheduleDefinitionInput, runtime: RuntimeRoutes): ScheduleDefinition {
    const parsed = ScheduleDefinitionSchema.safeParse(definition);
    if (!parsed.success) {
      throw new InvalidRequestError(
        `Invalid schedule:\n${prettifyIssues(parsed.error)}`,
        firstIssueField(parsed.error),
      );
    }
    const validated = parsed.data;
    const fileConfig = this.routeConfig();
    const config = fileConfig && configWithRuntimeRoutes(fileConfig, runtime);
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

  /** The routes changed at runtime, when the client reads them and there is a config to overlay them on. */
  private async runtimeRoutes(): Promise<RuntimeRoutes> {
    if (!this.options.runtimeRoutes || !this.routeConfig()) return {};
    return this.options.runtimeRoutes();
  }

  /** The config to check routes against, loaded on first use; undefined when there is none to be had. */
  private routeConfig(): Config | undefined {
    if (this.config) return this.config;
    this.config = loadConfigIfPresent(this.options.configFile);
    return this.config;
  }

  /** Temporal refuses a spec our checks let through (its rules may grow): report it like ours. */
  private refusedSpec(error: unknown, definition: ScheduleDefinition | undefined): unknown {
    if (error instanceof TypeError && !(error instanceof InvalidRequestError)) {
      const field = definition?.every !== undefined ? 'every' : definition?.cron !== undefined ? 'cron' : '';
      return new InvalidRequestError(`Temporal refused the schedule: ${error.message}`, field);
    }
    return error;
  }
}

// A Switchyard schedule read back from Temporal's schedule description: its definition and its runs. Node side.
import type { ScheduleDescription } from '@temporalio/client';
import type { OverlapPolicy, ScheduleDefinition, ScheduledGenerationInput } from '../config/schedule';
import { SCHEDULE_CRON_MEMO } from '../workflows/scheduled-generation/definitions';

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

/** Our name of a Temporal overlap policy; an unspecified one means Temporal's default, SKIP. */
export function overlapOf(policy: string | undefined): OverlapPolicy {
  return (policy ?? 'SKIP').toLowerCase() as OverlapPolicy;
}

/** The definition a schedule was created (or last updated) with, read back from Temporal. */
export function scheduleDefinitionOf(description: ScheduleDescription): ScheduleDefinition {
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

/** Temporal's description of a Switchyard schedule, as the API shows it. */
export function scheduleViewOf(description: ScheduleDescription): ScheduleView {
  const { info } = description;
  return {
    ...scheduleDefinitionOf(description),
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

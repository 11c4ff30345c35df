// A schedule definition in Temporal's terms: its spec, policies and start-workflow action. Node side.
import type { ScheduleOptions, ScheduleOptionsStartWorkflowAction } from '@temporalio/client';
import type { OverlapPolicy, ScheduleDefinition, ScheduledGenerationInput } from '../config/schedule';
import {
  SCHEDULE_CRON_MEMO,
  SCHEDULED_GENERATION_WORKFLOW_TYPE,
  scheduledRunWorkflowIdBase,
} from '../workflows/scheduled-generation/definitions';
import type { scheduledGenerationWorkflow } from '../workflows/scheduled-generation/scheduled-generation-workflow';
import { staticSummary } from './request-digest';

export type ScheduleAction = ScheduleOptionsStartWorkflowAction<typeof scheduledGenerationWorkflow>;

/** When a schedule runs and what it does about overlaps and missed runs, in Temporal's terms. */
export function scheduleTiming(definition: ScheduleDefinition): Pick<ScheduleOptions, 'spec' | 'policies'> {
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

/** The action of a schedule: start a scheduled generation with the definition's call, on `taskQueue`. */
export function scheduleAction(definition: ScheduleDefinition, taskQueue: string): ScheduleAction {
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
    taskQueue,
    args: [input],
    ...(definition.cron !== undefined ? { memo: { [SCHEDULE_CRON_MEMO]: definition.cron } } : {}),
    staticSummary: `schedule ${definition.id} · ${callSummary}`,
  };
}

// Workflow interceptors that put Switchyard's attributes on the spans Temporal's OpenTelemetry interceptors make:
// each attempt's span (GenAI conventions plus switchyard.*) and the routed call's span (route, outcome, fallbacks,
// cost, skipped targets as events). Bundled into the workflow sandbox only when tracing is on, after Temporal's
// own interceptor module, so the active span here is the one Temporal's interceptor opened. Deterministic like all
// workflow code: it reads only the workflow's input, its activities' inputs and results, and its record; it
// schedules nothing, so turning tracing on or off never changes a workflow's commands.
import * as otel from '@opentelemetry/api';
import {
  ApplicationFailure,
  CancelledFailure,
  workflowInfo,
  type ActivityInput,
  type LocalActivityInput,
  type Next,
  type WorkflowExecuteInput,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptorsFactory,
  type WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';
import type { AttemptInput, TargetAttemptResult } from '../../activities/attempt-types';
import type { ResolvedRoute } from '../../config/resolved-route';
import {
  AttemptOutcome,
  SkipReason,
  type RoutedCallResult,
  type RoutingRecord,
} from '../../routing/routing-record';
import { ROUTED_CALL_WORKFLOW_TYPES } from '../definitions';
import { classifyAttemptFailure } from '../routed-call/attempt-failure';
import {
  attemptAnswerAttributes,
  attemptFailureAttributes,
  attemptNumberOfSummary,
  attemptStartAttributes,
  annotateSafely,
  callAttributes,
  skippedTargetEventAttributes,
  SwitchyardAttribute,
  targetIndexOf,
  TARGET_REJECTED_EVENT,
  TARGET_SKIPPED_EVENT,
} from './span-attributes';

/** The activities that send a provider request: one span each is one attempt. */
const ATTEMPT_ACTIVITIES: ReadonlySet<string> = new Set(['attemptTarget', 'callProvider']);

/** What one workflow's interceptors learn as it runs: the route it resolved, the budget scope it names. */
interface CallTraceState {
  route?: ResolvedRoute;
  budgetScope?: string;
}

function isRoutedCallResult(value: unknown): value is RoutedCallResult {
  return typeof value === 'object' && value !== null && 'record' in value && 'answer' in value;
}

function isRoutingRecord(value: unknown): value is RoutingRecord {
  return typeof value === 'object' && value !== null && 'attempts' in value && 'route' in value;
}

/** The record and the failure type a failed routed call ends with (its ApplicationFailure carries the record). */
function failedCall(error: unknown): { readonly record?: RoutingRecord; readonly type: string } {
  if (error instanceof ApplicationFailure) {
    const record = error.details?.[0];
    return { type: error.type ?? 'Error', ...(isRoutingRecord(record) ? { record } : {}) };
  }
  if (error instanceof CancelledFailure) return { type: 'Cancelled' };
  return { type: error instanceof Error ? error.name : 'Error' };
}

function annotateCall(span: otel.Span, record: RoutingRecord, outcome: string, state: CallTraceState): void {
  span.setAttributes(callAttributes(record, outcome, state.budgetScope));
  for (const attempt of record.attempts) {
    if (attempt.outcome !== AttemptOutcome.skipped) continue;
    const at = Date.parse(attempt.startedAt);
    span.addEvent(
      TARGET_SKIPPED_EVENT,
      skippedTargetEventAttributes(attempt),
      Number.isNaN(at) ? undefined : at,
    );
  }
  for (const rejected of record.explanation?.rejected ?? []) {
    span.addEvent(TARGET_REJECTED_EVENT, {
      'switchyard.candidate': rejected.candidate,
      'switchyard.reason': rejected.reason,
    });
  }
}

class CallSpanInterceptor implements WorkflowInboundCallsInterceptor {
  constructor(private readonly state: CallTraceState) {}

  async execute(
    input: WorkflowExecuteInput,
    next: Next<WorkflowInboundCallsInterceptor, 'execute'>,
  ): Promise<unknown> {
    if (!ROUTED_CALL_WORKFLOW_TYPES.includes(workflowInfo().workflowType)) return next(input);
    const span = otel.trace.getActiveSpan();
    const raw = input.args[0] as { readonly budget?: unknown } | undefined;
    if (typeof raw?.budget === 'string') this.state.budgetScope = raw.budget;
    try {
      const result = await next(input);
      if (span && isRoutedCallResult(result)) {
        annotateSafely(() => annotateCall(span, result.record, 'succeeded', this.state));
      }
      return result;
    } catch (error) {
      if (span) {
        annotateSafely(() => {
          const { record, type } = failedCall(error);
          if (record) annotateCall(span, record, type, this.state);
          else span.setAttribute(SwitchyardAttribute.outcome, type);
        });
      }
      throw error;
    }
  }
}

class AttemptSpanInterceptor implements WorkflowOutboundCallsInterceptor {
  constructor(private readonly state: CallTraceState) {}

  async scheduleActivity(
    input: ActivityInput,
    next: Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>,
  ): Promise<unknown> {
    if (!ATTEMPT_ACTIVITIES.has(input.activityType)) return next(input);
    const span = otel.trace.getActiveSpan();
    if (!span) return next(input);
    const attempt = input.args[0] as AttemptInput;
    annotateSafely(() => {
      const route = this.state.route;
      const targetIndex = route ? targetIndexOf(route, attempt) : undefined;
      const number = attemptNumberOfSummary(input.options.summary);
      span.setAttributes(
        attemptStartAttributes(attempt, {
          ...(route ? { route: route.name } : {}),
          ...(number !== undefined ? { attempt: number } : {}),
          ...(targetIndex !== undefined ? { targetIndex } : {}),
        }),
      );
    });
    try {
      const result = (await next(input)) as TargetAttemptResult;
      annotateSafely(() => {
        if (result.refused) {
          span.setAttributes({
            [SwitchyardAttribute.outcome]: AttemptOutcome.skipped,
            [SwitchyardAttribute.skipReason]: SkipReason.overBudget,
          });
        } else span.setAttributes(attemptAnswerAttributes(attempt, result.result));
      });
      return result;
    } catch (error) {
      annotateSafely(() => span.setAttributes(attemptFailureAttributes(classifyAttemptFailure(error))));
      throw error;
    }
  }

  async scheduleLocalActivity(
    input: LocalActivityInput,
    next: Next<WorkflowOutboundCallsInterceptor, 'scheduleLocalActivity'>,
  ): Promise<unknown> {
    const result = await next(input);
    // The route the call resolved names the attempts' targets by index (a replay reads the same result back).
    if (input.activityType === 'resolveRoute') this.state.route = result as ResolvedRoute;
    else if (input.activityType === 'beginCall')
      this.state.route = (result as { route: ResolvedRoute }).route;
    return result;
  }
}

/** Switchyard's span interceptors; one state per workflow, shared by its inbound and outbound interceptor. */
export const interceptors: WorkflowInterceptorsFactory = () => {
  const state: CallTraceState = {};
  return { inbound: [new CallSpanInterceptor(state)], outbound: [new AttemptSpanInterceptor(state)] };
};

// What a traced worker adds to its options: Temporal's OpenTelemetry interceptors, Switchyard's attempt
// attributes, and the sink that carries workflow spans out of the sandbox. Node side.
import { createTraceState } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import {
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
  type OpenTelemetrySinks,
  type SerializableSpan,
} from '@temporalio/interceptors-opentelemetry';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import type { InjectedSinks, WorkerInterceptors } from '@temporalio/worker';
import type { WorkflowInfo } from '@temporalio/workflow';
import { attemptActivitySpans } from './attempt-activity-spans';
import type { TracingHandle } from './install-tracing';

/**
 * The workflow's identity on each of its spans. Temporal's own sink copies the whole workflow info onto every span
 * (memo, search attributes, last result); this one names the run and nothing the workflow carries.
 */
function runAttributes(info: WorkflowInfo): Record<string, string> {
  return {
    temporalWorkflowId: info.workflowId,
    run_id: info.runId,
    'temporal.workflow.type': info.workflowType,
    'temporal.task_queue': info.taskQueue,
  };
}

function readableSpan(serialized: SerializableSpan, info: WorkflowInfo, handle: TracingHandle): ReadableSpan {
  const { spanContext, attributes, ...rest } = serialized;
  const { traceState, ...context } = spanContext;
  const restored = { ...context, ...(traceState ? { traceState: createTraceState(traceState) } : {}) };
  return {
    ...rest,
    attributes: { ...attributes, ...runAttributes(info) },
    spanContext: () => restored,
    resource: handle.resource,
  };
}

/**
 * The sink through which workflow spans leave the sandbox. The SDK calls sinks only outside replay, so a span that
 * ended before a worker died is not exported again by the worker that replays the workflow.
 */
export function workflowSpanSinks(handle: TracingHandle): InjectedSinks<OpenTelemetrySinks> {
  return {
    exporter: {
      export: {
        fn: (info, spans) => {
          for (const span of spans) handle.spanProcessor.onEnd(readableSpan(span, info, handle));
        },
      },
    },
  };
}

/** The client interceptor that carries the active trace into the workflows and updates a client starts. */
export function tracingClientInterceptors(): WorkflowClientInterceptor[] {
  return [new OpenTelemetryWorkflowClientInterceptor()];
}

/** The activity interceptors of a traced worker: Temporal's span first, then the attempt's attributes on it. */
export function tracingWorkerInterceptors(handle: TracingHandle): Pick<WorkerInterceptors, 'activity'> {
  return {
    activity: [
      (context) => ({
        inbound: new OpenTelemetryActivityInboundInterceptor(context),
        outbound: new OpenTelemetryActivityOutboundInterceptor(context),
      }),
      attemptActivitySpans(handle.settings.captureContent),
    ],
  };
}

// An activity interceptor that puts an attempt's attributes on the span Temporal's OpenTelemetry interceptor opens
// for it in the worker that runs it, and the conversation and answer when the operator opted in. Node side.
import * as otel from '@opentelemetry/api';
import { ApplicationFailure } from '@temporalio/common';
import type {
  ActivityExecuteInput,
  ActivityInboundCallsInterceptor,
  ActivityInterceptorsFactory,
  Next,
} from '@temporalio/worker';
import type {
  AttemptFailureDetails,
  AttemptInput,
  AttemptSuccess,
  TargetAttemptResult,
} from '../activities/attempt-types';
import type { GenerationResult } from '../providers/types';
import { GenAiAttribute } from '../routing/gen-ai-conventions';
import {
  attemptAnswerAttributes,
  attemptFailureAttributes,
  attemptStartAttributes,
  annotateSafely,
  SwitchyardAttribute,
  WITHHELD_CONTENT,
} from '../workflows/tracing/span-attributes';

/** The activities that send a provider request. */
const ATTEMPT_ACTIVITIES: ReadonlySet<string> = new Set(['attemptTarget', 'callProvider']);

/** The conversation as the conventions' input messages: the neutral model's messages, as they were sent. */
function inputContent(input: AttemptInput): Record<string, string> {
  const content: Record<string, string> = {
    [GenAiAttribute.inputMessages]: JSON.stringify(input.request.messages),
  };
  if (input.request.system !== undefined) {
    content[GenAiAttribute.systemInstructions] = JSON.stringify(input.request.system);
  }
  return content;
}

/** The answer as one assistant output message: its text, tool calls and why it stopped. */
function outputContent(result: GenerationResult): Record<string, string> {
  return {
    [GenAiAttribute.outputMessages]: JSON.stringify([
      {
        role: 'assistant',
        text: result.text,
        toolCalls: result.toolCalls,
        finishReason: result.finishReason.unified,
      },
    ]),
  };
}

function answerOf(result: unknown): GenerationResult | undefined {
  const outcome = result as TargetAttemptResult | AttemptSuccess | undefined;
  if (!outcome || ('refused' in outcome && outcome.refused)) return undefined;
  return (outcome as AttemptSuccess).result;
}

class AttemptActivitySpanInterceptor implements ActivityInboundCallsInterceptor {
  constructor(
    private readonly activityType: string,
    private readonly captureContent: boolean,
  ) {}

  async execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>) {
    const span = otel.trace.getActiveSpan();
    if (!span || !ATTEMPT_ACTIVITIES.has(this.activityType)) return next(input);
    const attempt = input.args[0] as AttemptInput;
    annotateSafely(() => {
      span.setAttributes(attemptStartAttributes(attempt, {}));
      if (this.captureContent) span.setAttributes(inputContent(attempt));
      // What capture would have added is named, so a reader sees the gap is a setting and not a loss.
      else span.setAttribute(SwitchyardAttribute.contentWithheld, WITHHELD_CONTENT);
    });
    try {
      const result = await next(input);
      annotateSafely(() => {
        const answer = answerOf(result);
        if (answer) {
          span.setAttributes(attemptAnswerAttributes(attempt, answer));
          if (this.captureContent) span.setAttributes(outputContent(answer));
        } else {
          span.setAttribute(SwitchyardAttribute.outcome, 'skipped');
        }
      });
      return result;
    } catch (error) {
      annotateSafely(() => {
        if (!(error instanceof ApplicationFailure) || !error.type) return;
        const details = error.details?.[0] as AttemptFailureDetails | undefined;
        span.setAttributes(
          attemptFailureAttributes({
            failureClass: error.type,
            requestSent: details?.requestSent ?? true,
            ...(details ? { details } : {}),
          }),
        );
      });
      throw error;
    }
  }
}

/**
 * The activity interceptors of a traced worker's attempts. List them after Temporal's OpenTelemetry activity
 * interceptor, whose span they annotate.
 */
export function attemptActivitySpans(captureContent: boolean): ActivityInterceptorsFactory {
  return (context) => ({
    inbound: new AttemptActivitySpanInterceptor(context.info.activityType, captureContent),
  });
}

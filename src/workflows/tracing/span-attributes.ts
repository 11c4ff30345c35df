// The attributes and events Switchyard puts on spans: an attempt's (GenAI conventions plus switchyard.*), a routed
// call's, and a skipped target's event. Pure functions of the activity input, its result and the routing record;
// workflow-safe, so the workflow's span interceptors and the activity's share them.
import type { AttemptInput, TargetAttemptInput } from '../../activities/attempt-types';
import type { ResolvedRoute } from '../../config/resolved-route';
import type { GenerationResult } from '../../providers/types';
import {
  GEN_AI_OPERATION_CHAT,
  GenAiAttribute,
  genAiInputTokens,
  genAiProviderName,
} from '../../routing/gen-ai-conventions';
import { costOfUsage } from '../../routing/money';
import type { AttemptRecord, RoutingRecord } from '../../routing/routing-record';

/** A span attribute value, as OpenTelemetry takes it. */
export type SpanAttributeValue = string | number | boolean | string[];
export type SpanAttributes = Record<string, SpanAttributeValue>;

/** Switchyard's own attribute names, beside the GenAI conventions'. */
export const SwitchyardAttribute = {
  route: 'switchyard.route',
  routeVersion: 'switchyard.route.version',
  strategy: 'switchyard.route.strategy',
  workflowId: 'switchyard.workflow_id',
  attempt: 'switchyard.attempt',
  targetIndex: 'switchyard.target.index',
  provider: 'switchyard.provider',
  via: 'switchyard.target.via',
  outcome: 'switchyard.outcome',
  failureClass: 'switchyard.failure_class',
  skipReason: 'switchyard.skip_reason',
  requestSent: 'switchyard.request_sent',
  httpStatus: 'http.response.status_code',
  retryAfterMs: 'switchyard.retry_after_ms',
  providerRequestId: 'switchyard.provider_request_id',
  breakerStateSeen: 'switchyard.breaker.state_seen',
  budgetScope: 'switchyard.budget.scope',
  boundNanoUsd: 'switchyard.cost.bound_nano_usd',
  costNanoUsd: 'switchyard.cost.nano_usd',
  costUsd: 'switchyard.cost.usd',
  costKnown: 'switchyard.cost.known',
  fallbacks: 'switchyard.fallbacks',
  attempts: 'switchyard.attempts',
  servedBy: 'switchyard.served_by',
  cache: 'switchyard.cache',
  stream: 'switchyard.stream',
  contentWithheld: 'switchyard.content.withheld',
} as const;

/** The event a skipped target leaves on its call's span. */
export const TARGET_SKIPPED_EVENT = 'switchyard.target_skipped';
/** The event a candidate that the routing rules rejected before the walk leaves on its call's span. */
export const TARGET_REJECTED_EVENT = 'switchyard.target_rejected';

/** The attributes that content capture would fill, named on a span when capture is off. */
export const WITHHELD_CONTENT: string[] = [
  GenAiAttribute.systemInstructions,
  GenAiAttribute.inputMessages,
  GenAiAttribute.outputMessages,
];

/**
 * Runs one annotation of a span, and swallows what it throws: a span missing an attribute is better than a call
 * whose workflow task fails (or an attempt whose result is lost) because of its tracing.
 */
export function annotateSafely(annotate: () => void): void {
  try {
    annotate();
  } catch {
    // Nothing to do: the span goes out with what it has.
  }
}

/** Where an attempt stands in its call, when the workflow knows it. */
export interface AttemptPlace {
  readonly route?: string;
  readonly attempt?: number;
  readonly targetIndex?: number;
}

function isTargetAttempt(input: AttemptInput): input is TargetAttemptInput {
  return 'breaker' in input;
}

/** What an attempt's span says before it runs: the target, its place, its bound and the breaker state it saw. */
export function attemptStartAttributes(input: AttemptInput, place: AttemptPlace): SpanAttributes {
  const { target } = input;
  const attributes: SpanAttributes = {
    [GenAiAttribute.operationName]: GEN_AI_OPERATION_CHAT,
    [GenAiAttribute.providerName]: genAiProviderName(target.providerKind, target.provider),
    [GenAiAttribute.requestModel]: target.model,
    [SwitchyardAttribute.provider]: target.provider,
    [SwitchyardAttribute.stream]: input.stream,
    [GenAiAttribute.requestMaxTokens]: input.request.maxOutputTokens,
  };
  const { temperature, topP, topK, seed } = input.request;
  if (temperature !== undefined) attributes[GenAiAttribute.requestTemperature] = temperature;
  if (topP !== undefined) attributes[GenAiAttribute.requestTopP] = topP;
  if (topK !== undefined) attributes[GenAiAttribute.requestTopK] = topK;
  if (seed !== undefined) attributes[GenAiAttribute.requestSeed] = seed;
  if (place.route !== undefined) attributes[SwitchyardAttribute.route] = place.route;
  if (place.attempt !== undefined) attributes[SwitchyardAttribute.attempt] = place.attempt;
  if (place.targetIndex !== undefined) attributes[SwitchyardAttribute.targetIndex] = place.targetIndex;
  if (target.via !== undefined) attributes[SwitchyardAttribute.via] = target.via;
  if (isTargetAttempt(input)) {
    // An admitted attempt saw its breaker closed, or half-open and held the one probe.
    attributes[SwitchyardAttribute.breakerStateSeen] = input.breaker.probe ? 'half_open' : 'closed';
    attributes[SwitchyardAttribute.boundNanoUsd] = input.boundNanoUsd;
    if (input.reservation) attributes[SwitchyardAttribute.budgetScope] = input.reservation.scope;
  }
  return attributes;
}

/** What an answered attempt's span adds: the model that answered, why it stopped, its tokens and its cost. */
export function attemptAnswerAttributes(input: AttemptInput, result: GenerationResult): SpanAttributes {
  const attributes: SpanAttributes = {
    [SwitchyardAttribute.outcome]: 'succeeded',
    [GenAiAttribute.responseModel]: result.model,
    [GenAiAttribute.finishReasons]: [result.finishReason.unified],
    [GenAiAttribute.inputTokens]: genAiInputTokens(result.usage),
    [GenAiAttribute.outputTokens]: result.usage.outputTokens,
    [SwitchyardAttribute.costNanoUsd]: costOfUsage(input.target.prices, result.usage),
    [SwitchyardAttribute.costKnown]: true,
  };
  if (result.requestId) attributes[SwitchyardAttribute.providerRequestId] = result.requestId;
  return attributes;
}

/** What a failed attempt's span adds: its class as `error.type`, and what the provider said. */
export function attemptFailureAttributes(failure: {
  readonly failureClass: string;
  readonly requestSent: boolean;
  readonly details?: {
    readonly status?: number;
    readonly retryAfterMs?: number;
    readonly requestId?: string;
  };
}): SpanAttributes {
  const attributes: SpanAttributes = {
    [SwitchyardAttribute.outcome]: 'failed',
    [GenAiAttribute.errorType]: failure.failureClass,
    [SwitchyardAttribute.failureClass]: failure.failureClass,
    [SwitchyardAttribute.requestSent]: failure.requestSent,
  };
  const details = failure.details;
  if (details?.status !== undefined) attributes[SwitchyardAttribute.httpStatus] = details.status;
  if (details?.retryAfterMs !== undefined)
    attributes[SwitchyardAttribute.retryAfterMs] = details.retryAfterMs;
  if (details?.requestId) attributes[SwitchyardAttribute.providerRequestId] = details.requestId;
  return attributes;
}

/** The first target of the route matching the attempt's: its index in the record. */
export function targetIndexOf(route: ResolvedRoute, input: AttemptInput): number | undefined {
  const index = route.targets.findIndex(
    (target) =>
      target.provider === input.target.provider &&
      target.model === input.target.model &&
      target.via === input.target.via,
  );
  return index === -1 ? undefined : index;
}

/** The attempt number in an attempt activity's UI summary (`#2 provider/model`). */
export function attemptNumberOfSummary(summary: string | undefined): number | undefined {
  const match = /^#(\d+) /.exec(summary ?? '');
  return match ? Number(match[1]) : undefined;
}

/** What a finished routed call's span says: its route, outcome, fallbacks, cost and the target that answered. */
export function callAttributes(
  record: RoutingRecord,
  outcome: string,
  budgetScope: string | undefined,
): SpanAttributes {
  const attributes: SpanAttributes = {
    [GenAiAttribute.operationName]: GEN_AI_OPERATION_CHAT,
    [SwitchyardAttribute.route]: record.route,
    [SwitchyardAttribute.workflowId]: record.workflowId,
    [SwitchyardAttribute.outcome]: outcome,
    [SwitchyardAttribute.fallbacks]: record.fallbacks,
    [SwitchyardAttribute.attempts]: record.attempts.length,
    [SwitchyardAttribute.costNanoUsd]: record.totalCostNanoUsd,
    [SwitchyardAttribute.costUsd]: record.totalCostUsd,
  };
  if (outcome !== 'succeeded') attributes[GenAiAttribute.errorType] = outcome;
  if (record.routeVersion !== undefined) attributes[SwitchyardAttribute.routeVersion] = record.routeVersion;
  if (record.explanation) attributes[SwitchyardAttribute.strategy] = record.explanation.strategy;
  if (record.cache) attributes[SwitchyardAttribute.cache] = record.cache;
  if (budgetScope !== undefined) attributes[SwitchyardAttribute.budgetScope] = budgetScope;
  if (record.servedBy) {
    attributes[SwitchyardAttribute.servedBy] = `${record.servedBy.provider}/${record.servedBy.model}`;
    attributes[SwitchyardAttribute.targetIndex] = record.servedBy.targetIndex;
    attributes[GenAiAttribute.responseModel] = record.servedBy.model;
  }
  return attributes;
}

/** The event of one skipped target: which, and why it was not tried. */
export function skippedTargetEventAttributes(attempt: AttemptRecord): SpanAttributes {
  return {
    [SwitchyardAttribute.attempt]: attempt.attempt,
    [SwitchyardAttribute.targetIndex]: attempt.targetIndex,
    [SwitchyardAttribute.provider]: attempt.provider,
    [GenAiAttribute.requestModel]: attempt.model,
    [SwitchyardAttribute.skipReason]: attempt.skipReason ?? 'unknown',
  };
}

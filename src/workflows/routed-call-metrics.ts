// Switchyard's routed-call series (attempts, calls, fallbacks, cost) and the GenAI conventions' client series,
// emitted from workflow code. Workflow-safe.
import { metricMeter } from '@temporalio/workflow';
import type { Usage } from '../providers/types';
import { genAiInputTokens, GenAiTokenType } from '../routing/gen-ai-conventions';
import { AttemptOutcome, type AttemptRecord, type RoutingRecord } from '../routing/routing-record';
import { genAiAttemptLabels, genAiTokenLabels, type GenAiAttemptContext } from './gen-ai-metric-attributes';
import { GenAiPrometheusMetric, NO_FAILURE_CLASS, SwitchyardMetric } from './metric-names';

// The workflow meter emits nothing while a workflow replays, so a metric counts each attempt once even when
// the workflow is replayed on another worker. Metrics are created per use: the meter needs workflow context.

/** Where an attempt went and, when it answered, what the provider said it used. */
export interface AttemptMetricContext extends GenAiAttemptContext {
  /** The answer's token usage; absent for a failed or skipped attempt. */
  readonly usage?: Usage;
}

/** Counts one recorded attempt; call it once per attempt, when the attempt is added to the record. */
export function recordAttemptMetrics(attempt: AttemptRecord, context: AttemptMetricContext): void {
  const target = { provider: attempt.provider, model: attempt.model };
  metricMeter
    .createCounter(SwitchyardMetric.attempts, undefined, 'Attempts of routed calls, skips included')
    .add(1, {
      ...target,
      outcome: attempt.outcome,
      class: attempt.failureClass ?? attempt.skipReason ?? NO_FAILURE_CLASS,
    });
  if (attempt.outcome === AttemptOutcome.skipped) return;
  metricMeter
    .createHistogram(SwitchyardMetric.attemptLatency, 'int', 'ms', 'Latency of attempts that sent a request')
    .record(Math.max(0, Math.round(attempt.latencyMs)), { ...target, outcome: attempt.outcome });
  if (attempt.costNanoUsd > 0) {
    metricMeter
      .createCounter(SwitchyardMetric.attemptCost, 'nUSD', 'Cost charged for attempts, in nano-USD')
      .add(attempt.costNanoUsd, { ...target, cost_known: attempt.costKnown });
  }
  recordGenAiAttemptMetrics(attempt, context);
}

/**
 * The GenAI conventions' client series of one attempt that sent a request: its duration, and for an answer
 * its input and output tokens, so dashboards built for the conventions read Switchyard's calls as they are.
 */
function recordGenAiAttemptMetrics(attempt: AttemptRecord, context: AttemptMetricContext): void {
  const labels = genAiAttemptLabels(attempt, context);
  metricMeter
    .createHistogram(
      GenAiPrometheusMetric.operationDuration,
      'float',
      's',
      'GenAI operation duration: attempts that sent a request',
    )
    .record(Math.max(0, attempt.latencyMs) / 1_000, labels);
  if (attempt.outcome !== AttemptOutcome.succeeded || !context.usage) return;
  const tokens = metricMeter.createHistogram(
    GenAiPrometheusMetric.tokenUsage,
    'int',
    '{token}',
    'Tokens used by answered attempts, by gen_ai_token_type',
  );
  // An int histogram takes whole, non-negative numbers only; a provider's odd count must not fail the task.
  const whole = (count: number) => Math.max(0, Math.round(count));
  tokens.record(whole(genAiInputTokens(context.usage)), genAiTokenLabels(labels, GenAiTokenType.input));
  tokens.record(whole(context.usage.outputTokens), genAiTokenLabels(labels, GenAiTokenType.output));
}

/**
 * Counts one finished call: its outcome (`succeeded` or the failure type), its fallbacks and its cost. Call
 * it once per call, where the closing search attributes are set.
 */
export function recordCallMetrics(outcome: string, record: RoutingRecord): void {
  const tags = { route: record.route, outcome };
  metricMeter.createCounter(SwitchyardMetric.calls, undefined, 'Finished routed calls').add(1, tags);
  if (record.fallbacks > 0) {
    metricMeter
      .createCounter(SwitchyardMetric.fallbacks, undefined, 'Requests made after the first one of a call')
      .add(record.fallbacks, { route: record.route });
  }
  metricMeter
    .createHistogram(SwitchyardMetric.callCost, 'float', 'USD', 'Total cost of each finished routed call')
    .record(record.totalCostUsd, tags);
}

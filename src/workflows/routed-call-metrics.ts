// Switchyard's routed-call series (attempts, calls, fallbacks, cost), emitted from workflow code. Workflow-safe.
import { metricMeter } from '@temporalio/workflow';
import { AttemptOutcome, type AttemptRecord, type RoutingRecord } from '../routing/routing-record';
import { NO_FAILURE_CLASS, SwitchyardMetric } from './metric-names';

// The workflow meter emits nothing while a workflow replays, so a metric counts each attempt once even when
// the workflow is replayed on another worker. Metrics are created per use: the meter needs workflow context.

/** Counts one recorded attempt; call it once per attempt, when the attempt is added to the record. */
export function recordAttemptMetrics(attempt: AttemptRecord): void {
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

// Names, tags and histogram buckets of Switchyard's Prometheus series. Workflow-safe (plain constants).

/**
 * Switchyard's own series, served by the worker's Prometheus endpoint beside the Temporal SDK's
 * (`temporal_*`). Workflow code emits them through the replay-safe workflow meter, activities through the
 * activity meter; both flow into the one runtime exporter. Counter names carry no `_total` suffix, like the
 * SDK's own.
 */
export const SwitchyardMetric = {
  /** Counter: attempts, tagged `provider`, `model`, `outcome` (succeeded/failed/skipped) and `class`. */
  attempts: 'switchyard_attempts',
  /** Histogram (ms): latency of attempts that sent a request, tagged `provider`, `model`, `outcome`. */
  attemptLatency: 'switchyard_attempt_latency_ms',
  /** Counter (nano-USD): what attempts were charged, tagged `provider`, `model`, `cost_known`. */
  attemptCost: 'switchyard_attempt_cost_nano_usd',
  /** Counter: finished routed calls, tagged `route` and `outcome` (`succeeded` or the failure type). */
  calls: 'switchyard_calls',
  /** Counter: attempts made after a call's first request (failovers and retries), tagged `route`. */
  fallbacks: 'switchyard_fallbacks',
  /** Histogram (USD, float): the total cost of each finished call, tagged `route` and `outcome`. */
  callCost: 'switchyard_call_cost_usd',
  /** Counter: circuit-breaker transitions, tagged `provider`, `model`, `from`, `to`, `reason`. */
  breakerTransitions: 'switchyard_breaker_transitions',
  /** Counter: reservations a budget ledger refused, tagged `scope` and `reason` (`over_budget`, `closed`). */
  ledgerRefusals: 'switchyard_ledger_refusals',
} as const;
export type SwitchyardMetric = (typeof SwitchyardMetric)[keyof typeof SwitchyardMetric];

/** The `class` tag of an attempt that succeeded (failed attempts carry their failure class, skips their reason). */
export const NO_FAILURE_CLASS = 'none';

/** Buckets of {@link SwitchyardMetric.callCost}, in USD: the SDK's default buckets are for milliseconds. */
export const CALL_COST_USD_BUCKETS: readonly number[] = [
  0.000_01, 0.000_1, 0.000_5, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5,
];

/** Buckets of {@link SwitchyardMetric.attemptLatency}, in milliseconds. */
export const ATTEMPT_LATENCY_MS_BUCKETS: readonly number[] = [
  50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000, 60_000, 120_000,
];

/**
 * The GenAI conventions' client metrics (`gen_ai.client.token.usage`, `gen_ai.client.operation.duration`) as the
 * worker's Prometheus endpoint serves them. The Temporal runtime's Prometheus exporter refuses dots in names and
 * label names (it drops the values), so they are registered in the form an OpenTelemetry Collector's Prometheus
 * exporter gives the same metrics: dots become underscores, a duration in seconds gains `_seconds`, and an
 * annotation unit such as `{token}` adds nothing. Each is emitted once per attempt that sent a request.
 */
export const GenAiPrometheusMetric = {
  /** Histogram (tokens, int): an answered attempt's input and output tokens, one sample of each. */
  tokenUsage: 'gen_ai_client_token_usage',
  /** Histogram (seconds, float): the wall time of an attempt that sent a request, answered or failed. */
  operationDuration: 'gen_ai_client_operation_duration_seconds',
} as const;
export type GenAiPrometheusMetric = (typeof GenAiPrometheusMetric)[keyof typeof GenAiPrometheusMetric];

/** Switchyard's own attributes on the GenAI series, in the conventions' dotted style (served with `_`). */
export const SwitchyardGenAiAttribute = {
  /** The route the call walked (`inline` for a call that brought its own targets). */
  route: 'switchyard.route',
  /** The attempt's outcome: `succeeded` or `failed`. */
  outcome: 'switchyard.outcome',
} as const;

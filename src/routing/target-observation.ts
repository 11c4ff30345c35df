// What the worker has recently seen of one target, as a strategy reads it. A plain JSON type, workflow-safe.

/**
 * A worker's recent measurements of one route target's `provider/model`, handed to the routed call by
 * `beginCall` and recorded in its history, so a replayed call decides from the same numbers.
 *
 * Measured per worker process (not cluster-wide): a target no attempt on this worker has reached yet has
 * no latency and no failures.
 */
export interface TargetObservation {
  /**
   * The typical (median) latency of recent answered attempts on this `provider/model`, in milliseconds:
   * from sending the request to the whole answer, over the last 50 answers of the last 5 minutes.
   * Absent when none was answered in that window.
   */
  readonly latencyMs?: number;
  /**
   * How many attempts on this `provider/model` failed with a class that counts on the circuit breaker
   * (rate limited, unavailable, timeout, ...) in the last 5 minutes. `0` when none.
   */
  readonly recentFailures: number;
}

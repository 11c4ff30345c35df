// The failure classes and what each one means for routing. Pure; safe in workflow code.

/** Why an attempt failed, provider-neutral. Stable strings: they are recorded in workflow history. */
export const FailureClass = {
  rateLimited: 'rate_limited',
  quotaExhausted: 'quota_exhausted',
  unavailable: 'unavailable',
  timeout: 'timeout',
  authentication: 'authentication',
  invalidResponse: 'invalid_response',
  invalidRequest: 'invalid_request',
  contextOverflow: 'context_overflow',
  contentPolicy: 'content_policy',
  refused: 'refused',
  cancelled: 'cancelled',
  workerLost: 'worker_lost',
} as const;

export type FailureClass = (typeof FailureClass)[keyof typeof FailureClass];

export const ALL_FAILURE_CLASSES: readonly FailureClass[] = Object.values(FailureClass);

interface FailureClassRule {
  /** The next target may serve the call after this failure (unless the route narrows `failoverOn`). */
  readonly failsOver: boolean;
  /** The failure counts towards opening the target's circuit breaker. */
  readonly countsOnBreaker: boolean;
}

/** The one home of the failure-class table. */
export const FAILURE_CLASS_RULES: Readonly<Record<FailureClass, FailureClassRule>> = {
  rate_limited: { failsOver: true, countsOnBreaker: true },
  quota_exhausted: { failsOver: true, countsOnBreaker: true },
  unavailable: { failsOver: true, countsOnBreaker: true },
  timeout: { failsOver: true, countsOnBreaker: true },
  authentication: { failsOver: true, countsOnBreaker: true },
  invalid_response: { failsOver: true, countsOnBreaker: true },
  invalid_request: { failsOver: false, countsOnBreaker: false },
  // A target whose configured window cannot hold the request is passed over before anything is sent
  // (routing/context-window.ts); an overflow the provider reports anyway would repeat on the next target.
  context_overflow: { failsOver: false, countsOnBreaker: false },
  // A refusal is an answer about the content, not the provider: another model must not be asked.
  content_policy: { failsOver: false, countsOnBreaker: false },
  refused: { failsOver: false, countsOnBreaker: false },
  cancelled: { failsOver: false, countsOnBreaker: false },
  // The attempt's worker died or stalled before it sent the request: the provider was never asked, so nothing is
  // charged, its breaker hears nothing, and the walk asks the same target again on whichever worker takes it
  // (routed-call/attempt-verdict.ts), a few times at most, before moving on as after a failover.
  worker_lost: { failsOver: false, countsOnBreaker: false },
};

/** Failure classes a route may list in `failoverOn` (the ones that can fail over at all). */
export const FAILOVER_CLASSES: readonly FailureClass[] = ALL_FAILURE_CLASSES.filter(
  (failureClass) => FAILURE_CLASS_RULES[failureClass].failsOver,
);

export function countsOnBreaker(failureClass: FailureClass): boolean {
  return FAILURE_CLASS_RULES[failureClass].countsOnBreaker;
}

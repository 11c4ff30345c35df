// Which target each attempt of a routed call goes to, and when to stop after a failure. Pure.
import type { ResolvedRoute } from '../config/resolved-route';
import { FAILURE_CLASS_RULES, type FailureClass } from '../config/failure-class';

/**
 * Below this many milliseconds left for the provider (before the call's deadline, or of an attempt's own
 * timeout once its reservation has taken its share), no request is sent.
 */
export const MIN_ATTEMPT_MS = 250;

export interface PlannedAttempt {
  /** Index into the route's targets (0-based). */
  readonly targetIndex: number;
  /** 0 for the first attempt on the target, 1.. for its retries. */
  readonly retry: number;
}

/** Every attempt the route allows, in order: each target followed by its retries, capped at `maxAttempts`. */
export function planAttempts(route: Pick<ResolvedRoute, 'targets' | 'maxAttempts'>): PlannedAttempt[] {
  const plan: PlannedAttempt[] = [];
  route.targets.forEach((target, targetIndex) => {
    for (let retry = 0; retry <= target.retries; retry += 1) plan.push({ targetIndex, retry });
  });
  return plan.slice(0, route.maxAttempts);
}

/** Whether the walk continues after a failure of this class on this route. */
export function failsOver(route: Pick<ResolvedRoute, 'failoverOn'>, failureClass: FailureClass): boolean {
  return FAILURE_CLASS_RULES[failureClass].failsOver && route.failoverOn.includes(failureClass);
}

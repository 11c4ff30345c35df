// How one route's policy judges a breaker's shared facts: closed, open until when, or half-open. Pure; workflow-safe.
import type { BreakerPolicy } from '../config/route';
import { BreakerStatus, type BreakerState, type SeenBreakerPolicy } from './breaker-state';

export interface BreakerJudgement {
  /**
   * `closed`: the streak is below this policy's threshold, its callers call the target. `open`: the streak
   * reached it; its callers skip the target until `probeAtMs`, then one of them may take the probe. `half_open`:
   * the streak reached it and the one probe (shared by every route) is out or free to take.
   */
  readonly status: BreakerStatus;
  /**
   * When the streak reached the threshold: the epoch millisecond from which a caller under this policy may take
   * the probe, the last counted failure plus this policy's cooldown. A new counted failure moves it.
   */
  readonly probeAtMs?: number;
}

/** A seen policy with its judgement, as the client and CLI show it. */
export interface JudgedBreakerPolicy extends SeenBreakerPolicy, BreakerJudgement {}

/**
 * The breaker as `policy` judges it. The counts are shared: every route sees the same streak and the same last
 * failure, and applies its own threshold and cooldown to them, so two routes may start skipping at different
 * points and probe at different times. The probe itself is shared (see `admit`).
 */
export function judgeBreaker(
  state: BreakerState,
  policy: Pick<BreakerPolicy, 'failureThreshold' | 'cooldownMs'>,
): BreakerJudgement {
  if (state.consecutiveFailures < policy.failureThreshold) return { status: BreakerStatus.closed };
  // Every counted failure sets lastFailureAtMs; the fallback only guards a hand-made state.
  const probeAtMs = (state.lastFailureAtMs ?? state.openedAtMs ?? 0) + policy.cooldownMs;
  const status = state.status === BreakerStatus.halfOpen ? BreakerStatus.halfOpen : BreakerStatus.open;
  return { status, probeAtMs };
}

/** Every seen policy with its judgement, strictest first. */
export function judgeSeenPolicies(state: BreakerState): JudgedBreakerPolicy[] {
  return state.policies.map((policy) => ({ ...policy, ...judgeBreaker(state, policy) }));
}

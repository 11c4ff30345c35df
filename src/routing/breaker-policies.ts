// The route policies a breaker has seen: remembering them, ordering them, naming them. Pure; workflow-safe.
import type { BreakerPolicy } from '../config/route';
import {
  MAX_SEEN_POLICIES,
  SEEN_POLICY_TTL_MS,
  type BreakerState,
  type SeenBreakerPolicy,
} from './breaker-state';

type PolicyLike = Pick<BreakerPolicy, 'failureThreshold' | 'cooldownMs'>;

export function samePolicy(left: PolicyLike, right: PolicyLike): boolean {
  return left.failureThreshold === right.failureThreshold && left.cooldownMs === right.cooldownMs;
}

/** Strictest first: the lowest threshold trips first, and among equals the longest cooldown skips longest. */
export function comparePolicies(left: PolicyLike, right: PolicyLike): number {
  return left.failureThreshold - right.failureThreshold || right.cooldownMs - left.cooldownMs;
}

/** Only the two policy fields: a route's policy object may carry more, and the state must stay small. */
export function policyOf(policy: PolicyLike): BreakerPolicy {
  return { failureThreshold: policy.failureThreshold, cooldownMs: policy.cooldownMs };
}

export function hasSeenPolicy(state: BreakerState, policy: PolicyLike): boolean {
  return state.policies.some((seen) => samePolicy(seen, policy));
}

/** The strictest policy seen, or undefined when none was (a fresh or migrated breaker). */
export function strictestPolicy(state: BreakerState): SeenBreakerPolicy | undefined {
  return [...state.policies].sort(comparePolicies)[0];
}

/**
 * Remembers `policy` as seen at `nowMs`, forgetting policies not seen for {@link SEEN_POLICY_TTL_MS} and, beyond
 * {@link MAX_SEEN_POLICIES}, the least recently seen. Called only with a change the entity must hear of anyway, so
 * remembering a policy never costs a healthy call an event.
 */
export function notePolicy(state: BreakerState, policy: PolicyLike, nowMs: number): BreakerState {
  const others = state.policies.filter(
    (seen) => !samePolicy(seen, policy) && nowMs - seen.lastSeenAtMs < SEEN_POLICY_TTL_MS,
  );
  const kept = [...others]
    .sort((left, right) => right.lastSeenAtMs - left.lastSeenAtMs)
    .slice(0, MAX_SEEN_POLICIES - 1);
  const policies = [...kept, { ...policyOf(policy), lastSeenAtMs: nowMs }].sort(comparePolicies);
  return { ...state, policies };
}

/** `threshold 3, cooldown 30 s`: how a policy is named in details and the CLI. */
export function describePolicy(policy: PolicyLike): string {
  const cooldown =
    policy.cooldownMs % 1000 === 0 ? `${policy.cooldownMs / 1000} s` : `${policy.cooldownMs} ms`;
  return `threshold ${policy.failureThreshold}, cooldown ${cooldown}`;
}

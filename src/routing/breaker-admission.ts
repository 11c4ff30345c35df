// The breaker's admission step: may this caller call the target now (allow, probe or deny). Workflow-safe.
import type { BreakerPolicy } from '../config/route';
import { BreakerStatus, BreakerTransitionReason, type BreakerState } from './breaker-state';
import { bump, crossingDetail, moved, opened, settled, type MoveContext } from './breaker-edits';
import { judgeBreaker } from './breaker-judgement';
import { pausedUntil } from './breaker-pause';
import { readBreakerState, type CarriedBreakerState } from './breaker-migration';
import { describePolicy, hasSeenPolicy, notePolicy } from './breaker-policies';

export const AdmitDecision = {
  /** Closed for the asking route's policy: call the target. */
  allow: 'allow',
  /** This caller holds the one probe (shared by every route): call the target and report the outcome. */
  probe: 'probe',
  /** Open for the asking route's policy, or another caller holds the probe: skip the target (`circuit_open`). */
  deny: 'deny',
} as const;
export type AdmitDecision = (typeof AdmitDecision)[keyof typeof AdmitDecision];

/**
 * A probe's lease beyond the target's own timeout, in milliseconds: the attempt's start-to-close grace plus
 * time to report. A probe that has not reported by then is presumed lost and another caller may probe.
 */
export const PROBE_LEASE_GRACE_MS = 3_000;

/** The probe lease for an attempt on a target with this timeout, in milliseconds. */
export function probeLeaseMs(target: { readonly timeoutMs: number }): number {
  return target.timeoutMs + PROBE_LEASE_GRACE_MS;
}

export interface AdmitRequest {
  /** Epoch milliseconds now (workflow time in the entity). */
  readonly nowMs: number;
  /** The asking route's policy: its threshold and cooldown judge the shared counts. */
  readonly policy: BreakerPolicy;
  /** Who asks: `<routed-call workflow id>#<attempt>`; the same caller asking again gets the same answer. */
  readonly caller: string;
  /** How long a granted probe is held before another caller may take it, in milliseconds. */
  readonly probeLeaseMs: number;
  /**
   * Take the probe even before the asking route's cooldown (every target of the route is open and the route
   * says `whenAllOpen: probe_first`). Never takes a probe another caller holds. @default false
   */
  readonly force?: boolean;
}

export interface Admission {
  readonly decision: AdmitDecision;
  /** For `deny`: the earliest epoch milliseconds this caller could be admitted (cooldown end or lease expiry). */
  readonly retryAtMs?: number;
  /** For `deny`: the target is paused by a provider's `Retry-After` until `retryAtMs`, whatever its status. */
  readonly paused?: true;
  readonly state: BreakerState;
  /** Whether `state` differs from the input: only then does the entity need to hear of it. */
  readonly changed: boolean;
}

/**
 * A policy the breaker has not seen finds the streak at or past its threshold (another route's callers, with a
 * higher threshold, let it grow): remember the policy, and if the summary status was closed, open it as of the
 * last failure, which is when it would have opened under this policy.
 */
function seeTrippedPolicy(state: BreakerState, request: AdmitRequest): BreakerState {
  const seen = notePolicy(state, request.policy, request.nowMs);
  if (seen.status !== BreakerStatus.closed) return settled(seen);
  const detail = `${crossingDetail(state.consecutiveFailures, request.policy, state.lastFailureClass, false)} (seen when its route asked)`;
  return settled(
    opened(
      seen,
      state.lastFailureAtMs ?? request.nowMs,
      BreakerTransitionReason.failureThreshold,
      request,
      detail,
      request.policy,
    ),
  );
}

function grantProbe(state: BreakerState, request: AdmitRequest, forced: boolean): Admission {
  const context: MoveContext = request;
  const probe = {
    holder: request.caller,
    grantedAtMs: request.nowMs,
    leaseExpiresAtMs: request.nowMs + request.probeLeaseMs,
  };
  const previous = state.probe;
  let next: BreakerState;
  if (previous) {
    next = moved(
      state,
      BreakerStatus.halfOpen,
      BreakerTransitionReason.probeLeaseExpired,
      context,
      `probe lease of ${previous.holder} expired without a report`,
      request.policy,
    );
    next = { ...next, counts: bump(next.counts, 'probesGranted', 'probeLeasesExpired') };
  } else if (state.status === BreakerStatus.halfOpen) {
    // The previous probe was released (its caller was cancelled): this caller takes it, no new transition.
    next = { ...state, counts: bump(state.counts, 'probesGranted') };
  } else {
    next = moved(
      state,
      BreakerStatus.halfOpen,
      forced ? BreakerTransitionReason.probeForced : BreakerTransitionReason.cooldownElapsed,
      context,
      forced
        ? 'every target of the asking route is open'
        : `cooldown of ${request.policy.cooldownMs} ms elapsed (${describePolicy(request.policy)})`,
      request.policy,
    );
    next = { ...next, counts: bump(next.counts, 'probesGranted') };
  }
  const withProbe = settled(notePolicy({ ...next, probe }, request.policy, request.nowMs));
  return { decision: AdmitDecision.probe, state: withProbe, changed: true };
}

/**
 * Decides whether `request.caller` may call the target now. While a provider's `Retry-After` pauses the target,
 * deny until the pause ends, for every route (changing nothing, so a worker's view decides it alone). Otherwise
 * judge the shared counts by the asking route's
 * policy. Below its threshold: allow (whatever other routes think). At or past it: deny until its cooldown has
 * passed since the last counted failure, then grant the one probe — unless another caller, of any route, holds a
 * live probe lease. `force` takes a free probe before the cooldown. The same caller asking again keeps its probe.
 */
export function admit(carried: CarriedBreakerState, request: AdmitRequest): Admission {
  const state = readBreakerState(carried);
  // A pause is the provider's own word: no route calls it, not even with `force`. Only the holder of a probe
  // granted before the pause, asking again (a retried local activity), keeps the answer it had.
  const pauseEndsAtMs = pausedUntil(state, request.nowMs);
  if (pauseEndsAtMs !== undefined && state.probe?.holder !== request.caller) {
    return { decision: AdmitDecision.deny, retryAtMs: pauseEndsAtMs, paused: true, state, changed: false };
  }
  const judgement = judgeBreaker(state, request.policy);
  if (judgement.status === BreakerStatus.closed) {
    return { decision: AdmitDecision.allow, state, changed: false };
  }

  const current = hasSeenPolicy(state, request.policy) ? state : seeTrippedPolicy(state, request);
  const changed = current !== state;
  const probeAtMs = judgement.probeAtMs ?? request.nowMs;
  const probe = current.probe;
  if (probe?.holder === request.caller) {
    // The same caller asking again (a retried local activity) keeps its probe; the lease is not extended.
    return { decision: AdmitDecision.probe, state: current, changed };
  }
  if (probe && request.nowMs < probe.leaseExpiresAtMs) {
    const retryAtMs = request.force ? probe.leaseExpiresAtMs : Math.max(probe.leaseExpiresAtMs, probeAtMs);
    return { decision: AdmitDecision.deny, retryAtMs, state: current, changed };
  }
  const cooled = request.nowMs >= probeAtMs;
  if (!cooled && !request.force) {
    return { decision: AdmitDecision.deny, retryAtMs: probeAtMs, state: current, changed };
  }
  return grantProbe(current, request, !cooled);
}

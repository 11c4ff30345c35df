// The breaker's admission step: may this caller call the target now (allow, probe or deny). Workflow-safe.
import type { BreakerPolicy } from '../config/route';
import { BreakerStatus, BreakerTransitionReason, type BreakerState } from './breaker-state';
import { bump, isoTime, logged, open } from './breaker-edits';

export const AdmitDecision = {
  /** Closed: call the target. */
  allow: 'allow',
  /** Half-open and this caller holds the one probe: call the target and report the outcome. */
  probe: 'probe',
  /** Open, or another caller holds the probe: skip the target (`circuit_open`). */
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
  /** The asking route's policy: its threshold and cooldown are the ones applied. */
  readonly policy: BreakerPolicy;
  /** Who asks: `<routed-call workflow id>#<attempt>`; the same caller asking again gets the same answer. */
  readonly caller: string;
  /** How long a granted probe is held before another caller may take it, in milliseconds. */
  readonly probeLeaseMs: number;
  /**
   * Take the probe even before the cooldown (every target of the route is open and the route says
   * `whenAllOpen: probe_first`). Never takes a probe another caller holds. @default false
   */
  readonly force?: boolean;
}

export interface Admission {
  readonly decision: AdmitDecision;
  /** For `deny`: the earliest epoch milliseconds this caller could be admitted (cooldown end or lease expiry). */
  readonly retryAtMs?: number;
  readonly state: BreakerState;
  /** Whether `state` differs from the input: only then does the entity need to hear of it. */
  readonly changed: boolean;
}

function grantProbe(
  state: BreakerState,
  request: AdmitRequest,
  reason: BreakerTransitionReason,
  detail: string,
): Admission {
  const next: BreakerState = {
    ...state,
    status: BreakerStatus.halfOpen,
    probe: {
      holder: request.caller,
      grantedAtMs: request.nowMs,
      leaseExpiresAtMs: request.nowMs + request.probeLeaseMs,
    },
    transitions: logged(state, {
      from: state.status,
      to: BreakerStatus.halfOpen,
      reason,
      at: isoTime(request.nowMs),
      by: request.caller,
      detail,
    }),
    counts: bump(
      state.counts,
      'probesGranted',
      ...(reason === BreakerTransitionReason.probeLeaseExpired ? ['probeLeasesExpired' as const] : []),
    ),
  };
  return { decision: AdmitDecision.probe, state: next, changed: true };
}

/**
 * Decides whether `request.caller` may call the target now. Closed admits (unless failures reported under a
 * higher threshold already reach the asking route's, which opens it); open denies until the asking route's
 * cooldown has passed since the opening, then grants the one probe; half-open denies while another caller's
 * probe lease runs and grants a new probe once it expired or was released.
 */
export function admit(state: BreakerState, request: AdmitRequest): Admission {
  let current = state;
  if (current.status === BreakerStatus.closed) {
    if (current.consecutiveFailures < request.policy.failureThreshold) {
      return { decision: AdmitDecision.allow, state, changed: false };
    }
    // Another route with a higher threshold let the failures pile up; this route's policy says open. The
    // cooldown runs from the last failure, which is when the breaker would have opened under this policy.
    current = open(
      current,
      current.lastFailureAtMs ?? request.nowMs,
      request,
      BreakerTransitionReason.failureThreshold,
      `${current.consecutiveFailures} consecutive counted failures reach the asking route's threshold ${request.policy.failureThreshold}`,
      [],
    );
  }

  if (current.status === BreakerStatus.open) {
    const probeAtMs = (current.openedAtMs ?? request.nowMs) + request.policy.cooldownMs;
    if (request.nowMs >= probeAtMs) {
      return grantProbe(
        current,
        request,
        BreakerTransitionReason.cooldownElapsed,
        `cooldown of ${request.policy.cooldownMs} ms elapsed`,
      );
    }
    if (request.force) {
      return grantProbe(
        current,
        request,
        BreakerTransitionReason.probeForced,
        'every target of the asking route is open',
      );
    }
    return { decision: AdmitDecision.deny, retryAtMs: probeAtMs, state: current, changed: current !== state };
  }

  // Half-open.
  const probe = current.probe;
  if (probe?.holder === request.caller) {
    // The same caller asking again (a retried local activity) keeps its probe; the lease is not extended.
    return { decision: AdmitDecision.probe, state: current, changed: current !== state };
  }
  if (probe && request.nowMs < probe.leaseExpiresAtMs) {
    return {
      decision: AdmitDecision.deny,
      retryAtMs: probe.leaseExpiresAtMs,
      state: current,
      changed: current !== state,
    };
  }
  if (probe) {
    return grantProbe(
      current,
      request,
      BreakerTransitionReason.probeLeaseExpired,
      `probe lease of ${probe.holder} expired without a report`,
    );
  }
  // The previous probe was released (its caller was cancelled): this caller takes it, no new transition.
  return {
    decision: AdmitDecision.probe,
    state: {
      ...current,
      probe: {
        holder: request.caller,
        grantedAtMs: request.nowMs,
        leaseExpiresAtMs: request.nowMs + request.probeLeaseMs,
      },
      counts: bump(current.counts, 'probesGranted'),
    },
    changed: true,
  };
}

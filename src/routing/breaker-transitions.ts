// The breaker's state machine: admission, outcome reports and reset, each a pure state → state step. Workflow-safe.
import type { BreakerPolicy } from '../config/route';
import type { FailureClass } from './failure-class';
import {
  BreakerOutcome,
  BreakerStatus,
  BreakerTransitionReason,
  MAX_BREAKER_TRANSITIONS,
  type BreakerCounts,
  type BreakerState,
  type BreakerTransition,
} from './breaker-state';

export const AdmitDecision = {
  /** Closed: call the target. */
  allow: 'allow',
  /** Half-open and this caller holds the one probe: call the target and report the outcome. */
  probe: 'probe',
  /** Open, or another caller holds the probe: skip the target (`circuit_open`). */
  deny: 'deny',
} as const;
export type AdmitDecision = (typeof AdmitDecision)[keyof typeof AdmitDecision];

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

export interface OutcomeReport {
  readonly nowMs: number;
  /** The reporting route's policy: its threshold decides whether this failure opens the breaker. */
  readonly policy: BreakerPolicy;
  readonly caller: string;
  readonly outcome: BreakerOutcome;
  readonly failureClass?: FailureClass;
}

export interface OutcomeResult {
  readonly state: BreakerState;
  readonly changed: boolean;
}

function isoTime(epochMs: number): string {
  return new Date(epochMs).toISOString();
}

function bump(counts: BreakerCounts, ...names: (keyof BreakerCounts)[]): BreakerCounts {
  const next = { ...counts };
  for (const name of names) next[name] += 1;
  return next;
}

function logged(state: BreakerState, transition: BreakerTransition): readonly BreakerTransition[] {
  return [...state.transitions, transition].slice(-MAX_BREAKER_TRANSITIONS);
}

function withoutOpening(state: BreakerState): BreakerState {
  const { openedAtMs: _openedAtMs, reopenAtMs: _reopenAtMs, probe: _probe, ...rest } = state;
  return rest;
}

function withoutProbe(state: BreakerState): BreakerState {
  const { probe: _probe, ...rest } = state;
  return rest;
}

function open(
  state: BreakerState,
  openedAtMs: number,
  request: { nowMs: number; policy: BreakerPolicy; caller: string },
  reason: BreakerTransitionReason,
  detail: string,
  counted: (keyof BreakerCounts)[],
): BreakerState {
  return {
    ...withoutProbe(state),
    status: BreakerStatus.open,
    openedAtMs,
    reopenAtMs: openedAtMs + request.policy.cooldownMs,
    transitions: logged(state, {
      from: state.status,
      to: BreakerStatus.open,
      reason,
      at: isoTime(request.nowMs),
      by: request.caller,
      detail,
    }),
    counts: bump(state.counts, 'openings', ...counted),
  };
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

/**
 * Applies an attempt's outcome. The probe holder decides half-open: an answer closes, a counted failure
 * reopens with a fresh cooldown, a cancellation releases the probe. Elsewhere a counted failure adds to the
 * streak and opens the breaker at the reporting route's threshold; an answer on a closed breaker ends the
 * streak. Reports from callers admitted before the breaker opened do not move an open or half-open breaker.
 */
export function recordOutcome(state: BreakerState, report: OutcomeReport): OutcomeResult {
  const holdsProbe = state.status === BreakerStatus.halfOpen && state.probe?.holder === report.caller;
  const at = isoTime(report.nowMs);

  switch (report.outcome) {
    case BreakerOutcome.cancelled: {
      if (!holdsProbe) return { state, changed: false };
      const next: BreakerState = {
        ...withoutProbe(state),
        transitions: logged(state, {
          from: BreakerStatus.halfOpen,
          to: BreakerStatus.halfOpen,
          reason: BreakerTransitionReason.probeReleased,
          at,
          by: report.caller,
          detail: 'the probing call was cancelled',
        }),
        counts: bump(state.counts, 'probesReleased'),
      };
      return { state: next, changed: true };
    }

    case BreakerOutcome.success:
    case BreakerOutcome.neutral: {
      if (holdsProbe) {
        const answered =
          report.outcome === BreakerOutcome.success
            ? 'the probe succeeded'
            : `the provider answered the probe (${report.failureClass})`;
        const next: BreakerState = {
          ...withoutOpening(state),
          status: BreakerStatus.closed,
          consecutiveFailures: 0,
          transitions: logged(state, {
            from: BreakerStatus.halfOpen,
            to: BreakerStatus.closed,
            reason: BreakerTransitionReason.probeSucceeded,
            at,
            by: report.caller,
            detail: answered,
          }),
          counts: bump(state.counts, 'probesSucceeded'),
        };
        return { state: next, changed: true };
      }
      // A provider that answered (even with a 400) is up: the streak of consecutive failures ends.
      if (state.status === BreakerStatus.closed && state.consecutiveFailures > 0) {
        return { state: { ...state, consecutiveFailures: 0 }, changed: true };
      }
      return { state, changed: false };
    }

    case BreakerOutcome.countedFailure: {
      const failed: BreakerState = {
        ...state,
        consecutiveFailures: state.consecutiveFailures + 1,
        lastFailureAtMs: report.nowMs,
        ...(report.failureClass !== undefined ? { lastFailureClass: report.failureClass } : {}),
        counts: bump(state.counts, 'countedFailures'),
      };
      if (holdsProbe) {
        const detail = `the probe failed (${report.failureClass ?? 'counted failure'}); cooldown ${report.policy.cooldownMs} ms`;
        return {
          state: open(failed, report.nowMs, report, BreakerTransitionReason.probeFailed, detail, [
            'probesFailed',
          ]),
          changed: true,
        };
      }
      if (
        state.status === BreakerStatus.closed &&
        failed.consecutiveFailures >= report.policy.failureThreshold
      ) {
        const detail = `${failed.consecutiveFailures} consecutive counted failures (last: ${report.failureClass ?? 'unknown'}) reached threshold ${report.policy.failureThreshold}`;
        return {
          state: open(failed, report.nowMs, report, BreakerTransitionReason.failureThreshold, detail, []),
          changed: true,
        };
      }
      return { state: failed, changed: true };
    }
  }
}

/** Closes the breaker whatever its state, forgetting the streak and any probe; the transition log keeps it. */
export function resetBreaker(
  state: BreakerState,
  request: { nowMs: number; by: string; detail?: string },
): BreakerState {
  return {
    ...withoutOpening(state),
    status: BreakerStatus.closed,
    consecutiveFailures: 0,
    transitions: logged(state, {
      from: state.status,
      to: BreakerStatus.closed,
      reason: BreakerTransitionReason.reset,
      at: isoTime(request.nowMs),
      by: request.by,
      detail: request.detail ?? 'reset by an operator',
    }),
    counts: bump(state.counts, 'resets'),
  };
}

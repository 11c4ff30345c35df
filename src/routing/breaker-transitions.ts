// The breaker's outcome reports and operator reset, each a pure state → state step. Workflow-safe.
import type { BreakerPolicy } from '../config/route';
import type { FailureClass } from './failure-class';
import { bump, isoTime, logged, open, withoutOpening, withoutProbe } from './breaker-edits';
import { BreakerOutcome, BreakerStatus, BreakerTransitionReason, type BreakerState } from './breaker-state';

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

// The breaker's outcome reports and operator reset, each a pure state → state step. Workflow-safe.
import type { BreakerPolicy } from '../config/route';
import type { FailureClass } from '../config/failure-class';
import {
  bump,
  closedForEveryone,
  crossingDetail,
  isoTime,
  logged,
  moved,
  opened,
  settled,
  streakCleared,
  withoutProbe,
} from './breaker-edits';
import { judgeBreaker } from './breaker-judgement';
import { paused, pausesTarget } from './breaker-pause';
import { readBreakerState, type CarriedBreakerState } from './breaker-migration';
import { comparePolicies, describePolicy, hasSeenPolicy, notePolicy, samePolicy } from './breaker-policies';
import {
  BreakerOutcome,
  BreakerStatus,
  BreakerTransitionReason,
  type BreakerState,
  type SeenBreakerPolicy,
} from './breaker-state';

export interface OutcomeReport {
  readonly nowMs: number;
  /** The reporting route's policy: it judges whether the reporter's answer may end the streak. */
  readonly policy: BreakerPolicy;
  readonly caller: string;
  readonly outcome: BreakerOutcome;
  readonly failureClass?: FailureClass;
  /**
   * The provider's `Retry-After` with a rate-limited failure, in milliseconds: it pauses the target for every
   * route (clamped to 1–60 s). Absent: no pause, as before pauses existed.
   */
  readonly retryAfterMs?: number;
  /** Epoch milliseconds the reporter saw the failure: a pause runs from then. @default nowMs */
  readonly failedAtMs?: number;
}

export interface OutcomeResult {
  readonly state: BreakerState;
  readonly changed: boolean;
}

function changedTo(state: BreakerState, report: OutcomeReport): OutcomeResult {
  return { state: settled(notePolicy(state, report.policy, report.nowMs)), changed: true };
}

/**
 * The policies a counted failure makes trip: those whose threshold the streak reaches just now, the reporter's
 * own if it was not seen before and is already reached, and — on a closed summary — any seen one that is reached.
 * Strictest first.
 */
function newlyTripped(
  failed: BreakerState,
  report: OutcomeReport,
  reporterWasSeen: boolean,
  summaryClosed: boolean,
): SeenBreakerPolicy[] {
  const count = failed.consecutiveFailures;
  return failed.policies
    .filter(
      (policy) =>
        policy.failureThreshold === count ||
        (policy.failureThreshold <= count &&
          (summaryClosed || (!reporterWasSeen && samePolicy(policy, report.policy)))),
    )
    .sort(comparePolicies);
}

function recordFailure(state: BreakerState, report: OutcomeReport, holdsProbe: boolean): OutcomeResult {
  const failed = notePolicy(
    {
      ...state,
      consecutiveFailures: state.consecutiveFailures + 1,
      lastFailureAtMs: report.nowMs,
      streakStartedAtMs:
        state.consecutiveFailures === 0 ? report.nowMs : (state.streakStartedAtMs ?? report.nowMs),
      ...(report.failureClass !== undefined ? { lastFailureClass: report.failureClass } : {}),
      counts: bump(state.counts, 'countedFailures'),
    },
    report.policy,
    report.nowMs,
  );
  if (holdsProbe) {
    const detail = `the probe failed (${report.failureClass ?? 'counted failure'}); every route's cooldown restarts from now`;
    const reopened = opened(failed, report.nowMs, BreakerTransitionReason.probeFailed, report, detail);
    return { state: settled({ ...reopened, counts: bump(reopened.counts, 'probesFailed') }), changed: true };
  }
  // With a probe out, the probe decides the breaker for everyone; the streak still grows and every cooldown
  // restarts, which each route's judgement shows.
  if (failed.status === BreakerStatus.halfOpen) return { state: settled(failed), changed: true };

  const tripped = newlyTripped(
    failed,
    report,
    hasSeenPolicy(state, report.policy),
    failed.status === BreakerStatus.closed,
  );
  let next = failed;
  for (const policy of tripped) {
    const first = next.status === BreakerStatus.closed;
    const detail = crossingDetail(next.consecutiveFailures, policy, report.failureClass, !first);
    const reason = BreakerTransitionReason.failureThreshold;
    next = first
      ? opened(next, report.nowMs, reason, report, detail, policy)
      : moved(next, BreakerStatus.open, reason, report, detail, policy);
  }
  return { state: settled(next), changed: true };
}

/**
 * Applies an attempt's outcome to the shared facts. The probe holder (of whichever route) decides for every
 * route: an answer closes, a counted failure reopens and restarts every cooldown, a cancellation releases the
 * probe. Any other counted failure adds to the shared streak, restarts every cooldown from now, and is logged for
 * each seen policy whose threshold it reaches. Any other answer ends the streak for every route if the reporter's
 * own policy still judged the breaker closed; a call admitted before its own route's threshold was reached does
 * not decide for it (its probe will).
 */
export function recordOutcome(carried: CarriedBreakerState, report: OutcomeReport): OutcomeResult {
  const state = readBreakerState(carried);
  const holdsProbe = state.status === BreakerStatus.halfOpen && state.probe?.holder === report.caller;

  switch (report.outcome) {
    case BreakerOutcome.cancelled: {
      if (!holdsProbe) return { state, changed: false };
      const released: BreakerState = {
        ...withoutProbe(state),
        transitions: logged(state, {
          from: BreakerStatus.halfOpen,
          to: BreakerStatus.halfOpen,
          reason: BreakerTransitionReason.probeReleased,
          at: isoTime(report.nowMs),
          by: report.caller,
          detail: 'the probing call was cancelled',
        }),
        counts: bump(state.counts, 'probesReleased'),
      };
      return changedTo(released, report);
    }

    case BreakerOutcome.success:
    case BreakerOutcome.neutral: {
      if (holdsProbe) {
        const answered =
          report.outcome === BreakerOutcome.success
            ? 'the probe succeeded'
            : `the provider answered the probe (${report.failureClass})`;
        const closed = closedForEveryone(state, BreakerTransitionReason.probeSucceeded, report, answered);
        return changedTo({ ...closed, counts: bump(closed.counts, 'probesSucceeded') }, report);
      }
      if (state.consecutiveFailures === 0) return { state, changed: false };
      if (judgeBreaker(state, report.policy).status !== BreakerStatus.closed)
        return { state, changed: false };
      // A provider that answered (even with a 400) is up: the shared streak of consecutive failures ends.
      if (state.status === BreakerStatus.closed) return changedTo(streakCleared(state), report);
      const detail = `a call on a route with ${describePolicy(report.policy)}, which still judged it closed, got an answer: the streak of ${state.consecutiveFailures} ends for every route`;
      return changedTo(closedForEveryone(state, BreakerTransitionReason.streakEnded, report, detail), report);
    }

    case BreakerOutcome.countedFailure: {
      const failed = recordFailure(state, report, holdsProbe);
      const { retryAfterMs } = report;
      if (!pausesTarget(report.failureClass, retryAfterMs)) return failed;
      return { state: paused(failed.state, { ...report, retryAfterMs }), changed: true };
    }
  }
}

/** Closes the breaker for every route, forgetting the streak, any probe and any pause; the transition log keeps it. */
export function resetBreaker(
  carried: CarriedBreakerState,
  request: { nowMs: number; by: string; detail?: string },
): BreakerState {
  const { pausedUntilMs: _pausedUntilMs, ...state } = readBreakerState(carried);
  const closed = closedForEveryone(
    state,
    BreakerTransitionReason.reset,
    { nowMs: request.nowMs, caller: request.by },
    request.detail ?? 'reset by an operator',
  );
  return settled({ ...closed, counts: bump(closed.counts, 'resets') });
}

// Small pure edits of a breaker state shared by its transitions: counts, the log, opening and closing. Workflow-safe.
import type { BreakerPolicy } from '../config/route';
import { describePolicy, policyOf, strictestPolicy } from './breaker-policies';
import {
  BreakerStatus,
  MAX_BREAKER_TRANSITIONS,
  type BreakerCounts,
  type BreakerState,
  type BreakerTransition,
  BreakerTransitionReason,
} from './breaker-state';

export function isoTime(epochMs: number): string {
  return new Date(epochMs).toISOString();
}

export function bump(counts: BreakerCounts, ...names: (keyof BreakerCounts)[]): BreakerCounts {
  const next = { ...counts };
  for (const name of names) next[name] += 1;
  return next;
}

export function logged(state: BreakerState, transition: BreakerTransition): readonly BreakerTransition[] {
  return [...state.transitions, transition].slice(-MAX_BREAKER_TRANSITIONS);
}

export function withoutOpening(state: BreakerState): BreakerState {
  const { openedAtMs: _openedAtMs, reopenAtMs: _reopenAtMs, probe: _probe, ...rest } = state;
  return rest;
}

export function withoutProbe(state: BreakerState): BreakerState {
  const { probe: _probe, ...rest } = state;
  return rest;
}

function withoutStreak(state: BreakerState): BreakerState {
  const { streakStartedAtMs: _streakStartedAtMs, ...rest } = state;
  return { ...rest, consecutiveFailures: 0 };
}

/** Who caused a move and when: the asking or reporting caller at its workflow time. */
export interface MoveContext {
  readonly nowMs: number;
  readonly caller: string;
}

/** Appends one transition from the current status to `to`, moving the status with it. */
export function moved(
  state: BreakerState,
  to: BreakerStatus,
  reason: BreakerTransitionReason,
  context: MoveContext,
  detail: string,
  policy?: BreakerPolicy,
): BreakerState {
  return {
    ...state,
    status: to,
    transitions: logged(state, {
      from: state.status,
      to,
      reason,
      at: isoTime(context.nowMs),
      by: context.caller,
      detail,
      ...(policy ? { policy: policyOf(policy) } : {}),
    }),
    counts: to === BreakerStatus.open ? bump(state.counts, 'openings') : state.counts,
  };
}

/** Opens the summary status at `openedAtMs`, dropping any probe. */
export function opened(
  state: BreakerState,
  openedAtMs: number,
  reason: BreakerTransitionReason,
  context: MoveContext,
  detail: string,
  policy?: BreakerPolicy,
): BreakerState {
  return { ...moved(withoutProbe(state), BreakerStatus.open, reason, context, detail, policy), openedAtMs };
}

/** Closes the breaker for every route: the streak, the probe and the opening are gone; the log keeps it. */
export function closedForEveryone(
  state: BreakerState,
  reason: BreakerTransitionReason,
  context: MoveContext,
  detail: string,
): BreakerState {
  const closed = moved(withoutStreak(withoutOpening(state)), BreakerStatus.closed, reason, context, detail);
  // A probe still out when something else closes the breaker ends here too: every granted probe is counted
  // as ended one way (its own success is counted by its caller).
  return state.probe && reason !== BreakerTransitionReason.probeSucceeded
    ? { ...closed, counts: bump(closed.counts, 'probesReleased') }
    : closed;
}

/** Ends the streak on a closed breaker: nothing moves, so nothing is logged. */
export function streakCleared(state: BreakerState): BreakerState {
  return withoutStreak(state);
}

/**
 * The derived summary fields after a change: `reopenAtMs` follows the last counted failure and the strictest
 * policy seen while the breaker is not closed, and a closed breaker has no opening.
 */
export function settled(state: BreakerState): BreakerState {
  if (state.status === BreakerStatus.closed) {
    return state.openedAtMs === undefined && state.reopenAtMs === undefined ? state : withoutOpening(state);
  }
  const strictest = strictestPolicy(state);
  if (!strictest || state.lastFailureAtMs === undefined) return state;
  return { ...state, reopenAtMs: state.lastFailureAtMs + strictest.cooldownMs };
}

/** The detail of a threshold crossing. */
export function crossingDetail(
  failures: number,
  policy: BreakerPolicy,
  lastClass: string | undefined,
  already: boolean,
): string {
  const last = lastClass ? ` (last: ${lastClass})` : '';
  const who = already ? '; routes with this policy skip it too' : '';
  return `${failures} consecutive counted failures${last} reached the threshold of ${describePolicy(policy)}${who}`;
}

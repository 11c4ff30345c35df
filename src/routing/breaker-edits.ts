// Small pure edits of a breaker state shared by its transitions: counts, the transition log, opening. Workflow-safe.
import type { BreakerPolicy } from '../config/route';
import {
  BreakerStatus,
  MAX_BREAKER_TRANSITIONS,
  type BreakerCounts,
  type BreakerState,
  type BreakerTransition,
  type BreakerTransitionReason,
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

/** Opens the breaker at `openedAtMs` with the asking route's cooldown, dropping any probe. */
export function open(
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

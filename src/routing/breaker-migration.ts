// Reads breaker state carried by earlier code (continue-as-new input, snapshots of older workers). Pure; workflow-safe.
import {
  BREAKER_STATE_VERSION,
  initialBreakerState,
  ZERO_BREAKER_COUNTS,
  type BreakerState,
} from './breaker-state';

/**
 * The state as the first breaker code carried it: one status for every route, no version, no policies. Replay
 * fixtures and entities running since then hold it in their continue-as-new input.
 */
export type LegacyBreakerState = Omit<BreakerState, 'version' | 'policies' | 'streakStartedAtMs'> & {
  readonly version?: undefined;
};

/** A state as it may arrive from history: this version's, or an earlier one. */
export type CarriedBreakerState = BreakerState | LegacyBreakerState;

/**
 * The state in this version's shape. A current state is returned as it is (the same object, so a caller can
 * still tell "unchanged" by identity); a legacy one gains an empty list of seen policies (which policy opened it
 * was never recorded) and keeps its status, streak, probe, transitions and counts, so an open breaker stays open
 * and a held probe stays held across the upgrade. A state of either shape written before pauses existed has no
 * `pausedUntilMs`, which reads as never paused: no migration is needed for it.
 */
export function readBreakerState(carried: CarriedBreakerState | undefined): BreakerState {
  if (carried === undefined) return initialBreakerState();
  if (carried.version !== undefined) return carried;
  return {
    ...carried,
    version: BREAKER_STATE_VERSION,
    policies: [],
    transitions: carried.transitions ?? [],
    counts: { ...ZERO_BREAKER_COUNTS, ...carried.counts },
  };
}

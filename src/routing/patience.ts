// When a patient call walks its route again after an outage. Pure.

/** First wait between rounds when no breaker says when to come back, in milliseconds; doubled per round. */
export const PATIENCE_BACKOFF_MS = 1_000;
/** Longest wait between rounds without a breaker's word, in milliseconds. */
export const MAX_PATIENCE_BACKOFF_MS = 60_000;
/** Shortest wait between rounds, in milliseconds: a breaker's retry time may already have passed. */
export const MIN_ROUND_WAIT_MS = 100;

export interface RoundSituation {
  readonly nowMs: number;
  /** The round that just ended (1-based). */
  readonly round: number;
  /**
   * Earliest time a breaker of the route will offer a probe: one that skipped a target this round, or one that a
   * failure this round opened. Absent when no breaker said.
   */
  readonly earliestProbeAtMs?: number;
  /**
   * Whether some target could be called again at once (it failed, but its breaker stayed closed): then the round
   * starts after the backoff if that comes before the earliest probe. @default true when no breaker said
   */
  readonly someTargetClosed?: boolean;
  readonly patienceEndsAtMs: number;
  /** Latest time another attempt may start (the call's deadline less an attempt's minimum), if any. */
  readonly lastStartAtMs?: number;
}

/**
 * The start of the next round: as soon as some target may be called again. That is when the earliest breaker
 * may be probed when every target's breaker is open, else after a doubling backoff (or the earliest probe, if
 * that comes first); undefined when that is past the call's patience or deadline, and the call must end.
 */
export function nextRoundAt(situation: RoundSituation): number | undefined {
  const backoffMs = Math.min(PATIENCE_BACKOFF_MS * 2 ** (situation.round - 1), MAX_PATIENCE_BACKOFF_MS);
  const probe = situation.earliestProbeAtMs;
  const afterBackoff = situation.nowMs + backoffMs;
  const wanted =
    probe === undefined ? afterBackoff : situation.someTargetClosed ? Math.min(probe, afterBackoff) : probe;
  const resumeAtMs = Math.max(wanted, situation.nowMs + MIN_ROUND_WAIT_MS);
  const latest = Math.min(situation.patienceEndsAtMs, situation.lastStartAtMs ?? Infinity);
  return resumeAtMs <= latest ? resumeAtMs : undefined;
}

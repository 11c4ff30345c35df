// A provider's 429 Retry-After as a pause of its breaker, shared by every route and caller. Pure; workflow-safe.
import { FailureClass } from '../config/failure-class';
import { isoTime, logged } from './breaker-edits';
import { BreakerTransitionReason, type BreakerState } from './breaker-state';

/** The shortest pause a Retry-After sets, in milliseconds: a `Retry-After: 0` still pauses for this long. */
export const MIN_RETRY_AFTER_PAUSE_MS = 1_000;
/** The longest pause a Retry-After sets, in milliseconds: a longer (or absurd) one is cut to this. */
export const MAX_RETRY_AFTER_PAUSE_MS = 60_000;

/**
 * How long a Retry-After of `retryAfterMs` pauses the target, in milliseconds: clamped to
 * {@link MIN_RETRY_AFTER_PAUSE_MS}–{@link MAX_RETRY_AFTER_PAUSE_MS}. A value that is not a finite number (never
 * produced by the provider layer, but a report is data) pauses for the longest.
 */
export function retryAfterPauseMs(retryAfterMs: number): number {
  if (!Number.isFinite(retryAfterMs)) return MAX_RETRY_AFTER_PAUSE_MS;
  return Math.min(MAX_RETRY_AFTER_PAUSE_MS, Math.max(MIN_RETRY_AFTER_PAUSE_MS, Math.ceil(retryAfterMs)));
}

/** Whether a failure pauses its target: a rate limit (429) that said when to come back. */
export function pausesTarget(
  failureClass: FailureClass | undefined,
  retryAfterMs: number | null | undefined,
): retryAfterMs is number {
  return (
    failureClass === FailureClass.rateLimited &&
    typeof retryAfterMs === 'number' &&
    !Number.isNaN(retryAfterMs)
  );
}

/**
 * A Retry-After as a report carries it, in milliseconds: as given, but an infinite one (a header of hundreds of
 * digits) as {@link MAX_RETRY_AFTER_PAUSE_MS}, since JSON and the report's schema take finite numbers only.
 */
export function reportedRetryAfterMs(retryAfterMs: number): number {
  return Number.isFinite(retryAfterMs) ? retryAfterMs : MAX_RETRY_AFTER_PAUSE_MS;
}

/** The epoch millisecond the breaker's pause ends, when it is still paused at `nowMs`; else undefined. */
export function pausedUntil(state: Pick<BreakerState, 'pausedUntilMs'>, nowMs: number): number | undefined {
  const until = state.pausedUntilMs;
  return until !== undefined && nowMs < until ? until : undefined;
}

/** Who set a pause, and what the provider asked for. */
export interface PauseReport {
  /** Epoch milliseconds the report is applied (workflow time in the entity). */
  readonly nowMs: number;
  readonly caller: string;
  /** The provider's Retry-After, in milliseconds, before clamping. */
  readonly retryAfterMs: number;
  /**
   * Epoch milliseconds the reporter saw the failure: the pause runs from then, not from when the entity got
   * round to the report (a busy or restarted entity must not stretch it). A time after `nowMs` (another
   * machine's clock) counts as `nowMs`. @default nowMs
   */
  readonly failedAtMs?: number;
}

/**
 * Pauses the target until the failure's time plus the clamped Retry-After, for every route. A pause already running that
 * ends later is kept (a shorter Retry-After does not shorten it); either way no pause ends more than
 * {@link MAX_RETRY_AFTER_PAUSE_MS} after the report that set it. A new pause is logged as a transition that keeps
 * the status (the streak is the breaker's own business); extending a running one is not, so a burst of rate
 * limits does not push the breaker's other transitions out of its log. Returns the state unchanged when nothing
 * moves.
 */
export function paused(state: BreakerState, report: PauseReport): BreakerState {
  const pauseMs = retryAfterPauseMs(report.retryAfterMs);
  const until = Math.min(report.failedAtMs ?? report.nowMs, report.nowMs) + pauseMs;
  // Reported after its pause would have ended: nothing to pause any more.
  if (until <= report.nowMs) return state;
  const running = pausedUntil(state, report.nowMs);
  if (running !== undefined) return running >= until ? state : { ...state, pausedUntilMs: until };
  const seconds = pauseMs % 1000 === 0 ? `${pauseMs / 1000} s` : `${pauseMs} ms`;
  return {
    ...state,
    pausedUntilMs: until,
    transitions: logged(state, {
      from: state.status,
      to: state.status,
      reason: BreakerTransitionReason.retryAfter,
      at: isoTime(report.nowMs),
      by: report.caller,
      detail: `rate limited with Retry-After ${report.retryAfterMs} ms: every route skips it for ${seconds}, until ${isoTime(until)}`,
    }),
  };
}

/** The message of a skip for a pause: it names until when. */
export function pausedSkipMessage(untilMs: number): string {
  return `paused by the provider's Retry-After until ${isoTime(untilMs)}`;
}

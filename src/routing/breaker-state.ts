// The circuit breaker's shared state as plain JSON, and the outcome a report carries. Pure; workflow-safe.
import type { BreakerPolicy } from '../config/route';
import { FAILURE_CLASS_RULES, FailureClass } from '../config/failure-class';

/** Stable strings: they are recorded in breaker state, in the transition log and in workflow history. */
export const BreakerStatus = { closed: 'closed', open: 'open', halfOpen: 'half_open' } as const;
export type BreakerStatus = (typeof BreakerStatus)[keyof typeof BreakerStatus];

/** Why the breaker moved; `from → to` in {@link BreakerTransition}. Stable strings. */
export const BreakerTransitionReason = {
  /**
   * The consecutive counted failures reached the threshold of a policy (named in the transition): closed → open
   * for the first policy to trip, open → open for each more lenient one that trips after it.
   */
  failureThreshold: 'failure_threshold',
  /** Open → half-open: the asking route's cooldown elapsed and it took the probe. */
  cooldownElapsed: 'cooldown_elapsed',
  /** Open → half-open before the cooldown: every target of the asking route was open (`whenAllOpen: probe_first`). */
  probeForced: 'probe_forced',
  /** Half-open → closed: the probe got an answer from the provider. */
  probeSucceeded: 'probe_succeeded',
  /** Half-open → open: the probe failed with a counted class; a fresh cooldown starts. */
  probeFailed: 'probe_failed',
  /** Half-open → half-open: the probe's lease ran out without a report; the asker took a new probe. */
  probeLeaseExpired: 'probe_lease_expired',
  /** Half-open → half-open: the probe holder was cancelled; the next asker may probe. */
  probeReleased: 'probe_released',
  /**
   * Open or half-open → closed: a call on a route whose own policy still judged the breaker closed got an
   * answer, which ends the shared streak of consecutive failures for every route.
   */
  streakEnded: 'streak_ended',
  /** Any → closed: an operator reset the breaker. */
  reset: 'reset',
  /**
   * Status kept: a rate-limited answer said when to come back (`Retry-After`), and every route skips the target
   * until then (`pausedUntilMs`).
   */
  retryAfter: 'retry_after',
} as const;
export type BreakerTransitionReason = (typeof BreakerTransitionReason)[keyof typeof BreakerTransitionReason];

export interface BreakerTransition {
  readonly from: BreakerStatus;
  readonly to: BreakerStatus;
  readonly reason: BreakerTransitionReason;
  /** ISO time of the transition (workflow time in the entity). */
  readonly at: string;
  /** The caller (`<workflow id>#<attempt>`) or operator that caused it. */
  readonly by?: string;
  /** A short human-readable explanation. */
  readonly detail?: string;
  /** The policy whose judgement moved it (a threshold crossing, a probe grant); absent for moves that hold for every policy. */
  readonly policy?: BreakerPolicy;
}

/** The one half-open probe: who holds it and until when. */
export interface BreakerProbe {
  readonly holder: string;
  /** Epoch milliseconds the probe was granted. */
  readonly grantedAtMs: number;
  /** Epoch milliseconds after which another caller may take the probe: a lost probe cannot wedge the breaker. */
  readonly leaseExpiresAtMs: number;
}

/** Events the entity has seen. Healthy calls never reach it, so there is no success counter. */
export interface BreakerCounts {
  readonly countedFailures: number;
  readonly openings: number;
  readonly probesGranted: number;
  readonly probesSucceeded: number;
  readonly probesFailed: number;
  readonly probeLeasesExpired: number;
  readonly probesReleased: number;
  readonly resets: number;
}

/** A route's breaker policy as the entity saw it last. */
export interface SeenBreakerPolicy {
  readonly failureThreshold: number;
  readonly cooldownMs: number;
  /** Epoch milliseconds of the last change to the breaker that a caller under this policy took part in. */
  readonly lastSeenAtMs: number;
}

/** Shape version of {@link BreakerState}; states carried by earlier code have none and are migrated on read. */
export const BREAKER_STATE_VERSION = 2;

/**
 * Everything a breaker knows; plain JSON so it survives payload conversion and continue-as-new. The facts are
 * shared by every route (the streak, the last failure, the one probe, the log); whether the breaker is open is a
 * judgement each route makes of them with its own policy (`judgeBreaker`). `status`, `openedAtMs` and
 * `reopenAtMs` are that judgement by the strictest policy seen, kept for readers that show one status.
 */
export interface BreakerState {
  readonly version: typeof BREAKER_STATE_VERSION;
  /**
   * The breaker as judged by the strictest policy seen (lowest threshold; longest cooldown among equals):
   * closed, open once the streak reaches its threshold, half-open while the shared probe is out.
   */
  readonly status: BreakerStatus;
  /** Counted failures since the last answer, probe success or reset: shared by every route. */
  readonly consecutiveFailures: number;
  /** Epoch milliseconds of the first counted failure of the current streak; absent with no streak. */
  readonly streakStartedAtMs?: number;
  readonly lastFailureClass?: FailureClass;
  /** Epoch milliseconds of the last counted failure: every policy's cooldown runs from here. */
  readonly lastFailureAtMs?: number;
  /** Epoch milliseconds the summary `status` last became open; set while open or half-open. */
  readonly openedAtMs?: number;
  /**
   * Epoch milliseconds the strictest policy seen may probe (the last counted failure plus its cooldown); set
   * while open or half-open. A route with another cooldown computes its own from `lastFailureAtMs`.
   */
  readonly reopenAtMs?: number;
  /** Set while the one probe is out (half-open only); one probe for every route together. */
  readonly probe?: BreakerProbe;
  /**
   * Epoch milliseconds until which no route calls the target, whatever its status: the last rate-limited
   * answer's `Retry-After`, clamped to 1–60 s (see `breaker-pause.ts`). Kept once passed, until an operator
   * reset; absent when no pause was ever set, as in states written before pauses existed.
   */
  readonly pausedUntilMs?: number;
  /**
   * The policies of the routes whose callers changed this breaker in the last day (at most
   * {@link MAX_SEEN_POLICIES}), ordered by threshold then cooldown: the ones a reader can judge it by.
   */
  readonly policies: readonly SeenBreakerPolicy[];
  /** The most recent transitions, oldest first, at most {@link MAX_BREAKER_TRANSITIONS}. */
  readonly transitions: readonly BreakerTransition[];
  readonly counts: BreakerCounts;
}

/** How many distinct policies a breaker remembers. */
export const MAX_SEEN_POLICIES = 8;
/** A policy no caller has used to change the breaker for this long is forgotten at the next change, in milliseconds. */
export const SEEN_POLICY_TTL_MS = 86_400_000;

/** How many transitions a breaker keeps. */
export const MAX_BREAKER_TRANSITIONS = 50;

export const ZERO_BREAKER_COUNTS: BreakerCounts = {
  countedFailures: 0,
  openings: 0,
  probesGranted: 0,
  probesSucceeded: 0,
  probesFailed: 0,
  probeLeasesExpired: 0,
  probesReleased: 0,
  resets: 0,
};

/** A breaker nobody has reported to: closed, no failures. A breaker entity that does not exist is in this state. */
export function initialBreakerState(): BreakerState {
  return {
    version: BREAKER_STATE_VERSION,
    status: BreakerStatus.closed,
    consecutiveFailures: 0,
    policies: [],
    transitions: [],
    counts: { ...ZERO_BREAKER_COUNTS },
  };
}

/** What an attempt means to the breaker. */
export const BreakerOutcome = {
  /** The provider answered. */
  success: 'success',
  /** A failure class that counts: the provider or its account is in trouble. */
  countedFailure: 'counted_failure',
  /** A failure class that does not count but shows the provider answered (a 400, a refusal, an overflow). */
  neutral: 'neutral',
  /** The caller cancelled; says nothing about the provider. */
  cancelled: 'cancelled',
} as const;
export type BreakerOutcome = (typeof BreakerOutcome)[keyof typeof BreakerOutcome];

/** Maps an attempt's result to its breaker outcome by the failure-class table. */
export function breakerOutcomeOf(succeeded: boolean, failureClass?: FailureClass): BreakerOutcome {
  if (succeeded || failureClass === undefined) return BreakerOutcome.success;
  if (failureClass === FailureClass.cancelled) return BreakerOutcome.cancelled;
  return FAILURE_CLASS_RULES[failureClass].countsOnBreaker
    ? BreakerOutcome.countedFailure
    : BreakerOutcome.neutral;
}

/** `provider/model`: how a breaker is named to people and the CLI. */
export function breakerKey(provider: string, model: string): string {
  return `${provider}/${model}`;
}

/**
 * Splits `provider/model` at the first slash; model ids may contain slashes (`meta-llama/Llama-3`), provider
 * names may not. Returns undefined when either part is empty.
 */
export function parseBreakerKey(key: string): { provider: string; model: string } | undefined {
  const slash = key.indexOf('/');
  if (slash <= 0 || slash === key.length - 1) return undefined;
  return { provider: key.slice(0, slash), model: key.slice(slash + 1) };
}

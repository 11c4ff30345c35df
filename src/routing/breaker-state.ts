// The circuit breaker's state (DESIGN §4) as plain JSON, and the outcome a report carries. Pure; workflow-safe.
import { FAILURE_CLASS_RULES, FailureClass } from './failure-class';

/** Stable strings: they are recorded in breaker state, in the transition log and in workflow history. */
export const BreakerStatus = { closed: 'closed', open: 'open', halfOpen: 'half_open' } as const;
export type BreakerStatus = (typeof BreakerStatus)[keyof typeof BreakerStatus];

/** Why the breaker moved; `from → to` in {@link BreakerTransition}. Stable strings. */
export const BreakerTransitionReason = {
  /** Closed → open: the consecutive counted failures reached the threshold of the route that reported or asked. */
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
  /** Any → closed: an operator reset the breaker. */
  reset: 'reset',
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

/** Everything a breaker knows; plain JSON so it survives payload conversion and continue-as-new. */
export interface BreakerState {
  readonly status: BreakerStatus;
  /** Counted failures since the last success, probe success or reset. */
  readonly consecutiveFailures: number;
  readonly lastFailureClass?: FailureClass;
  /** Epoch milliseconds of the last counted failure. */
  readonly lastFailureAtMs?: number;
  /** Epoch milliseconds the breaker last opened (or reopened); set while open or half-open. */
  readonly openedAtMs?: number;
  /**
   * Epoch milliseconds a probe becomes available under the cooldown of the route that opened the breaker.
   * A route with another cooldown computes its own from `openedAtMs`.
   */
  readonly reopenAtMs?: number;
  /** Set while a probe is out (half-open only). */
  readonly probe?: BreakerProbe;
  /** The most recent transitions, oldest first, at most {@link MAX_BREAKER_TRANSITIONS}. */
  readonly transitions: readonly BreakerTransition[];
  readonly counts: BreakerCounts;
}

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
    status: BreakerStatus.closed,
    consecutiveFailures: 0,
    transitions: [],
    counts: { ...ZERO_BREAKER_COUNTS },
  };
}

/** What an attempt means to the breaker. */
export const BreakerOutcome = {
  /** The provider answered. */
  success: 'success',
  /** A failure class that counts (DESIGN §3): the provider or its account is in trouble. */
  countedFailure: 'counted_failure',
  /** A failure class that does not count but shows the provider answered (a 400, a refusal, an overflow). */
  neutral: 'neutral',
  /** The caller cancelled; says nothing about the provider. */
  cancelled: 'cancelled',
} as const;
export type BreakerOutcome = (typeof BreakerOutcome)[keyof typeof BreakerOutcome];

/** Maps an attempt's result to its breaker outcome by the DESIGN §3 table. */
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

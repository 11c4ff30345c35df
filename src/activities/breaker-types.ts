// Input and output of the breaker-access local activities. Types only; shared with workflow code.
import type { BreakerPolicy } from '../config/route';
import type { BreakerOutcome, BreakerStatus } from '../routing/breaker-state';
import type { AdmitDecision } from '../routing/breaker-admission';
import type { FailureClass } from '../config/failure-class';

export interface AdmitTargetInput {
  readonly provider: string;
  readonly model: string;
  /** The asking route's breaker policy. */
  readonly policy: BreakerPolicy;
  /** `<routed-call workflow id>#<attempt>`. */
  readonly caller: string;
  /** How long a granted probe is held before another caller may take it, in milliseconds. */
  readonly probeLeaseMs: number;
  /** Take the probe before the cooldown (every target of the route is open, `probe_first`). @default false */
  readonly force?: boolean;
}

export interface AdmitTargetResult {
  readonly decision: AdmitDecision;
  /** For `deny`: epoch milliseconds when this caller could next be admitted. */
  readonly retryAtMs?: number;
  /** Where the decision was made: the worker's hint (no breaker event) or the entity (an update). */
  readonly decidedBy: 'hint' | 'entity';
  /** The breaker's status as this decision saw it. */
  readonly status: BreakerStatus;
  /**
   * Set when the breaker was closed with no failures: until this epoch millisecond the worker's view stays
   * valid, so a success reported before then cannot change the breaker and need not be sent.
   */
  readonly healthyUntilMs?: number;
  /** The breaker could not be reached (lately): the target is treated as open until `retryAtMs`. */
  readonly unreachable?: true;
  /** For `deny`: a provider's `Retry-After` pauses the target for every route until `retryAtMs`. */
  readonly paused?: true;
}

export interface ReportBreakerOutcomeInput {
  readonly provider: string;
  readonly model: string;
  /** The reporting route's breaker policy. */
  readonly policy: BreakerPolicy;
  readonly caller: string;
  readonly outcome: BreakerOutcome;
  readonly failureClass?: FailureClass;
  /**
   * The provider's `Retry-After` with a rate-limited failure, in milliseconds: the target is paused for every
   * route (clamped to 1–60 s). @default none (no pause)
   */
  readonly retryAfterMs?: number;
  /** The caller held the half-open probe: its outcome always reaches the entity. */
  readonly wasProbe: boolean;
}

export interface ReportBreakerOutcomeResult {
  /** Whether a signal was sent; false when the outcome could not change the breaker. */
  readonly sent: boolean;
  /**
   * Set when, after this outcome, the breaker is open or paused for the reporting route (as this worker sees it):
   * the epoch millisecond from which the route may call (or probe) the target.
   */
  readonly probeAtMs?: number;
}

// What one round of a routed call's walk passed over, and what its failures told of the breakers. Workflow code.
import type { PlannedAttempt } from '../../routing/attempt-plan';
import { pausedSkipMessage } from '../../routing/breaker-pause';
import { AttemptOutcome, SkipReason } from '../../routing/routing-record';
import type { BudgetShortfall } from './attempt-gates';
import type { AttemptLog } from './attempt-log';

/** The message of a `circuit_open` skip whose breaker could not be reached (it was treated as open). */
const BREAKER_UNREACHABLE_MESSAGE = 'breaker unreachable: treated as open';

/** Why a target was passed over before its breaker was asked, as the record says it. */
export interface Screening {
  readonly skipReason: typeof SkipReason.unsupportedInput | typeof SkipReason.contextWindow;
  readonly message: string;
}

/**
 * A round's skips (to choose the call's failure when the plan runs out) and when each target may be called again
 * (to choose when a patient call walks again). Each skip is also written to the call's record.
 */
export class RoundSkips {
  readonly circuitOpenUntilMs: number[] = [];
  readonly shortfalls: BudgetShortfall[] = [];
  /** Probe times of breakers that a failure this round left open for the route. */
  readonly openedUntilMs: number[] = [];
  /** A target failed this round and its breaker stayed closed: it may be called again at once. */
  closedAfterFailure = false;
  /** Targets passed over because their context window cannot hold the request. */
  tooLong = 0;
  /** Targets passed over because they cannot take the conversation as it stands. */
  unsupported = 0;

  constructor(private readonly log: AttemptLog) {}

  /** A target passed over before its breaker was asked (it cannot take the conversation, or the request). */
  screened(planned: PlannedAttempt, screening: Screening): void {
    if (screening.skipReason === SkipReason.unsupportedInput) this.unsupported += 1;
    else this.tooLong += 1;
    this.log.add({
      planned,
      outcome: AttemptOutcome.skipped,
      skipReason: screening.skipReason,
      message: screening.message,
      latencyMs: 0,
      costNanoUsd: 0,
      costKnown: true,
    });
  }

  /**
   * A target its breaker passed over until `retryAtMs`: open, unreachable (treated as open), or `paused` by a
   * provider's Retry-After. All three count alike for the call's retry time and a patient call's next round.
   */
  circuitOpen(
    planned: PlannedAttempt,
    retryAtMs: number,
    unreachable: true | undefined,
    paused?: true,
  ): void {
    this.circuitOpenUntilMs.push(retryAtMs);
    this.log.add({
      planned,
      outcome: AttemptOutcome.skipped,
      skipReason: paused ? SkipReason.paused : SkipReason.circuitOpen,
      // Say so when the circuit was not known to be open: the record must not blame a healthy target.
      ...(unreachable ? { message: BREAKER_UNREACHABLE_MESSAGE } : {}),
      ...(paused ? { message: pausedSkipMessage(retryAtMs) } : {}),
      latencyMs: 0,
      costNanoUsd: 0,
      costKnown: true,
    });
  }

  overBudget(planned: PlannedAttempt, shortfall: BudgetShortfall, message?: string): void {
    this.shortfalls.push(shortfall);
    this.log.add({
      planned,
      outcome: AttemptOutcome.skipped,
      skipReason: SkipReason.overBudget,
      ...(message ? { message } : {}),
      latencyMs: 0,
      costNanoUsd: 0,
      costKnown: true,
    });
  }

  /** An attempt failed: its breaker opened for the route until `probeAtMs`, or (undefined) stayed closed. */
  failed(probeAtMs: number | undefined): void {
    if (probeAtMs !== undefined) this.openedUntilMs.push(probeAtMs);
    else this.closedAfterFailure = true;
  }
}

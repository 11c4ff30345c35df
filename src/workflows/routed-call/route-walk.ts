// One walk of a routed call over its route: admission, attempts, failover, patience. Workflow code.
import {
  ApplicationFailure,
  CancelledFailure,
  isCancellation,
  patched,
  sleep,
  upsertMemo,
} from '@temporalio/workflow';
import type { ResolvedRoute } from '../../config/resolved-route';
import type { RoutedCallInput } from '../../config/routed-call-input';
import { failsOver, planAttempts, type PlannedAttempt } from '../../routing/attempt-plan';
import { estimateInputTokens } from '../../routing/estimate-tokens';
import { FailureClass } from '../../routing/failure-class';
import { attemptBound, usdToNanoFloor, type NanoUsd } from '../../routing/money';
import { nextRoundAt } from '../../routing/patience';
import {
  AttemptOutcome,
  RoutedCallFailureType,
  SkipReason,
  type RoutedCallResult,
} from '../../routing/routing-record';
import { CANCELLED_RECORD_MEMO } from '../definitions';
import { admitAttempt, settleAttempt, type AttemptPass, type BudgetShortfall } from './attempt-gates';
import { AttemptLog } from './attempt-log';
import { CallClock } from './call-clock';
import { failedAttemptEntry, runProviderAttempt } from './provider-attempt';
import {
  budgetExceededFailure,
  circuitOpenFailure,
  failureTypeForStop,
  routingFailure,
} from './routing-failure';

/** Backoff before retrying the same target when it gave no Retry-After, doubled per retry. */
const RETRY_BACKOFF_MS = 200;
const MAX_RETRY_WAIT_MS = 10_000;
/**
 * Patch id of the deadline check between admission and attempt. Histories recorded before it never saw the
 * check, so they replay without it (the marker is written only when the check stops a call).
 */
const DEADLINE_AFTER_ADMISSION_PATCH = 'deadline-after-admission';
/** The message of a `circuit_open` skip whose breaker could not be reached (it was treated as open). */
const BREAKER_UNREACHABLE_MESSAGE = 'breaker unreachable: treated as open';

/** The skips of a walk that made no request, for choosing its failure. */
interface Skips {
  circuitOpenUntilMs: number[];
  shortfalls: BudgetShortfall[];
}

/** One walk over a resolved route. */
export class RouteWalk {
  private readonly log: AttemptLog;
  private readonly clock: CallClock;
  private readonly inputTokens: number;
  private readonly maxCostNanoUsd: NanoUsd | undefined;
  private skips: Skips = { circuitOpenUntilMs: [], shortfalls: [] };
  /** The last failure stopped the walk on a class that does not fail over: never worth waiting for. */
  private stoppedForGood = false;

  constructor(
    private readonly route: ResolvedRoute,
    private readonly input: RoutedCallInput,
  ) {
    this.clock = new CallClock(route, input);
    this.inputTokens = estimateInputTokens(input.request);
    this.maxCostNanoUsd = input.maxCostUsd === undefined ? undefined : usdToNanoFloor(input.maxCostUsd);
    this.log = new AttemptLog(route);
  }

  async run(): Promise<RoutedCallResult> {
    try {
      return await this.walkPatiently();
    } catch (error) {
      if (isCancellation(error)) {
        const record = this.log.record();
        this.log.finish(RoutedCallFailureType.cancelled, record);
        // A cancelled workflow's close event has no room for details, so the record goes to the memo.
        upsertMemo({ [CANCELLED_RECORD_MEMO]: record });
        throw new CancelledFailure('routed call cancelled by the caller', [record]);
      }
      if (error instanceof ApplicationFailure && error.type) this.log.finish(error.type);
      throw error;
    }
  }

  /** Walks the route; a patient call that failed over everywhere waits and walks it again, round by round. */
  private async walkPatiently(): Promise<RoutedCallResult> {
    for (;;) {
      try {
        return await this.walk();
      } catch (error) {
        const resumeAtMs = this.nextRoundAtMs(error);
        if (resumeAtMs === undefined) throw error;
        this.log.waitForRound(resumeAtMs);
        // A durable timer: the wait survives worker restarts and costs nothing while it lasts.
        await sleep(Math.max(0, resumeAtMs - Date.now()));
        this.log.startNextRound();
        this.skips = { circuitOpenUntilMs: [], shortfalls: [] };
      }
    }
  }

  /**
   * When the next round may start, or undefined when the call must end with `error`: only an outage (every
   * target failed over, or every breaker is open) is waited out, and only within patience and deadline.
   */
  private nextRoundAtMs(error: unknown): number | undefined {
    const { patienceEndsAtMs } = this.clock;
    if (patienceEndsAtMs === undefined || this.stoppedForGood) return undefined;
    if (!(error instanceof ApplicationFailure)) return undefined;
    const waitable: string[] = [RoutedCallFailureType.allTargetsFailed, RoutedCallFailureType.circuitOpen];
    if (!error.type || !waitable.includes(error.type)) return undefined;
    const probes = this.skips.circuitOpenUntilMs;
    const lastStartAtMs = this.clock.lastStartAtMs();
    return nextRoundAt({
      nowMs: Date.now(),
      round: this.log.currentRound,
      patienceEndsAtMs,
      ...(probes.length ? { earliestProbeAtMs: Math.min(...probes) } : {}),
      ...(lastStartAtMs !== undefined ? { lastStartAtMs } : {}),
    });
  }

  private async walk(): Promise<RoutedCallResult> {
    const plan = planAttempts(this.route);
    const skippedTargets = new Set<number>();
    for (const [position, planned] of plan.entries()) {
      // A target passed over by its breaker or the budget is not asked again for its retries.
      if (skippedTargets.has(planned.targetIndex)) continue;
      this.checkDeadline('the call deadline leaves no time for another attempt');
      const result = await this.tryTarget(planned);
      if (result === 'skipped') {
        skippedTargets.add(planned.targetIndex);
        continue;
      }
      if (result) return result;
      const next = plan[position + 1];
      if (next && next.targetIndex === planned.targetIndex) await this.backoff(next);
    }
    return this.afterPlan();
  }

  /** The plan ran out: probe an all-open route, or fail with the reason that fits the attempts made. */
  private async afterPlan(): Promise<RoutedCallResult> {
    this.checkDeadline('the call deadline passed before any target answered');
    if (this.log.requestsMadeThisRound === 0 && this.skips.shortfalls.length > 0) {
      throw budgetExceededFailure(this.skips.shortfalls, this.log.record());
    }
    if (this.log.requestsMadeThisRound === 0 && this.skips.circuitOpenUntilMs.length > 0) {
      // A patient call does not force a probe: it waits until a breaker offers one by itself.
      if (this.route.whenAllOpen === 'probe_first' && !this.clock.patient()) {
        const probed = await this.probeAllOpen();
        if (probed) return probed;
      }
      if (this.log.requestsMadeThisRound === 0) {
        throw circuitOpenFailure(Math.min(...this.skips.circuitOpenUntilMs), this.log.record());
      }
    }
    const count = this.log.all.length;
    const rounds = this.log.currentRound > 1 ? ` in ${this.log.currentRound} rounds` : '';
    throw routingFailure(
      RoutedCallFailureType.allTargetsFailed,
      `all ${count} attempts on route ${this.route.name} failed${rounds}`,
      this.log.record(),
    );
  }

  /**
   * Every breaker was open: take the probe of the first target whose probe is free, before its cooldown,
   * and walk on from there only if that attempt fails over.
   */
  private async probeAllOpen(): Promise<RoutedCallResult | undefined> {
    for (const [targetIndex] of this.route.targets.entries()) {
      if (this.log.attemptsThisRound >= this.route.maxAttempts) return undefined;
      this.checkDeadline('the call deadline leaves no time for a probe');
      const result = await this.tryTarget({ targetIndex, retry: 0 }, { forceProbe: true });
      if (result === 'skipped') continue;
      return result;
    }
    return undefined;
  }

  /**
   * One target: admission, then the attempt. Returns the result on success, `'skipped'` when the breaker
   * or the budget passed over it, undefined to go on after a failure; throws to stop the walk.
   */
  private async tryTarget(
    planned: PlannedAttempt,
    options: { forceProbe?: boolean } = {},
  ): Promise<RoutedCallResult | 'skipped' | undefined> {
    const target = this.route.targets[planned.targetIndex]!;
    const boundNanoUsd = this.boundNanoUsd(planned.targetIndex);
    const decision = await admitAttempt({
      route: this.route,
      target,
      attempt: this.log.nextAttemptNumber,
      boundNanoUsd,
      ...(this.input.budget !== undefined ? { scope: this.input.budget } : {}),
      ...(this.maxCostNanoUsd !== undefined
        ? { callAllowanceNanoUsd: this.maxCostNanoUsd - this.log.record().totalCostNanoUsd }
        : {}),
      ...(options.forceProbe ? { forceProbe: true } : {}),
    });
    if (!decision.admitted) {
      if (decision.reason === SkipReason.circuitOpen) this.skips.circuitOpenUntilMs.push(decision.retryAtMs);
      else this.skips.shortfalls.push(decision.shortfall);
      this.log.add({
        planned,
        outcome: AttemptOutcome.skipped,
        skipReason: decision.reason,
        // Say so when the circuit was not known to be open: the record must not blame a healthy target.
        ...(decision.reason === SkipReason.circuitOpen && decision.unreachable
          ? { message: BREAKER_UNREACHABLE_MESSAGE }
          : {}),
        latencyMs: 0,
        costNanoUsd: 0,
        costKnown: true,
      });
      return 'skipped';
    }
    if (this.clock.tooLateForAttempt() && patched(DEADLINE_AFTER_ADMISSION_PATCH)) {
      // The breaker and the ledger took the rest of the deadline (a busy ledger can hold a reservation for
      // seconds). The attempt's timeout would be tiny or negative: Temporal refuses a negative one and fails the
      // workflow task, whose retry abandons this reservation (charged in full when its lease ends) or restarts
      // the deadline's clock. Give back the reservation and any probe instead; nothing was sent.
      await settleAttempt(decision.pass, {
        succeeded: false,
        failureClass: FailureClass.cancelled,
        charge: { costNanoUsd: 0, costKnown: true },
      });
      throw routingFailure(
        RoutedCallFailureType.deadlineExceeded,
        'the call deadline passed while the attempt was being admitted',
        this.log.record(),
      );
    }
    return this.attempt(planned, decision.pass, boundNanoUsd);
  }

  /** Runs one admitted attempt; returns the result on success, undefined to go on, or throws to stop. */
  private async attempt(
    planned: PlannedAttempt,
    pass: AttemptPass,
    boundNanoUsd: NanoUsd,
  ): Promise<RoutedCallResult | undefined> {
    const target = this.route.targets[planned.targetIndex]!;
    const outcome = await runProviderAttempt({
      route: this.route,
      target,
      request: this.input.request,
      stream: this.input.stream,
      timeoutMs: Math.min(target.timeoutMs, this.clock.remainingMs() ?? Number.POSITIVE_INFINITY),
      attempt: this.log.nextAttemptNumber,
      boundNanoUsd,
      ...(this.input.relay ? { relay: this.input.relay } : {}), // [relay, issue 15]
    });
    const { charge, latencyMs } = outcome;
    if (outcome.succeeded) {
      await settleAttempt(pass, { succeeded: true, charge });
      const { provider: _provider, model: _model, ...answer } = outcome.result;
      this.log.add({
        planned,
        outcome: AttemptOutcome.succeeded,
        latencyMs,
        ...charge,
        ...(answer.requestId ? { requestId: answer.requestId } : {}),
      });
      const servedBy = { targetIndex: planned.targetIndex, provider: target.provider, model: target.model };
      const record = this.log.record(servedBy);
      this.log.finish('succeeded', record);
      return { answer, record };
    }

    const { failure } = outcome;
    this.log.add(failedAttemptEntry(planned, outcome));
    // Even a cancelled attempt pays for what it may have sent; the breaker is told it does not count.
    await settleAttempt(pass, { succeeded: false, failureClass: failure.failureClass, charge });
    // [relay, issue 15] Output already reached the gateway's caller: failing over would splice a second model's
    // text onto the first, so the call ends here. A class that never fails over still ends the usual way.
    if (
      outcome.outputDelivered &&
      (failure.failureClass === FailureClass.cancelled || failsOver(this.route, failure.failureClass))
    ) {
      this.stoppedForGood = true;
      throw routingFailure(
        RoutedCallFailureType.streamInterrupted,
        `${failure.failureClass} after output reached the caller`,
        this.log.record(),
      );
    }
    if (failure.failureClass === FailureClass.cancelled) throw outcome.error;
    if (!failsOver(this.route, failure.failureClass)) {
      this.stoppedForGood = true;
      throw routingFailure(
        failureTypeForStop(failure.failureClass),
        `${failure.failureClass} does not fail over`,
        this.log.record(),
      );
    }
    return undefined;
  }

  private boundNanoUsd(targetIndex: number): NanoUsd {
    const target = this.route.targets[targetIndex]!;
    return attemptBound(target.prices, this.inputTokens, this.input.request.maxOutputTokens);
  }

  /** Waits before retrying the same target: its Retry-After when given, else a doubling backoff. */
  private async backoff(next: PlannedAttempt): Promise<void> {
    const wanted = this.log.last?.retryAfterMs ?? RETRY_BACKOFF_MS * 2 ** (next.retry - 1);
    const waitMs = this.clock.waitBeforeAttemptMs(Math.min(wanted, MAX_RETRY_WAIT_MS));
    if (waitMs > 0) await sleep(waitMs);
  }

  private checkDeadline(headline: string): void {
    if (this.clock.tooLateForAttempt()) {
      throw routingFailure(RoutedCallFailureType.deadlineExceeded, headline, this.log.record());
    }
  }
}

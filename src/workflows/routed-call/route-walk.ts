// One walk of a routed call over its route: the order of attempts, skips, deadline, failover, patience and the
// record. What each attempt does (admission, reservation, the call, the settle) is its step's. Workflow code.
import {
  ApplicationFailure,
  CancelledFailure,
  isCancellation,
  sleep,
  upsertMemo,
} from '@temporalio/workflow';
import { routeCandidates, type ResolvedRoute } from '../../config/resolved-route';
import type { RoutedCallInput } from '../../config/routed-call-input';
import type { PlannedAttempt } from '../../routing/attempt-plan';
import {
  effectiveStrategy,
  orderCandidates,
  type CandidateOrder,
  type OrderedCandidate,
} from '../../routing/candidate-order';
import { usdToNanoFloor, type NanoUsd } from '../../routing/money';
import { nextRoundAt } from '../../routing/patience';
import {
  AttemptOutcome,
  RoutedCallFailureType,
  SkipReason,
  type RoutedCallResult,
} from '../../routing/routing-record';
import { orderExplanation } from '../../routing/routing-explanation';
import type { TargetObservation } from '../../routing/target-observation';
import { CANCELLED_RECORD_MEMO } from '../definitions';
import type { AttemptLog } from './attempt-log';
import type { AttemptStep } from './attempt-step';
import { judgeAttempt } from './attempt-verdict';
import { FailureClass } from '../../config/failure-class';
import { CallBounds } from './call-bounds';
import type { CallClock } from './call-clock';
import { RoundSkips } from './round-skips';
import { budgetExceededFailure, circuitOpenFailure, routingFailure } from './routing-failure';

/** Backoff before retrying the same target when it gave no Retry-After, doubled per retry. */
const RETRY_BACKOFF_MS = 200;
const MAX_RETRY_WAIT_MS = 10_000;
/**
 * How many attempts of one call may be lost before they sent (a stalled or dead worker) and asked again of the
 * same target without spending its retries or a slot of `maxAttempts`. Beyond it the walk moves on as after a
 * failover: workers that keep losing attempts must not hold a call forever.
 */
const MAX_LOST_BEFORE_SENDING = 3;

/** One walk over a resolved route, taking each attempt with `step` (the workflow generation's own). */
export class RouteWalk {
  private readonly log: AttemptLog;
  private readonly clock: CallClock;
  private readonly bounds: CallBounds;
  private readonly maxCostNanoUsd: NanoUsd | undefined;
  private skips: RoundSkips;
  /** The last failure stopped the walk on a class that does not fail over: never worth waiting for. */
  private stoppedForGood = false;
  /** This round's candidate order. */
  private order: CandidateOrder | undefined;
  /** Attempts of this call lost before they sent, asked again of their target. */
  private lostBeforeSending = 0;

  /**
   * @param observed the worker's measurements of each target and a uniform draw, as `beginCall` recorded them
   *   (for strategies that read them); absent: nothing measured, draw 0
   */
  constructor(
    private readonly route: ResolvedRoute,
    private readonly input: RoutedCallInput,
    private readonly step: AttemptStep,
    private readonly observed: {
      readonly observations?: readonly TargetObservation[];
      readonly draw?: number;
    } = {},
  ) {
    // The clock before the log: their commands (a patch marker, then search attributes) are in this order in history.
    this.clock = step.startClock(route, input);
    this.bounds = new CallBounds(route, input.request);
    this.maxCostNanoUsd = input.maxCostUsd === undefined ? undefined : usdToNanoFloor(input.maxCostUsd);
    this.log = step.openLog(route);
    this.skips = new RoundSkips(this.log);
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
        this.skips = new RoundSkips(this.log);
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
    const { probeAtMs, someTargetClosed } = this.step.roundView(this.skips);
    const lastStartAtMs = this.clock.lastStartAtMs();
    return nextRoundAt({
      nowMs: Date.now(),
      round: this.log.currentRound,
      patienceEndsAtMs,
      ...(probeAtMs.length ? { earliestProbeAtMs: Math.min(...probeAtMs) } : {}),
      ...(someTargetClosed !== undefined ? { someTargetClosed } : {}),
      ...(lastStartAtMs !== undefined ? { lastStartAtMs } : {}),
    });
  }

  /**
   * One round: the candidates in the strategy's order (asked again after each failed candidate under
   * `fewest_failures`), each target followed by its retries, at most `maxAttempts` attempts in all. A plain
   * ordered route walks its targets in declared order, as routes did before strategies existed.
   */
  private async walk(): Promise<RoutedCallResult> {
    const order = this.orderCandidates();
    if (this.log.currentRound === 1) this.log.explain(orderExplanation(order));
    if (!order.candidates.length) {
      // Nothing the call asks for is on offer: no later round would change that.
      this.stoppedForGood = true;
      throw routingFailure(
        RoutedCallFailureType.invalidRequest,
        `no candidate of route ${this.route.name} meets the call's ${order.rejectedBy.join(', ')}: ` +
          order.rejected.map((verdict) => `${verdict.candidate} ${verdict.reason}`).join('; '),
        this.log.record(),
      );
    }
    this.order = order;
    const slots = { used: 0 };
    const walked = new Set<number>();
    let queue = order.candidates;
    while (queue.length > 0 && slots.used < this.route.maxAttempts) {
      const candidate = queue[0]!;
      walked.add(candidate.index);
      const result = await this.walkCandidate(candidate, slots);
      if (result) return result;
      queue =
        order.strategy === 'fewest_failures'
          ? this.orderCandidates().candidates.filter((next) => !walked.has(next.index))
          : queue.slice(1);
    }
    return this.afterPlan();
  }

  /**
   * One candidate: a target and its retries, or a nested route's targets in its order until one is admitted,
   * which then runs with its retries. Returns the result, or undefined to move to the next candidate.
   */
  private async walkCandidate(
    candidate: OrderedCandidate,
    slots: { used: number },
  ): Promise<RoutedCallResult | undefined> {
    // Inside a nested route a target passed over takes one slot, so the route's next target still gets its turn.
    const skipTakesRetries = candidate.route === undefined;
    for (const targetIndex of candidate.targetIndexes) {
      const ran = await this.walkTarget(targetIndex, slots, skipTakesRetries);
      // A nested route passes over a target it cannot use now and asks its next; one that ran is its turn.
      if (ran === 'skippedFirst') continue;
      return ran === 'failed' ? undefined : ran;
    }
    return undefined;
  }

  /**
   * A target and its retries. `skippedFirst`: passed over before any request; `failed`: failed over (or passed
   * over on a retry) or out of attempts. Each planned attempt takes a slot of `maxAttempts`; with
   * `skipTakesRetries`, a target passed over gives up the slots of its retries too, as the fixed plan of ordered
   * routes always did (their recorded histories depend on it).
   */
  private async walkTarget(
    targetIndex: number,
    slots: { used: number },
    skipTakesRetries: boolean,
  ): Promise<RoutedCallResult | 'skippedFirst' | 'failed'> {
    const { retries } = this.route.targets[targetIndex]!;
    for (let retry = 0; retry <= retries; retry += 1) {
      if (slots.used >= this.route.maxAttempts) return 'failed';
      slots.used += 1;
      this.checkDeadline('the call deadline leaves no time for another attempt');
      const result = await this.tryTarget({ targetIndex, retry });
      if (result === 'lost' && this.lostBeforeSending < MAX_LOST_BEFORE_SENDING) {
        // Not the target's failure: the same attempt again, on whichever worker takes it, at no retry's cost.
        this.lostBeforeSending += 1;
        slots.used -= 1;
        retry -= 1;
        continue;
      }
      if (result === 'skipped') {
        // A target passed over by its breaker or the budget is not asked again for its retries.
        if (skipTakesRetries) slots.used = Math.min(this.route.maxAttempts, slots.used + retries - retry);
        return retry === 0 ? 'skippedFirst' : 'failed';
      }
      if (result && result !== 'lost') return result;
      if (retry < retries && slots.used < this.route.maxAttempts) {
        await this.backoff({ targetIndex, retry: retry + 1 });
      }
    }
    return 'failed';
  }

  /** The candidates in the strategy's order for the call's state now: failures so far count for some. */
  private orderCandidates(): CandidateOrder {
    const strategy = effectiveStrategy(this.route, this.input.prefer);
    const failuresThisCall = this.route.targets.map(
      (_target, index) =>
        this.log.all.filter(
          (attempt) =>
            attempt.targetIndex === index &&
            attempt.outcome === AttemptOutcome.failed &&
            // A worker's loss is not the target's failure.
            attempt.failureClass !== FailureClass.workerLost,
        ).length,
    );
    // Bounds only when something compares them: an ordered route computes each when it reaches the target.
    const needsBounds =
      strategy === 'cheapest' ||
      this.input.require?.maxCostUsd !== undefined ||
      routeCandidates(this.route).some((candidate) => candidate.strategy === 'cheapest');
    return orderCandidates({
      route: this.route,
      ...(this.input.prefer ? { prefer: this.input.prefer } : {}),
      ...(this.input.require ? { require: this.input.require } : {}),
      boundsNanoUsd: needsBounds
        ? this.route.targets.map((_target, index) => this.bounds.attemptNanoUsd(index))
        : [],
      ...(this.observed.observations ? { observations: this.observed.observations } : {}),
      ...(this.observed.draw !== undefined ? { draw: this.observed.draw } : {}),
      failuresThisCall,
    });
  }

  /** The plan ran out: probe an all-open route, or fail with the reason that fits the attempts made. */
  private async afterPlan(): Promise<RoutedCallResult> {
    this.checkDeadline('the call deadline passed before any target answered');
    const { shortfalls, circuitOpenUntilMs, tooLong, unsupported } = this.skips;
    if (
      this.log.requestsMadeThisRound === 0 &&
      unsupported > 0 &&
      tooLong === 0 &&
      !shortfalls.length &&
      !circuitOpenUntilMs.length
    ) {
      // No target can take the conversation as it stands: waiting would not change that.
      this.stoppedForGood = true;
      throw routingFailure(
        RoutedCallFailureType.invalidRequest,
        'no target of the route can take this conversation (see the skipped attempts)',
        this.log.record(),
      );
    }
    if (
      this.log.requestsMadeThisRound === 0 &&
      tooLong > 0 &&
      !shortfalls.length &&
      !circuitOpenUntilMs.length
    ) {
      // No target's window holds the request: no round would change that, so the call ends here.
      this.stoppedForGood = true;
      throw routingFailure(
        RoutedCallFailureType.contextOverflow,
        `no target's context window holds the request (prompt bound ${this.bounds.inputTokens} tokens + maxOutputTokens ${this.input.request.maxOutputTokens})`,
        this.log.record(),
      );
    }
    if (this.log.requestsMadeThisRound === 0 && this.skips.shortfalls.length > 0) {
      throw budgetExceededFailure(this.skips.shortfalls, this.log.record());
    }
    if (this.log.requestsMadeThisRound === 0 && this.skips.circuitOpenUntilMs.length > 0) {
      // A patient call does not force a probe: it waits until a breaker offers one by itself.
      if (this.route.whenAllOpen === 'probe_first' && !this.clock.patient()) {
        const probed = await this.probeAllOpen();
        if (probed) return probed;
      }
      // A probe the budget refused: the budget stopped the call, and waiting for a breaker would not help.
      if (this.log.requestsMadeThisRound === 0 && this.skips.shortfalls.length > 0) {
        throw budgetExceededFailure(this.skips.shortfalls, this.log.record());
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
    // In the candidates' order; a plain ordered route's is its declared one.
    const targets = this.order?.candidates.flatMap((candidate) => candidate.targetIndexes) ?? [];
    for (const targetIndex of targets) {
      if (this.log.attemptsThisRound >= this.route.maxAttempts) return undefined;
      this.checkDeadline('the call deadline leaves no time for a probe');
      const result = await this.tryTarget({ targetIndex, retry: 0 }, { forceProbe: true });
      if (result === 'skipped') continue;
      return result === 'lost' ? undefined : result;
    }
    return undefined;
  }

  /**
   * One target: screening and admission, then the attempt. Returns the result on success, `'skipped'` when it
   * was passed over (it cannot take the call, its breaker is open, the budget refused), `'lost'` when its worker
   * lost the attempt before sending, undefined to go on after a failure; throws to stop the walk.
   */
  private async tryTarget(
    planned: PlannedAttempt,
    options: { forceProbe?: boolean } = {},
  ): Promise<RoutedCallResult | 'skipped' | 'lost' | undefined> {
    const target = this.route.targets[planned.targetIndex]!;
    const boundNanoUsd = this.bounds.attemptNanoUsd(planned.targetIndex);
    const attempt = this.log.nextAttemptNumber;
    const screening = this.step.screen({
      target,
      request: this.input.request,
      traits: this.bounds.traits,
      fitTokens: this.bounds.targetInput(planned.targetIndex).fitTokens,
    });
    if (screening) {
      this.skips.screened(planned, screening);
      return 'skipped';
    }
    const decision = await this.step.admit(planned, {
      route: this.route,
      target,
      attempt,
      boundNanoUsd,
      ...(this.input.budget !== undefined ? { scope: this.input.budget } : {}),
      ...(this.maxCostNanoUsd !== undefined
        ? {
            callAllowanceNanoUsd: this.maxCostNanoUsd - this.log.record().totalCostNanoUsd,
            callLimitNanoUsd: this.maxCostNanoUsd,
          }
        : {}),
      ...(options.forceProbe ? { forceProbe: true } : {}),
    });
    if (!decision.admitted) {
      if (decision.reason === SkipReason.circuitOpen) {
        this.skips.circuitOpen(planned, decision.retryAtMs, decision.unreachable, decision.paused);
      } else {
        this.skips.overBudget(planned, decision.shortfall);
      }
      return 'skipped';
    }
    if (this.clock.tooLateForAttempt() && this.step.stopsWhenAdmissionOutlivesDeadline()) {
      // The breaker and the ledger took the rest of the deadline (a busy ledger can hold a reservation for
      // seconds). The attempt's timeout would be tiny or negative: Temporal refuses a negative one and fails the
      // workflow task, whose retry abandons this reservation (charged in full when its lease ends) or restarts
      // the deadline's clock. Give back what admission took instead; nothing was sent.
      await this.step.withdraw(decision.pass);
      throw routingFailure(
        RoutedCallFailureType.deadlineExceeded,
        'the call deadline passed while the attempt was being admitted',
        this.log.record(),
      );
    }
    const outcome = await this.step.run(
      {
        route: this.route,
        target,
        request: this.input.request,
        stream: this.input.stream,
        timeoutMs: Math.min(target.timeoutMs, this.clock.remainingMs() ?? Number.POSITIVE_INFINITY),
        attempt: this.log.nextAttemptNumber,
        boundNanoUsd,
        ...(this.input.relay ? { relay: this.input.relay } : {}),
        ...(this.input.relay?.answer
          ? {
              handoff: {
                route: this.route.name,
                requestsBefore: this.log.requestsMade,
                costBeforeNanoUsd: this.log.costNanoUsd,
                ...(this.log.firstStartedAtMs !== undefined
                  ? { firstStartedAtMs: this.log.firstStartedAtMs }
                  : {}),
              },
            }
          : {}),
      },
      decision.pass,
    );
    const verdict = await judgeAttempt(
      {
        route: this.route,
        budget: this.input.budget,
        step: this.step,
        log: this.log,
        clock: this.clock,
        skips: this.skips,
      },
      { planned, target, pass: decision.pass, boundNanoUsd, outcome },
    );
    switch (verdict.kind) {
      case 'answered':
        return verdict.result;
      case 'skipped':
        return 'skipped';
      case 'failedOver':
        return undefined;
      case 'lostBeforeSending':
        return 'lost';
      case 'stopped':
        if (verdict.forGood) this.stoppedForGood = true;
        throw verdict.error;
      default:
        return verdict satisfies never;
    }
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

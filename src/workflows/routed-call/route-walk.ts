// One walk of a routed call over its route: admission, attempts, failover, patience. Workflow code.
import {
  ApplicationFailure,
  CancelledFailure,
  isCancellation,
  patched,
  sleep,
  upsertMemo,
  workflowInfo,
} from '@temporalio/workflow';
import type { ResolvedRoute } from '../../config/resolved-route';
import type { RoutedCallInput } from '../../config/routed-call-input';
import { failsOver, planAttempts, type PlannedAttempt } from '../../routing/attempt-plan';
import { conversationTraits, type ConversationTraits } from '../../config/conversation';
import { checkContextWindow, contextWindowMessage } from '../../routing/context-window';
import { checkConversationFit } from '../../routing/conversation-fit';
import { estimateInputTokens } from '../../routing/estimate-tokens';
import { targetInputBound, type TargetInputBound } from '../../routing/media-bounds';
import { FailureClass } from '../../config/failure-class';
import { attemptBound, usdToNanoFloor, type NanoUsd } from '../../routing/money';
import { nextRoundAt } from '../../routing/patience';
import {
  AttemptOutcome,
  RoutedCallFailureType,
  SkipReason,
  type RoutedCallResult,
} from '../../routing/routing-record';
import { CANCELLED_RECORD_MEMO } from '../definitions';
import type { BreakerAdmission, BreakerTicket } from '../breaker/breaker-gate';
import {
  admitAttempt,
  ledgerShortfall,
  settleAttempt,
  type AttemptPass,
  type BudgetShortfall,
} from './attempt-gates';
import { AttemptLog } from './attempt-log';
import { CallClock } from './call-clock';
import { failedAttemptEntry, runProviderAttempt, runTargetAttempt } from './provider-attempt';
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
/** Patch id of passing over a target that cannot take the conversation; written only when it skips one. */
const CONVERSATION_FIT_PATCH = 'conversation-fit';
/** The message of a `circuit_open` skip whose breaker could not be reached (it was treated as open). */
const BREAKER_UNREACHABLE_MESSAGE = 'breaker unreachable: treated as open';
/** The message of an `over_budget` skip whose ledger did not answer the reservation (nothing was sent). */
const LEDGER_UNREACHABLE_MESSAGE = 'budget ledger did not answer in time: nothing sent';

/** A ticket whose outcome is always handed to the breaker access, which decides with its current view. */
function withoutHealthyView(ticket: BreakerTicket): BreakerTicket {
  const { healthyUntilMs: _healthyUntilMs, ...rest } = ticket;
  return rest;
}

/** What a round learned of its targets: its skips (to choose its failure) and when each may be called again. */
interface Skips {
  circuitOpenUntilMs: number[];
  shortfalls: BudgetShortfall[];
  /** Probe times of breakers that a failure this round left open for the route. */
  openedUntilMs: number[];
  /** A target failed this round and its breaker stayed closed: it may be called again at once. */
  closedAfterFailure: boolean;
  /** Targets passed over because their context window cannot hold the request. */
  tooLong: number;
  /** Targets passed over because they cannot take the conversation as it stands. */
  unsupported: number;
}

const noSkips = (): Skips => ({
  circuitOpenUntilMs: [],
  shortfalls: [],
  openedUntilMs: [],
  closedAfterFailure: false,
  tooLong: 0,
  unsupported: 0,
});

export interface WalkOptions {
  /**
   * Walk the lean hot path: one activity per attempt that reserves, calls, settles and reports by itself.
   * Off for calls recorded before it (they replay the steps they took). @default false
   */
  readonly lean?: boolean;
  /** The first attempt's breaker admission, when the route's resolution could make it. */
  readonly firstAdmission?: BreakerAdmission;
}

/** One walk over a resolved route. */
export class RouteWalk {
  private readonly log: AttemptLog;
  private readonly clock: CallClock;
  /** The prompt's text bound (`estimateInputTokens`); images and documents are added per target. */
  private readonly inputTokens: number;
  private readonly traits: ConversationTraits;
  private readonly maxCostNanoUsd: NanoUsd | undefined;
  private skips: Skips = noSkips();
  /** The last failure stopped the walk on a class that does not fail over: never worth waiting for. */
  private stoppedForGood = false;

  /** The lean hot path: reservation, settle and report happen in the attempt's own activity. */
  private readonly lean: boolean;
  /** The first attempt's admission, made with the route's resolution; used once, by attempt 1 only. */
  private firstAdmission: BreakerAdmission | undefined;

  constructor(
    private readonly route: ResolvedRoute,
    private readonly input: RoutedCallInput,
    options: WalkOptions = {},
  ) {
    this.lean = options.lean ?? false;
    this.firstAdmission = options.firstAdmission;
    this.clock = new CallClock(route, input, { alwaysFromCallStart: this.lean });
    this.inputTokens = estimateInputTokens(input.request);
    this.traits = conversationTraits(input.request);
    this.maxCostNanoUsd = input.maxCostUsd === undefined ? undefined : usdToNanoFloor(input.maxCostUsd);
    this.log = new AttemptLog(route, { upsertOnlyMissing: this.lean });
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
        this.skips = noSkips();
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
    // The lean path also knows which breakers this round's failures opened; the first walk knew only its skips.
    const probes = this.lean
      ? [...this.skips.circuitOpenUntilMs, ...this.skips.openedUntilMs]
      : this.skips.circuitOpenUntilMs;
    const lastStartAtMs = this.clock.lastStartAtMs();
    return nextRoundAt({
      nowMs: Date.now(),
      round: this.log.currentRound,
      patienceEndsAtMs,
      ...(probes.length ? { earliestProbeAtMs: Math.min(...probes) } : {}),
      ...(this.lean ? { someTargetClosed: this.skips.closedAfterFailure } : {}),
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
        `no target's context window holds the request (prompt bound ${this.inputTokens} tokens + maxOutputTokens ${this.input.request.maxOutputTokens})`,
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
    const attempt = this.log.nextAttemptNumber;
    if (this.lean) {
      // Checked before the breaker is asked: a conversation the target cannot take is never sent to it. Only a
      // conversation with parts or options that did not exist before can fail this, so a skip is new behaviour
      // and its marker keeps older histories replaying as they ran.
      const fit = checkConversationFit(target, this.input.request, this.traits);
      if (!fit.fits && patched(CONVERSATION_FIT_PATCH)) {
        this.skips.unsupported += 1;
        this.log.add({
          planned,
          outcome: AttemptOutcome.skipped,
          skipReason: SkipReason.unsupportedInput,
          message: fit.message,
          latencyMs: 0,
          costNanoUsd: 0,
          costKnown: true,
        });
        return 'skipped';
      }
      // Likewise, a request that might not fit is never sent to this target.
      const window = checkContextWindow(
        target,
        this.targetInput(planned.targetIndex).fitTokens,
        this.input.request.maxOutputTokens,
      );
      if (!window.fits) {
        this.skips.tooLong += 1;
        this.log.add({
          planned,
          outcome: AttemptOutcome.skipped,
          skipReason: SkipReason.contextWindow,
          message: contextWindowMessage(window),
          latencyMs: 0,
          costNanoUsd: 0,
          costKnown: true,
        });
        return 'skipped';
      }
    }
    const admission = this.takeFirstAdmission(planned, attempt, options);
    const decision = await admitAttempt({
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
      ...(this.lean ? { reserveInAttempt: true } : {}),
      ...(admission ? { admission } : {}),
    });
    if (!decision.admitted) {
      if (decision.reason === SkipReason.circuitOpen) {
        this.skipCircuitOpen(planned, decision.retryAtMs, decision.unreachable);
      } else {
        this.skipOverBudget(planned, decision.shortfall);
      }
      return 'skipped';
    }
    if (this.clock.tooLateForAttempt() && (this.lean || patched(DEADLINE_AFTER_ADMISSION_PATCH))) {
      // The breaker and the ledger took the rest of the deadline (a busy ledger can hold a reservation for
      // seconds). The attempt's timeout would be tiny or negative: Temporal refuses a negative one and fails the
      // workflow task, whose retry abandons this reservation (charged in full when its lease ends) or restarts
      // the deadline's clock. Give back the reservation and any probe instead; nothing was sent. (On the lean
      // path nothing was reserved yet.)
      await settleAttempt(
        decision.pass,
        {
          succeeded: false,
          failureClass: FailureClass.cancelled,
          charge: { costNanoUsd: 0, costKnown: true },
        },
        { settled: this.lean },
      );
      throw routingFailure(
        RoutedCallFailureType.deadlineExceeded,
        'the call deadline passed while the attempt was being admitted',
        this.log.record(),
      );
    }
    return this.attempt(planned, decision.pass, boundNanoUsd);
  }

  /** The admission made with the route's resolution, for the call's first attempt on its first target. */
  private takeFirstAdmission(
    planned: PlannedAttempt,
    attempt: number,
    options: { forceProbe?: boolean },
  ): BreakerAdmission | undefined {
    const admission = this.firstAdmission;
    this.firstAdmission = undefined;
    if (options.forceProbe || attempt !== 1 || planned.targetIndex !== 0) return undefined;
    return admission;
  }

  private skipCircuitOpen(planned: PlannedAttempt, retryAtMs: number, unreachable: true | undefined): void {
    this.skips.circuitOpenUntilMs.push(retryAtMs);
    this.log.add({
      planned,
      outcome: AttemptOutcome.skipped,
      skipReason: SkipReason.circuitOpen,
      // Say so when the circuit was not known to be open: the record must not blame a healthy target.
      ...(unreachable ? { message: BREAKER_UNREACHABLE_MESSAGE } : {}),
      latencyMs: 0,
      costNanoUsd: 0,
      costKnown: true,
    });
  }

  private skipOverBudget(planned: PlannedAttempt, shortfall: BudgetShortfall, message?: string): void {
    this.skips.shortfalls.push(shortfall);
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

  /**
   * Runs one admitted attempt; returns the result on success, `'skipped'` when its reservation was refused,
   * undefined to go on, or throws to stop.
   */
  private async attempt(
    planned: PlannedAttempt,
    pass: AttemptPass,
    boundNanoUsd: NanoUsd,
  ): Promise<RoutedCallResult | 'skipped' | undefined> {
    const target = this.route.targets[planned.targetIndex]!;
    const attemptInput = {
      route: this.route,
      target,
      request: this.input.request,
      stream: this.input.stream,
      timeoutMs: Math.min(target.timeoutMs, this.clock.remainingMs() ?? Number.POSITIVE_INFINITY),
      attempt: this.log.nextAttemptNumber,
      boundNanoUsd,
      ...(this.input.relay ? { relay: this.input.relay } : {}),
    };
    const outcome = this.lean
      ? await runTargetAttempt({
          ...attemptInput,
          ...(pass.reservation
            ? { reservation: { ...pass.reservation, holder: workflowInfo().workflowId } }
            : {}),
          ticket: pass.ticket,
        })
      : await runProviderAttempt(attemptInput);
    // What the attempt's worker could not do, the call does; on the lean path it asks the breaker access
    // again rather than trusting the admission's view, which may have gone stale since.
    const fallback = this.lean ? { ...pass, ticket: withoutHealthyView(pass.ticket) } : pass;

    if ('refused' in outcome) {
      await settleAttempt(
        fallback,
        {
          succeeded: false,
          failureClass: FailureClass.cancelled,
          charge: { costNanoUsd: 0, costKnown: true },
        },
        outcome,
      );
      if (outcome.tooLate && this.clock.tooLateForAttempt()) {
        // As when admission outlives the deadline: a busy ledger took the time, and nothing was sent.
        throw routingFailure(
          RoutedCallFailureType.deadlineExceeded,
          'the call deadline passed while the attempt was being admitted',
          this.log.record(),
        );
      }
      this.skipOverBudget(
        planned,
        ledgerShortfall(this.input.budget!, outcome.decision, boundNanoUsd),
        outcome.decision ? undefined : LEDGER_UNREACHABLE_MESSAGE,
      );
      return 'skipped';
    }
    const { charge, latencyMs } = outcome;
    if (outcome.succeeded) {
      await settleAttempt(fallback, { succeeded: true, charge }, outcome);
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
    const probeAtMs = failure.details?.breakerProbeAtMs;
    if (probeAtMs !== undefined) this.skips.openedUntilMs.push(probeAtMs);
    else this.skips.closedAfterFailure = true;
    // Even a cancelled attempt pays for what it may have sent; the breaker is told it does not count.
    await settleAttempt(fallback, { succeeded: false, failureClass: failure.failureClass, charge }, outcome);
    // Output already reached the gateway's caller: failing over would splice a second model's text onto the
    // first, so the call ends here. A class that never fails over still ends the usual way.
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

  /** The prompt bound on one target: the text bound plus its images and documents at their worst there. */
  private targetInput(targetIndex: number): TargetInputBound {
    return targetInputBound(this.route.targets[targetIndex]!, this.inputTokens, this.traits);
  }

  private boundNanoUsd(targetIndex: number): NanoUsd {
    const target = this.route.targets[targetIndex]!;
    return attemptBound(
      target.prices,
      this.targetInput(targetIndex).tokens,
      this.input.request.maxOutputTokens,
      this.traits.cacheTtl,
    );
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

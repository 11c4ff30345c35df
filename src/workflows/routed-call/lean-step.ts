// The lean routed-call workflow's step (routedCallV2Workflow): one activity per attempt reserves, calls, settles
// and reports by itself; the workflow settles only what that activity could not. Workflow code.
import { patched, workflowInfo } from '@temporalio/workflow';
import type { ResolvedRoute } from '../../config/resolved-route';
import type { RoutedCallInput } from '../../config/routed-call-input';
import { FailureClass } from '../../config/failure-class';
import type { PlannedAttempt } from '../../routing/attempt-plan';
import { checkContextWindow, contextWindowMessage } from '../../routing/context-window';
import { checkConversationFit } from '../../routing/conversation-fit';
import { SkipReason } from '../../routing/routing-record';
import type { BreakerAdmission, BreakerTicket } from '../breaker/breaker-gate';
import {
  admitAttempt,
  settleAttempt,
  type AttemptPass,
  type GateDecision,
  type GateRequest,
} from './attempt-gates';
import { AttemptLog } from './attempt-log';
import type {
  AttemptStep,
  RoundView,
  SettledByAttempt,
  SettleOutcome,
  StepOutcome,
  TargetToScreen,
} from './attempt-step';
import { CallClock } from './call-clock';
import type { AttemptWatch } from './attempt-watch';
import { runTargetAttempt, type ProviderAttemptInput } from './provider-attempt';
import type { RoundSkips, Screening } from './round-skips';

/** Patch id of passing over a target that cannot take the conversation; written only when it skips one. */
const CONVERSATION_FIT_PATCH = 'conversation-fit';

/** A ticket whose outcome is always handed to the breaker access, which decides with its current view. */
function withoutHealthyView(ticket: BreakerTicket): BreakerTicket {
  const { healthyUntilMs: _healthyUntilMs, ...rest } = ticket;
  return rest;
}

export class LeanStep implements AttemptStep {
  /** The first attempt's admission, made with the route's resolution; used once, by attempt 1 only. */
  private firstAdmission: BreakerAdmission | undefined;

  /**
   * @param firstAdmission the first target's breaker admission, when the route's resolution could make it
   * @param watch tells an attempt in flight of the call's cancellation as soon as the call hears of it
   */
  constructor(
    firstAdmission: BreakerAdmission | undefined,
    private readonly watch: AttemptWatch,
  ) {
    this.firstAdmission = firstAdmission;
  }

  /** Newer than the `clock-from-call-start` patch, so it never started the clock late and writes no marker. */
  startClock(route: ResolvedRoute, input: RoutedCallInput): CallClock {
    return new CallClock(route, input, { alwaysFromCallStart: true });
  }

  /** Its starters usually set the route and `running` at start; the log upserts them only when they did not. */
  openLog(route: ResolvedRoute): AttemptLog {
    return new AttemptLog(route, { upsertOnlyMissing: true });
  }

  screen({ target, request, traits, fitTokens }: TargetToScreen): Screening | undefined {
    // Checked before the breaker is asked: a conversation the target cannot take is never sent to it. Only a
    // conversation with parts or options that did not exist before can fail this, so a skip is new behaviour
    // and its marker keeps older histories replaying as they ran.
    const fit = checkConversationFit(target, request, traits);
    if (!fit.fits && patched(CONVERSATION_FIT_PATCH)) {
      return { skipReason: SkipReason.unsupportedInput, message: fit.message };
    }
    // Likewise, a request that might not fit is never sent to this target.
    const window = checkContextWindow(target, fitTokens, request.maxOutputTokens);
    if (!window.fits) return { skipReason: SkipReason.contextWindow, message: contextWindowMessage(window) };
    return undefined;
  }

  /** The breaker (or the admission the call began with) and the call's own allowance; the attempt reserves. */
  admit(planned: PlannedAttempt, request: GateRequest): Promise<GateDecision> {
    const admission = this.takeFirstAdmission(planned, request);
    return admitAttempt({
      ...request,
      reserveInAttempt: true,
      ...(admission ? { admission } : {}),
    });
  }

  /** Newer than the `deadline-after-admission` patch: it always stops. */
  stopsWhenAdmissionOutlivesDeadline(): boolean {
    return true;
  }

  /** Nothing was reserved yet (the attempt would have), so only a probe is given back. */
  withdraw(pass: AttemptPass): Promise<void> {
    return settleAttempt(
      pass,
      { succeeded: false, failureClass: FailureClass.cancelled, charge: { costNanoUsd: 0, costKnown: true } },
      { settled: true },
    );
  }

  /** The `attemptTarget` activity: it reserves the bound on the ledger before it sends anything. */
  run(input: ProviderAttemptInput, pass: AttemptPass): Promise<StepOutcome> {
    return this.watch.during(() =>
      runTargetAttempt({
        ...input,
        ...(pass.reservation
          ? { reservation: { ...pass.reservation, holder: workflowInfo().workflowId } }
          : {}),
        ticket: pass.ticket,
      }),
    );
  }

  /**
   * What the attempt's worker could not do, the call does; it asks the breaker access again rather than
   * trusting the admission's view, which may have gone stale since.
   */
  settle(pass: AttemptPass, outcome: SettleOutcome, done: SettledByAttempt): Promise<void> {
    return settleAttempt({ ...pass, ticket: withoutHealthyView(pass.ticket) }, outcome, done);
  }

  /** The breakers that skipped a target and those this round's failures opened; and whether one stayed closed. */
  roundView(skips: RoundSkips): RoundView {
    return {
      probeAtMs: [...skips.circuitOpenUntilMs, ...skips.openedUntilMs],
      someTargetClosed: skips.closedAfterFailure,
    };
  }

  /** The admission made with the route's resolution, for the call's first attempt on its first target. */
  private takeFirstAdmission(planned: PlannedAttempt, request: GateRequest): BreakerAdmission | undefined {
    const admission = this.firstAdmission;
    this.firstAdmission = undefined;
    if (request.forceProbe || request.attempt !== 1 || planned.targetIndex !== 0) return undefined;
    return admission;
  }
}

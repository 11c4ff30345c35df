// What an attempt's outcome means for the walk: settle what its worker did not, record it, and say whether the
// walk goes on, fails over, or stops. Workflow code.
import { CancellationScope, CancelledFailure, patched } from '@temporalio/workflow';
import type { ResolvedRoute, ResolvedTarget } from '../../config/resolved-route';
import { FailureClass } from '../../config/failure-class';
import { failsOver, type PlannedAttempt } from '../../routing/attempt-plan';
import type { NanoUsd } from '../../routing/money';
import { AttemptOutcome, RoutedCallFailureType, type RoutedCallResult } from '../../routing/routing-record';
import { ledgerShortfall, type AttemptPass } from './attempt-gates';
import type { AttemptLog } from './attempt-log';
import type { AttemptStep, StepOutcome } from './attempt-step';
import type { CallClock } from './call-clock';
import { failedAttemptEntry } from './provider-attempt';
import type { RoundSkips } from './round-skips';
import { failureTypeForStop, routingFailure } from './routing-failure';

/** The message of an `over_budget` skip whose ledger did not answer the reservation (nothing was sent). */
const LEDGER_UNREACHABLE_MESSAGE = 'budget ledger did not answer in time: nothing sent';

/**
 * The patch under which an answer that arrives after the caller asked to cancel ends the call `Cancelled`: calls
 * recorded before it returned such an answer, and replay so.
 */
export const LATE_ANSWER_AFTER_CANCEL_PATCH = 'late-answer-after-cancel';
/** The patch under which an attempt that stopped for a cancelled call ends the call `Cancelled`, however it ended. */
export const CANCELLED_ATTEMPT_PATCH = 'cancelled-attempt-ends-cancelled';

export type AttemptVerdict =
  /** The attempt answered: the call's result. */
  | { readonly kind: 'answered'; readonly result: RoutedCallResult }
  /** Its reservation was refused (or unanswered): nothing was sent, and the target is passed over. */
  | { readonly kind: 'skipped' }
  /** It failed with a class that fails over: the walk goes on. */
  | { readonly kind: 'failedOver' }
  /** Its worker lost it before it sent: nothing charged, the breaker not told; the walk may ask the target again. */
  | { readonly kind: 'lostBeforeSending' }
  /** The call ends with `error`; `forGood` when no later round could change that (so patience does not wait). */
  | { readonly kind: 'stopped'; readonly error: unknown; readonly forGood: boolean };

/** The walk's parts a verdict reads and writes. */
export interface WalkParts {
  readonly route: ResolvedRoute;
  /** The call's budget scope, if it names one. */
  readonly budget: string | undefined;
  readonly step: AttemptStep;
  readonly log: AttemptLog;
  readonly clock: CallClock;
  readonly skips: RoundSkips;
}

/** One attempt that ran: what was planned and admitted, and how it came out. */
export interface RanAttempt {
  readonly planned: PlannedAttempt;
  readonly target: ResolvedTarget;
  readonly pass: AttemptPass;
  readonly boundNanoUsd: NanoUsd;
  readonly outcome: StepOutcome;
}

/** Settles the attempt (what its worker did not), writes it to the record, and decides what the walk does next. */
export async function judgeAttempt(walk: WalkParts, ran: RanAttempt): Promise<AttemptVerdict> {
  const { route, step, log, clock, skips } = walk;
  const { planned, target, pass, boundNanoUsd, outcome } = ran;

  if ('refused' in outcome) {
    await step.settle(
      pass,
      {
        succeeded: false,
        failureClass: FailureClass.cancelled,
        charge: { costNanoUsd: 0, costKnown: true },
      },
      outcome,
    );
    if (outcome.tooLate && clock.tooLateForAttempt()) {
      // As when admission outlives the deadline: a busy ledger took the time, and nothing was sent.
      const error = routingFailure(
        RoutedCallFailureType.deadlineExceeded,
        'the call deadline passed while the attempt was being admitted',
        log.record(),
      );
      return { kind: 'stopped', error, forGood: false };
    }
    skips.overBudget(
      planned,
      ledgerShortfall(walk.budget!, outcome.decision, boundNanoUsd),
      outcome.decision ? undefined : LEDGER_UNREACHABLE_MESSAGE,
    );
    return { kind: 'skipped' };
  }
  const { charge, latencyMs } = outcome;
  if (outcome.succeeded) {
    await step.settle(pass, { succeeded: true, charge }, outcome);
    const { provider: _provider, model: _model, ...answer } = outcome.result;
    log.add(
      {
        planned,
        outcome: AttemptOutcome.succeeded,
        latencyMs,
        ...charge,
        reservedNanoUsd: boundNanoUsd,
        ...(answer.requestId ? { requestId: answer.requestId } : {}),
      },
      { model: outcome.result.model, usage: answer.usage },
    );
    if (
      CancellationScope.current().consideredCancelled &&
      !outcome.handedOver &&
      patched(LATE_ANSWER_AFTER_CANCEL_PATCH)
    ) {
      // The caller asked to stop before this answer reached the call (its attempt had not heard yet): the answer
      // is paid for, as recorded, but the caller who left gets Cancelled, never an answer after its cancel. An
      // answer already handed to the gateway's caller is the call's answer all the same (read from history, so no
      // command changes for calls recorded before).
      const error = new CancelledFailure('routed call cancelled before its answer arrived');
      return { kind: 'stopped', error, forGood: true };
    }
    const servedBy = { targetIndex: planned.targetIndex, provider: target.provider, model: target.model };
    const record = log.record(servedBy);
    log.finish('succeeded', record);
    return { kind: 'answered', result: { answer, record } };
  }

  const { failure } = outcome;
  log.add({ ...failedAttemptEntry(planned, outcome), reservedNanoUsd: boundNanoUsd });
  skips.failed(failure.details?.breakerProbeAtMs);
  // Even a cancelled attempt pays for what it may have sent; the breaker is told it does not count.
  const retryAfterMs = failure.details?.retryAfterMs;
  await step.settle(
    pass,
    {
      succeeded: false,
      failureClass: failure.failureClass,
      charge,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    },
    outcome,
  );
  if (
    failure.failureClass === FailureClass.cancelled &&
    CancellationScope.current().consideredCancelled &&
    patched(CANCELLED_ATTEMPT_PATCH)
  ) {
    // The caller cancelled, and its attempt stopped before Temporal's cancellation reached it (a gateway's relay
    // told it the caller left): the call ends as cancelled all the same, never as a failure.
    return {
      kind: 'stopped',
      error: new CancelledFailure('routed call cancelled by the caller'),
      forGood: true,
    };
  }
  // Output already reached the gateway's caller: failing over would splice a second model's text onto the
  // first, so the call ends here. A class that never fails over still ends the usual way.
  if (
    outcome.outputDelivered &&
    (failure.failureClass === FailureClass.cancelled || failsOver(route, failure.failureClass))
  ) {
    const error = routingFailure(
      RoutedCallFailureType.streamInterrupted,
      `${failure.failureClass} after output reached the caller`,
      log.record(),
    );
    return { kind: 'stopped', error, forGood: true };
  }
  if (failure.failureClass === FailureClass.cancelled) {
    return { kind: 'stopped', error: outcome.error, forGood: false };
  }
  if (failure.failureClass === FailureClass.workerLost) return { kind: 'lostBeforeSending' };
  if (!failsOver(route, failure.failureClass)) {
    const error = routingFailure(
      failureTypeForStop(failure.failureClass),
      `${failure.failureClass} does not fail over`,
      log.record(),
    );
    return { kind: 'stopped', error, forGood: true };
  }
  return { kind: 'failedOver' };
}

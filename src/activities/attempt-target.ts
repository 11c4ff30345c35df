// The attempt activity of a routed call: reserve, call the provider, settle the ledger, tell the breaker. Worker side.
import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { failedAttemptCharge, type AttemptCharge } from '../routing/attempt-cost';
import { BreakerOutcome, breakerOutcomeOf } from '../routing/breaker-state';
import { FailureClass } from '../config/failure-class';
import type { ReservationDecision } from '../routing/ledger-state';
import { MIN_ATTEMPT_MS } from '../routing/attempt-plan';
import { costOfUsage } from '../routing/money';
import type {
  AttemptFailureDetails,
  AttemptSettlement,
  TargetAttemptInput,
  TargetAttemptResult,
} from './attempt-types';
import type { ReportBreakerOutcomeInput, ReportBreakerOutcomeResult } from './breaker-types';
import { handOverIfAsked, handoffBeats, type HandOffAnswer } from './answer-handoff';
import { awaitCancellation, EXPIRED, ReservingHeartbeat, within } from './attempt-liveness';
import { AttemptHeartbeat, heartbeatIntervalMs, type createProviderCall } from './call-provider';
import { WATCH_AFTER_MS, watchWhileSending, type WatchCall } from './attempt-watch';
import type { LedgerSettler } from './ledger-access';
import type { ReserveBudgetInput } from './reserve-budget';
import { RESERVATION_WAIT_MS, reserveWhenRoom } from './reserve-when-room';
import type { HeartbeatReceipt, RecordHeartbeat } from './sending-mark';

export interface AttemptTargetDependencies {
  readonly callTarget: ReturnType<typeof createProviderCall>;
  /** Heartbeats the attempt and waits for the server's receipt (the sending mark, and beats while reserving). */
  readonly recordHeartbeat: RecordHeartbeat;
  readonly reserveBudget: (input: ReserveBudgetInput) => Promise<ReservationDecision>;
  readonly settleReservation: LedgerSettler;
  readonly reportBreakerOutcome: (input: ReportBreakerOutcomeInput) => Promise<ReportBreakerOutcomeResult>;
  /** Hears the call's cancellation from the call itself while the request is out (see attempt-watch.ts). */
  readonly watchCall: WatchCall;
  /** Hands a whole answer to a gateway's relay ahead of the call's record (see answer-handoff.ts). */
  readonly handOffAnswer: HandOffAnswer;
  /** How long the request is out before the attempt watches its call, in milliseconds; false: never. @default 250 */
  readonly watchAfterMs?: number | false;
}

/**
 * The attempt gives up before sending: the server no longer knows it (`gone`: whatever this says is for the logs)
 * or could not record its sending mark (`unrecorded`: sending unmarked would let a worker death after the request
 * left be taken for one before, charging nothing for what the provider was asked).
 */
function lostBeforeSending(
  input: TargetAttemptInput,
  receipt: 'gone' | 'unrecorded',
  latencyMs: number,
): ApplicationFailure {
  const why =
    receipt === 'gone'
      ? 'the server gave the attempt up before it sent'
      : 'the server could not record that it was about to send';
  return ApplicationFailure.create({
    type: FailureClass.workerLost,
    message: `${input.target.provider} ${input.target.model}: not sent, ${why}`,
    nonRetryable: true,
    details: [{ requestSent: false, latencyMs } satisfies AttemptFailureDetails],
  });
}

export function createAttemptTarget(dependencies: AttemptTargetDependencies) {
  const {
    callTarget,
    recordHeartbeat,
    reserveBudget,
    settleReservation,
    reportBreakerOutcome,
    watchCall,
    handOffAnswer,
  } = dependencies;
  const watchAfterMs = dependencies.watchAfterMs ?? WATCH_AFTER_MS;

  return async function attemptTarget(input: TargetAttemptInput): Promise<TargetAttemptResult> {
    const context = Context.current();
    const startedAt = Date.now();
    const taskToken = context.info.taskToken;
    // No beat before the sending mark: a late one could overwrite it on the server (see sending-mark.ts).
    const acknowledged = handoffBeats(input, context, recordHeartbeat);
    const heartbeat = new AttemptHeartbeat(context, true, acknowledged);
    const { reservation, breaker } = input;

    /** Tells the breaker (when it needs to hear); undefined when that failed, so the workflow reports. */
    const report = (outcome: BreakerOutcome, failureClass?: FailureClass, retryAfterMs?: number) =>
      reportBreakerOutcome({
        provider: breaker.provider,
        model: breaker.model,
        policy: breaker.policy,
        caller: breaker.caller,
        outcome,
        ...(failureClass !== undefined ? { failureClass } : {}),
        // A rate limit's Retry-After pauses the target for every route (the breaker access decides).
        ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
        wasProbe: breaker.probe,
      }).catch(() => undefined);
    // Handed to the worker's batcher and not waited for: the call's record already holds the charge, and a
    // ledger whose lease on the reservation runs out without this settle reads that record instead (see
    // reconcile-reservations.ts). So the call never waits for the ledger after the provider answered.
    const settle = (charge: AttemptCharge) => {
      if (reservation) {
        void settleReservation(reservation.scope, reservation.reservationId, charge).catch(() => undefined);
      }
      return Promise.resolve(true);
    };
    /** Both at once: neither depends on the other, and the caller waits for both. */
    const close = async (
      charge: AttemptCharge,
      outcome: BreakerOutcome,
      failureClass?: FailureClass,
      retryAfterMs?: number,
    ) => {
      const [settled, reported] = await Promise.all([
        settle(charge),
        report(outcome, failureClass, retryAfterMs),
      ]);
      return {
        settled,
        reported: reported !== undefined,
        ...(reported?.probeAtMs !== undefined ? { breakerProbeAtMs: reported.probeAtMs } : {}),
      } satisfies AttemptSettlement;
    };

    let stopRequested: HeartbeatReceipt | undefined;
    try {
      if (reservation) {
        const reserving = new ReservingHeartbeat(
          () => recordHeartbeat(taskToken, {}),
          heartbeatIntervalMs(context.info.heartbeatTimeoutMs),
        );
        // A ledger that has not answered by the end of the attempt's own timeout leaves it no time anyway. Room
        // that other calls' reservations hold is waited for, for at most half the attempt's time.
        const answer = await within(
          reserveWhenRoom(
            () =>
              reserveBudget({
                scope: reservation.scope,
                request: {
                  reservationId: reservation.reservationId,
                  amountNanoUsd: reservation.amountNanoUsd,
                  holder: reservation.holder,
                  leaseMs: reservation.leaseMs,
                },
              }),
            {
              waitMs: Math.min(RESERVATION_WAIT_MS, input.timeoutMs / 2),
              wanted: () => reserving.receipt === undefined,
            },
          ),
          input.timeoutMs,
        )
          .catch(() => undefined)
          .finally(async () => {
            stopRequested = await reserving.stop();
          });
        const decision = answer === EXPIRED ? undefined : answer;
        if (!decision?.granted) {
          // An unanswered reservation may have been granted all the same: the release gives it back, and makes
          // the ledger refuse a late copy of the request. Nothing is sent without a grant.
          const { settled, reported } = await close(
            { costNanoUsd: 0, costKnown: true },
            BreakerOutcome.cancelled,
          );
          return {
            refused: true as const,
            ...(decision ? { decision } : {}),
            ...(answer === EXPIRED ? { tooLate: true } : {}),
            // A refused reservation holds nothing; an unanswered one was released just now.
            settled: decision ? true : settled,
            reported,
          };
        }
      }

      // The sending mark, recorded before anything leaves: a lost attempt without it is known never to have sent.
      const mark = stopRequested ?? (await recordHeartbeat(taskToken, { sending: true }));
      if (mark === 'gone' || mark === 'unrecorded') {
        // Gone: the server gave up on this attempt (its worker stalled past the heartbeat timeout), the workflow
        // has judged it unsent and settles it itself, so this worker must not send now. Unrecorded: nothing may
        // leave without the mark; the workflow asks the target again.
        // Its reservation goes back now: the call released it when it gave the attempt up, but a release that
        // came first (before the scope's ledger even existed) cannot refuse this late grant.
        if (reservation) {
          await within(
            settleReservation(reservation.scope, reservation.reservationId, {
              costNanoUsd: 0,
              costKnown: true,
            }),
            input.timeoutMs,
          ).catch(() => undefined);
        }
        throw lostBeforeSending(input, mark, Date.now() - startedAt);
      }
      if (mark === 'cancelled' && !context.cancellationSignal.aborted) {
        // The server told the mark, not yet the worker: one beat of the worker's own delivers the cancellation,
        // so the attempt ends as cancelled (an attempt cannot end so on its own say).
        context.heartbeat({});
        await within(
          context.cancelled.catch(() => undefined),
          heartbeatIntervalMs(context.info.heartbeatTimeoutMs),
        );
      }
      if (mark === 'cancelled' || context.cancellationSignal.aborted) {
        // Cancelled while reserving: nothing was sent, so the reservation goes back whole.
        const closed = await close({ costNanoUsd: 0, costKnown: true }, BreakerOutcome.cancelled);
        const details: AttemptFailureDetails = { requestSent: false, latencyMs: 0, ...closed };
        throw new CancelledFailure('attempt cancelled before it was sent', [details]);
      }
      // The attempt's timeout covers its reservation too: the provider gets what the reservation left of it
      // (a busy ledger must not stretch a call past its deadline). Too little left: give it all back.
      const timeoutMs = input.timeoutMs - (Date.now() - startedAt);
      if (timeoutMs < MIN_ATTEMPT_MS) {
        const { settled, reported } = await close(
          { costNanoUsd: 0, costKnown: true },
          BreakerOutcome.cancelled,
        );
        return { refused: true, tooLate: true, settled, reported };
      }
      // The mark said what the first beat would: on the acknowledged channel it need not be said again at once.
      acknowledged?.recordedElsewhere();
      heartbeat.sending();
      // Aborted when the caller left: a gateway's client closed its stream, or the call was cancelled.
      const callerLeft = new AbortController();
      const stopWatching =
        watchAfterMs === false
          ? () => undefined
          : watchWhileSending(
              watchCall,
              context.info.workflowExecution,
              { watchId: `attempt-watch-${context.info.activityId}`, afterMs: watchAfterMs },
              () => callerLeft.abort(),
            );
      try {
        const success = await callTarget(
          {
            target: input.target,
            request: input.request,
            timeoutMs,
            stream: input.stream,
            ...(input.relay ? { relay: input.relay } : {}),
          },
          { activity: context, heartbeat, callerLeft },
        ).finally(stopWatching);
        const charge = {
          costNanoUsd: costOfUsage(input.target.prices, success.result.usage),
          costKnown: true,
        };
        // The gateway's caller gets the answer now, while the ledger and the breaker hear of it, and the call's
        // record follows. The handoff records the answer in the attempt's heartbeat first.
        const [closed, handedOver] = await Promise.all([
          close(charge, BreakerOutcome.success),
          handOverIfAsked(handOffAnswer, { input, context, heartbeat }, success, charge.costNanoUsd),
        ]);
        return { ...success, ...closed, ...(handedOver ? { handedOver: true as const } : {}) };
      } catch (error) {
        if (!(error instanceof ApplicationFailure)) throw error;
        const details = error.details?.[0] as AttemptFailureDetails;
        // The request stopped because the caller left: the cancellation follows, and the attempt must end as one.
        if (callerLeft.signal.aborted) {
          await awaitCancellation(context, heartbeat, () => recordHeartbeat(taskToken, heartbeat.current));
        }
        const cancellation = context.cancellationDetails;
        // Timed out or forgotten by the server: the workflow has moved on and settles the attempt itself, so
        // settling here too could charge it twice over (real cost here, the whole bound there).
        if (cancellation?.timedOut || cancellation?.notFound) throw error;
        const charge = failedAttemptCharge(
          {
            requestSent: details.requestSent,
            ...(details.status !== undefined ? { httpStatus: details.status } : {}),
            ...(details.usage ? { usage: details.usage } : {}),
          },
          input.target.prices,
          input.boundNanoUsd,
        );
        const failureClass = error.type as FailureClass;
        const closed = await close(
          charge,
          breakerOutcomeOf(false, failureClass),
          failureClass,
          details.retryAfterMs,
        );
        const settledDetails: AttemptFailureDetails = { ...details, ...closed };
        // A caller's cancellation must reach the workflow as one (it ends the call as Cancelled).
        if (cancellation?.cancelRequested) throw new CancelledFailure(error.message, [settledDetails]);
        throw ApplicationFailure.create({
          type: error.type ?? undefined,
          message: error.message,
          nonRetryable: true,
          details: [settledDetails],
        });
      }
    } finally {
      heartbeat.stop();
    }
  };
}

// The attempt activity of a routed call: reserve, call the provider, settle the ledger, tell the breaker. Worker side.
import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { failedAttemptCharge, type AttemptCharge } from '../routing/attempt-cost';
import { BreakerOutcome, breakerOutcomeOf } from '../routing/breaker-state';
import type { FailureClass } from '../config/failure-class';
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
import { AttemptHeartbeat, type createProviderCall } from './call-provider';
import type { LedgerSettler } from './ledger-access';
import type { ReserveBudgetInput } from './reserve-budget';

export interface AttemptTargetDependencies {
  readonly callTarget: ReturnType<typeof createProviderCall>;
  readonly reserveBudget: (input: ReserveBudgetInput) => Promise<ReservationDecision>;
  readonly settleReservation: LedgerSettler;
  readonly reportBreakerOutcome: (input: ReportBreakerOutcomeInput) => Promise<ReportBreakerOutcomeResult>;
}

const EXPIRED = Symbol('expired');

/** `operation`'s result, or {@link EXPIRED} once `timeoutMs` has passed without one. */
async function within<T>(operation: Promise<T>, timeoutMs: number): Promise<T | typeof EXPIRED> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<typeof EXPIRED>((resolve) => {
    timer = setTimeout(() => resolve(EXPIRED), timeoutMs);
  });
  try {
    return await Promise.race([operation, expired]);
  } finally {
    clearTimeout(timer);
  }
}

export function createAttemptTarget(dependencies: AttemptTargetDependencies) {
  const { callTarget, reserveBudget, settleReservation, reportBreakerOutcome } = dependencies;

  return async function attemptTarget(input: TargetAttemptInput): Promise<TargetAttemptResult> {
    const context = Context.current();
    const startedAt = Date.now();
    const heartbeat = new AttemptHeartbeat(context);
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

    try {
      if (reservation) {
        // A ledger that has not answered by the end of the attempt's own timeout leaves it no time anyway.
        const answer = await within(
          reserveBudget({
            scope: reservation.scope,
            request: {
              reservationId: reservation.reservationId,
              amountNanoUsd: reservation.amountNanoUsd,
              holder: reservation.holder,
              leaseMs: reservation.leaseMs,
            },
          }),
          input.timeoutMs,
        ).catch(() => undefined);
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

      if (context.cancellationSignal.aborted) {
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
      try {
        const success = await callTarget(
          {
            target: input.target,
            request: input.request,
            timeoutMs,
            stream: input.stream,
            ...(input.relay ? { relay: input.relay } : {}),
          },
          { activity: context, heartbeat },
        );
        const charge = {
          costNanoUsd: costOfUsage(input.target.prices, success.result.usage),
          costKnown: true,
        };
        return { ...success, ...(await close(charge, BreakerOutcome.success)) };
      } catch (error) {
        if (!(error instanceof ApplicationFailure)) throw error;
        const details = error.details?.[0] as AttemptFailureDetails;
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

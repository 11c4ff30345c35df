// One provider attempt as an activity: its options, its outcome classified and what it costs. Workflow code.
import {
  ActivityCancellationType,
  ActivityFailure,
  patched,
  proxyActivities,
  TimeoutFailure,
} from '@temporalio/workflow';
import { FailureClass } from '../../config/failure-class';
import type { AttemptFailureDetails, SwitchyardActivities } from '../../activities';
import type {
  AnswerHandoff,
  AttemptHeartbeatDetails,
  AttemptReservation,
  AttemptSettlement,
  AttemptSuccess,
} from '../../activities/attempt-types';
import type { RelayTarget } from '../../config/relay';
import type { GenerationRequest } from '../../config/request';
import type { ResolvedRoute, ResolvedTarget } from '../../config/resolved-route';
import type { PlannedAttempt } from '../../routing/attempt-plan';
import { failedAttemptCharge, type AttemptCharge } from '../../routing/attempt-cost';
import { costOfUsage, type NanoUsd } from '../../routing/money';
import type { ReservationRefusal } from '../../routing/ledger-state';
import type { GenerationResult } from '../../providers/types';
import { AttemptOutcome } from '../../routing/routing-record';
import { classifyAttemptFailure, type ClassifiedAttemptFailure } from './attempt-failure';
import type { AttemptEntry } from './attempt-log';
import type { BreakerTicket } from '../breaker/breaker-gate';

/** The patch under which an attempt lost before it sent is `worker_lost`: not charged, not counted, asked again. */
export const WORKER_LOST_BEFORE_SENDING_PATCH = 'worker-lost-before-sending';

/** Extra start-to-close time over the SDK timeout, so the SDK reports its own timeout with details first. */
const ACTIVITY_TIMEOUT_GRACE_MS = 1_000;
/**
 * Extra start-to-close time of an attempt that settles the ledger and tells the breaker itself after the
 * provider answered, in milliseconds. (Its reservation comes out of its own timeout.)
 */
const SETTLE_ALLOWANCE_MS = 1_000;

// Provider attempts are never retried by Temporal: each retry is a further, visible attempt of the walk.
const { callProvider, attemptTarget } = proxyActivities<SwitchyardActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 1 },
});

export interface ProviderAttemptInput {
  readonly route: ResolvedRoute;
  readonly target: ResolvedTarget;
  readonly request: GenerationRequest;
  readonly stream: boolean;
  /** This attempt's SDK timeout: the target's, shortened by the call's deadline. */
  readonly timeoutMs: number;
  /** 1-based attempt number, for the activity's UI summary. */
  readonly attempt: number;
  /** The attempt's worst-case cost: charged when the request went out and its usage is unknown. */
  readonly boundNanoUsd: NanoUsd;
  /** The gateway's relay the attempt pushes its output to, for a gateway's stream. */
  readonly relay?: RelayTarget;
  /** What the attempt needs to hand its answer to the relay ahead of the record (a relay with `answer`). */
  readonly handoff?: AnswerHandoff;
}

export type ProviderAttemptOutcome =
  | ({
      readonly succeeded: true;
      readonly result: GenerationResult;
      readonly charge: AttemptCharge;
      readonly latencyMs: number;
      /** The answer went to the gateway's caller ahead of the record (or may have): the call ends with it. */
      readonly handedOver?: true;
    } & AttemptSettlement)
  | ({
      readonly succeeded: false;
      readonly failure: ClassifiedAttemptFailure;
      readonly charge: AttemptCharge;
      readonly latencyMs: number;
      /** The activity's error as thrown, to rethrow a cancellation unchanged. */
      readonly error: unknown;
      /** The caller already holds output of this call (a gateway's stream): it must not fail over. */
      readonly outputDelivered: boolean;
    } & AttemptSettlement);

export interface TargetAttemptInput extends ProviderAttemptInput {
  /** The reservation the attempt makes before sending; absent when the call names no budget scope. */
  readonly reservation?: AttemptReservation;
  readonly ticket: BreakerTicket;
}

/** An attempt whose reservation was refused (or unanswered): nothing was sent. */
export interface RefusedAttempt extends AttemptSettlement {
  readonly succeeded: false;
  readonly refused: true;
  readonly decision?: ReservationRefusal;
  /** The reservation was granted (and given back) after the attempt's time had run out. */
  readonly tooLate?: true;
}

/**
 * One attempt as the `attemptTarget` activity: it reserves the bound, calls the provider, then charges the
 * ledger and tells the breaker from its own worker, so a healthy call needs no further workflow step. What it
 * could not settle (`settled` / `reported` false, or a lost activity) is left to the caller.
 */
export async function runTargetAttempt(
  input: TargetAttemptInput,
): Promise<ProviderAttemptOutcome | RefusedAttempt> {
  const { target, timeoutMs, ticket } = input;
  const startedAt = Date.now();
  try {
    const outcome = await attemptTarget.executeWithOptions(
      {
        startToCloseTimeout: timeoutMs + ACTIVITY_TIMEOUT_GRACE_MS + SETTLE_ALLOWANCE_MS,
        heartbeatTimeout: input.route.heartbeatTimeoutMs,
        retry: { maximumAttempts: 1 },
        // The attempt settles what it sent even when the call is cancelled; waiting for it lets the record
        // say what was charged instead of guessing.
        cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
        summary: `#${input.attempt} ${target.provider}/${target.model}`,
      },
      [
        {
          target,
          request: input.request,
          timeoutMs,
          stream: input.stream,
          boundNanoUsd: input.boundNanoUsd,
          ...(input.relay ? { relay: input.relay } : {}),
          ...(input.handoff ? { handoff: input.handoff } : {}),
          ...(input.reservation ? { reservation: input.reservation } : {}),
          breaker: {
            provider: ticket.provider,
            model: ticket.model,
            policy: ticket.policy,
            caller: ticket.caller,
            probe: ticket.probe,
          },
        },
      ],
    );
    if (outcome.refused) {
      return {
        succeeded: false,
        refused: true,
        ...(outcome.decision ? { decision: outcome.decision } : {}),
        ...(outcome.tooLate ? { tooLate: true } : {}),
        settled: outcome.settled ?? false,
        reported: outcome.reported ?? false,
      };
    }
    const charge = { costNanoUsd: costOfUsage(target.prices, outcome.result.usage), costKnown: true };
    return {
      succeeded: true,
      result: outcome.result,
      charge,
      latencyMs: outcome.latencyMs,
      settled: outcome.settled ?? false,
      reported: outcome.reported ?? false,
      ...(outcome.handedOver ? { handedOver: true } : {}),
    };
  } catch (error) {
    const handed = answerHandedOver(error);
    if (handed) {
      // Lost after its answer went to the gateway's caller: the call ends with that answer, and the ledger and
      // the breaker hear of it from here, since the lost worker may not have told them.
      return {
        succeeded: true,
        result: handed.result,
        charge: { costNanoUsd: costOfUsage(target.prices, handed.result.usage), costKnown: true },
        latencyMs: handed.latencyMs,
        settled: false,
        reported: false,
        handedOver: true,
      };
    }
    const failed = failedOutcome(error, input, startedAt);
    const details = failed.failure.details;
    return { ...failed, settled: details?.settled ?? false, reported: details?.reported ?? false };
  }
}

/**
 * Whether output already reached the gateway's caller: the activity says so in its failure
 * details, or, when its worker was lost mid-stream, in its last heartbeat's details. Reading a new field
 * changes no command, so no patch is needed.
 */
function outputReachedCaller(error: unknown, details: AttemptFailureDetails | undefined): boolean {
  if (details?.outputDelivered === true) return true;
  const cause = error instanceof ActivityFailure ? error.cause : undefined;
  if (!(cause instanceof TimeoutFailure)) return false;
  const beat = cause.lastHeartbeatDetails as { outputDelivered?: unknown } | undefined;
  return beat?.outputDelivered === true;
}

/**
 * The answer a lost attempt had handed to the gateway's caller, from its last heartbeat (recorded before the
 * handoff); undefined for any other failure. Only calls whose input asks for handoffs have such a heartbeat.
 */
function answerHandedOver(error: unknown): AttemptSuccess | undefined {
  const cause = error instanceof ActivityFailure ? error.cause : undefined;
  if (!(cause instanceof TimeoutFailure)) return undefined;
  const beat = cause.lastHeartbeatDetails as AttemptHeartbeatDetails | undefined;
  return beat?.answered;
}

export async function runProviderAttempt(input: ProviderAttemptInput): Promise<ProviderAttemptOutcome> {
  const { target, timeoutMs } = input;
  const startedAt = Date.now();
  try {
    const success = await callProvider.executeWithOptions(
      {
        startToCloseTimeout: timeoutMs + ACTIVITY_TIMEOUT_GRACE_MS,
        heartbeatTimeout: input.route.heartbeatTimeoutMs,
        retry: { maximumAttempts: 1 },
        summary: `#${input.attempt} ${target.provider}/${target.model}`,
      },
      [
        {
          target,
          request: input.request,
          timeoutMs,
          stream: input.stream,
          ...(input.relay ? { relay: input.relay } : {}),
        },
      ],
    );
    const charge = { costNanoUsd: costOfUsage(target.prices, success.result.usage), costKnown: true };
    return { succeeded: true, result: success.result, charge, latencyMs: success.latencyMs };
  } catch (error) {
    return failedOutcome(error, input, startedAt);
  }
}

/** A failed attempt: its class, and its charge worked out from what it sent (the same rule as its worker's). */
function failedOutcome(
  error: unknown,
  input: ProviderAttemptInput,
  startedAt: number,
): Extract<ProviderAttemptOutcome, { succeeded: false }> {
  let failure = classifyAttemptFailure(error);
  // Calls recorded before lost attempts were told apart took them for timeouts that may have sent (charged in
  // full, counted on the breaker, failed over): they replay so.
  if (failure.failureClass === FailureClass.workerLost && !patched(WORKER_LOST_BEFORE_SENDING_PATCH)) {
    failure = classifyAttemptFailure(error, { readsSendingMark: false });
  }
  const details = failure.details;
  const charge = failedAttemptCharge(
    {
      requestSent: failure.requestSent,
      ...(details?.status !== undefined ? { httpStatus: details.status } : {}),
      ...(details?.usage ? { usage: details.usage } : {}),
    },
    input.target.prices,
    input.boundNanoUsd,
  );
  return {
    succeeded: false,
    failure,
    charge,
    latencyMs: details?.latencyMs ?? Date.now() - startedAt,
    error,
    outputDelivered: outputReachedCaller(error, details),
  };
}

/** The record of a failed attempt: its class, what the provider said of it (status, code, request id), its cost. */
export function failedAttemptEntry(
  planned: PlannedAttempt,
  outcome: Extract<ProviderAttemptOutcome, { succeeded: false }>,
): AttemptEntry {
  const { failure, charge, latencyMs } = outcome;
  const details = failure.details;
  return {
    planned,
    outcome: AttemptOutcome.failed,
    failureClass: failure.failureClass,
    message: failure.message,
    latencyMs,
    ...charge,
    ...(details?.status !== undefined ? { httpStatus: details.status } : {}),
    ...(details?.providerCode !== undefined ? { providerCode: details.providerCode } : {}),
    ...(details?.retryAfterMs !== undefined ? { retryAfterMs: details.retryAfterMs } : {}),
    ...(details?.requestId !== undefined ? { requestId: details.requestId } : {}),
  };
}

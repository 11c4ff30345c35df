// One provider attempt as an activity: its options, its outcome classified and what it costs. Workflow code.
import { proxyActivities } from '@temporalio/workflow';
import type { SwitchyardActivities } from '../../activities';
import type { GenerationRequest } from '../../config/request';
import type { ResolvedRoute, ResolvedTarget } from '../../config/resolved-route';
import type { PlannedAttempt } from '../../routing/attempt-plan';
import { failedAttemptCharge, type AttemptCharge } from '../../routing/attempt-cost';
import { costOfUsage, type NanoUsd } from '../../routing/money';
import type { GenerationResult } from '../../providers/types';
import { AttemptOutcome } from '../../routing/routing-record';
import { classifyAttemptFailure, type ClassifiedAttemptFailure } from './attempt-failure';
import type { AttemptEntry } from './attempt-log';

/** Extra start-to-close time over the SDK timeout, so the SDK reports its own timeout with details first. */
const ACTIVITY_TIMEOUT_GRACE_MS = 1_000;

// Provider attempts are never retried by Temporal: each retry is a further, visible attempt of the walk.
const { callProvider } = proxyActivities<SwitchyardActivities>({
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
}

export type ProviderAttemptOutcome =
  | {
      readonly succeeded: true;
      readonly result: GenerationResult;
      readonly charge: AttemptCharge;
      readonly latencyMs: number;
    }
  | {
      readonly succeeded: false;
      readonly failure: ClassifiedAttemptFailure;
      readonly charge: AttemptCharge;
      readonly latencyMs: number;
      /** The activity's error as thrown, to rethrow a cancellation unchanged. */
      readonly error: unknown;
    };

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
      [{ target, request: input.request, timeoutMs, stream: input.stream }],
    );
    const charge = { costNanoUsd: costOfUsage(target.prices, success.result.usage), costKnown: true };
    return { succeeded: true, result: success.result, charge, latencyMs: success.latencyMs };
  } catch (error) {
    const failure = classifyAttemptFailure(error);
    const details = failure.details;
    const charge = failedAttemptCharge(
      {
        requestSent: failure.requestSent,
        ...(details?.status !== undefined ? { httpStatus: details.status } : {}),
        ...(details?.usage ? { usage: details.usage } : {}),
      },
      target.prices,
      input.boundNanoUsd,
    );
    return {
      succeeded: false,
      failure,
      charge,
      latencyMs: details?.latencyMs ?? Date.now() - startedAt,
      error,
    };
  }
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

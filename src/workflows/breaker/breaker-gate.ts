// The routed call's side of the breaker: ask before an attempt, report after it. Workflow code.
import {
  ActivityFailure,
  CancellationScope,
  isCancellation,
  log,
  proxyLocalActivities,
  workflowInfo,
} from '@temporalio/workflow';
import type { SwitchyardActivities } from '../../activities';
import type { AdmitTargetResult } from '../../activities/breaker-types';
import type { BreakerPolicy } from '../../config/route';
import type { ResolvedRoute, ResolvedTarget } from '../../config/resolved-route';
import { BreakerOutcome, breakerOutcomeOf } from '../../routing/breaker-state';
import { AdmitDecision, probeLeaseMs } from '../../routing/breaker-admission';
import type { FailureClass } from '../../config/failure-class';

/** When the breaker cannot be reached at all, a denied target may be asked again after this long. */
const UNREACHABLE_RETRY_MS = 1_000;

// Entity access is idempotent (admits are keyed by caller, reports by id), so at-least-once local activities
// suit it. A few quick retries ride out a busy entity (too many updates in flight); an entity that cannot be
// reached at all costs the call at most 15 s before the target is treated as open.
const { admitTarget, reportBreakerOutcome } = proxyLocalActivities<SwitchyardActivities>({
  startToCloseTimeout: '5 seconds',
  scheduleToCloseTimeout: '15 seconds',
  retry: {
    maximumAttempts: 5,
    initialInterval: '100 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '2 seconds',
  },
});

/** What the routed call carries from the admission to the report of the same attempt. */
export interface BreakerTicket {
  readonly provider: string;
  readonly model: string;
  readonly policy: BreakerPolicy;
  readonly caller: string;
  /** This attempt holds the half-open probe: its outcome always reaches the entity. */
  readonly probe: boolean;
  /** Until this epoch millisecond a success needs no report (the breaker was closed with no failures). */
  readonly healthyUntilMs?: number;
}

export type BreakerAdmission =
  | { readonly admitted: true; readonly probe: boolean; readonly ticket: BreakerTicket }
  | {
      readonly admitted: false;
      readonly retryAtMs: number;
      /** The breaker could not be reached at all: the target is treated as open, though it may not be. */
      readonly unreachable?: true;
      /** A provider's `Retry-After` pauses the target for every route until `retryAtMs`. */
      readonly paused?: true;
    };

export interface AdmitOptions {
  /**
   * Take the probe even before the cooldown: for `whenAllOpen: probe_first`, once every target of the route
   * was denied. Never takes a probe another call holds. @default false
   */
  readonly force?: boolean;
}

/** The breaker caller name of attempt `attempt` (1-based) of this routed call: `<workflow id>#<attempt>`. */
export function breakerCaller(attempt: number): string {
  return `${workflowInfo().workflowId}#${attempt}`;
}

/**
 * Asks the breaker of `target` whether attempt `attempt` may call it. Denied → record the target as
 * `skipped / circuit_open`; admitted → make the attempt and pass the ticket to {@link reportToBreaker}.
 * A breaker that cannot be reached denies (retry after a second) rather than failing the call.
 */
export async function admitOnBreaker(
  route: Pick<ResolvedRoute, 'breaker'>,
  target: Pick<ResolvedTarget, 'provider' | 'model' | 'timeoutMs'>,
  attempt: number,
  options: AdmitOptions = {},
): Promise<BreakerAdmission> {
  const caller = breakerCaller(attempt);
  try {
    const result = await admitTarget({
      provider: target.provider,
      model: target.model,
      policy: route.breaker,
      caller,
      probeLeaseMs: probeLeaseMs(target),
      ...(options.force ? { force: true } : {}),
    });
    return admissionOf(result, route, target, caller);
  } catch (error) {
    if (isCancellation(error) || !(error instanceof ActivityFailure)) throw error;
    log.warn('breaker unreachable; treating the target as open', {
      breaker: `${target.provider}/${target.model}`,
      error: error.cause?.message ?? error.message,
    });
    return { admitted: false, retryAtMs: Date.now() + UNREACHABLE_RETRY_MS, unreachable: true };
  }
}

/** The routed call's view of what the breaker access decided for `caller`. */
export function admissionOf(
  result: AdmitTargetResult,
  route: Pick<ResolvedRoute, 'breaker'>,
  target: Pick<ResolvedTarget, 'provider' | 'model'>,
  caller: string,
): BreakerAdmission {
  if (result.decision === AdmitDecision.deny) {
    return {
      admitted: false,
      retryAtMs: result.retryAtMs ?? Date.now() + UNREACHABLE_RETRY_MS,
      ...(result.unreachable ? { unreachable: true } : {}),
      ...(result.paused ? { paused: true } : {}),
    };
  }
  const probe = result.decision === AdmitDecision.probe;
  return {
    admitted: true,
    probe,
    ticket: {
      provider: target.provider,
      model: target.model,
      policy: route.breaker,
      caller,
      probe,
      ...(result.healthyUntilMs !== undefined ? { healthyUntilMs: result.healthyUntilMs } : {}),
    },
  };
}

/**
 * Reports an admitted attempt's outcome. Call it after every admitted attempt — also when the attempt was
 * cancelled (a probe's lease is released; it runs even inside a cancelled scope). A success on a breaker
 * that was closed with no failures returns at once without any activity: healthy calls cost nothing.
 * Never throws: a report that cannot be delivered is logged and the probe lease covers it.
 */
export async function reportToBreaker(
  ticket: BreakerTicket,
  result: {
    readonly succeeded: boolean;
    readonly failureClass?: FailureClass;
    /** A rate limit's `Retry-After`, in milliseconds: the breaker pauses the target for every route. */
    readonly retryAfterMs?: number;
  },
): Promise<void> {
  const outcome = breakerOutcomeOf(result.succeeded, result.failureClass);
  if (!ticket.probe) {
    if (outcome === BreakerOutcome.cancelled) return;
    const answered = outcome === BreakerOutcome.success || outcome === BreakerOutcome.neutral;
    if (answered && ticket.healthyUntilMs !== undefined && Date.now() <= ticket.healthyUntilMs) return;
  }
  try {
    await CancellationScope.nonCancellable(() =>
      reportBreakerOutcome({
        provider: ticket.provider,
        model: ticket.model,
        policy: ticket.policy,
        caller: ticket.caller,
        outcome,
        ...(result.failureClass !== undefined && !result.succeeded
          ? { failureClass: result.failureClass }
          : {}),
        ...(result.retryAfterMs !== undefined && !result.succeeded
          ? { retryAfterMs: result.retryAfterMs }
          : {}),
        wasProbe: ticket.probe,
      }),
    );
  } catch (error) {
    // Whatever went wrong (the local activity's failure, or anything it surfaced as), the call goes on.
    if (isCancellation(error)) throw error;
    const message =
      error instanceof ActivityFailure
        ? (error.cause?.message ?? error.message)
        : error instanceof Error
          ? error.message
          : String(error);
    log.warn('could not report to the breaker', {
      breaker: `${ticket.provider}/${ticket.model}`,
      outcome,
      error: message,
    });
  }
}

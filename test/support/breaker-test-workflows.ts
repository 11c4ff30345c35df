// Test-only workflow bundle: the breaker entity, and one gated attempt (admit → call → report) like one
// step of the routed call's walk, so the breaker's worker side is tested before the walk is wired to it.
import { proxyActivities } from '@temporalio/workflow';
import type { SwitchyardActivities } from '../../src/activities';
import type { GenerationRequest } from '../../src/config/request';
import type { ResolvedRoute, ResolvedTarget } from '../../src/config/resolved-route';
import type { FailureClass } from '../../src/config/failure-class';
import { admitOnBreaker, reportToBreaker } from '../../src/workflows/breaker/breaker-gate';
import { classifyAttemptFailure } from '../../src/workflows/routed-call/attempt-failure';

export { breakerWorkflow } from '../../src/workflows/breaker/breaker-workflow';

const { callProvider } = proxyActivities<SwitchyardActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 1 },
});

export interface GatedCallInput {
  readonly route: Pick<ResolvedRoute, 'breaker' | 'heartbeatTimeoutMs'>;
  readonly target: ResolvedTarget;
  readonly request: GenerationRequest;
  /** @default 1 */
  readonly attempt?: number;
  readonly force?: boolean;
}

export interface GatedCallResult {
  readonly admitted: boolean;
  readonly probe?: boolean;
  readonly retryAtMs?: number;
  /** Denied because a provider's Retry-After pauses the target. */
  readonly paused?: true;
  readonly outcome?: 'succeeded' | FailureClass;
}

export async function gatedCallWorkflow(input: GatedCallInput): Promise<GatedCallResult> {
  const admission = await admitOnBreaker(input.route, input.target, input.attempt ?? 1, {
    force: input.force ?? false,
  });
  if (!admission.admitted)
    return {
      admitted: false,
      retryAtMs: admission.retryAtMs,
      ...(admission.paused ? { paused: true } : {}),
    };
  try {
    await callProvider.executeWithOptions(
      {
        startToCloseTimeout: input.target.timeoutMs + 1_000,
        heartbeatTimeout: input.route.heartbeatTimeoutMs,
        retry: { maximumAttempts: 1 },
      },
      [{ target: input.target, request: input.request, timeoutMs: input.target.timeoutMs, stream: false }],
    );
    await reportToBreaker(admission.ticket, { succeeded: true });
    return { admitted: true, probe: admission.probe, outcome: 'succeeded' };
  } catch (error) {
    const failure = classifyAttemptFailure(error);
    const retryAfterMs = failure.details?.retryAfterMs;
    await reportToBreaker(admission.ticket, {
      succeeded: false,
      failureClass: failure.failureClass,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    });
    if (failure.failureClass === 'cancelled') throw error;
    return { admitted: true, probe: admission.probe, outcome: failure.failureClass };
  }
}

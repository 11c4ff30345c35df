// The first local activity of a routed call: its route resolved and, where the worker's view can, its first target admitted. Worker side.
import { probeLeaseMs } from '../routing/breaker-admission';
import type { RouteReference } from '../config/resolve-route';
import type { ResolvedRoute } from '../config/resolved-route';
import type { AdmitTargetInput, AdmitTargetResult } from './breaker-types';

export interface BeginCallInput {
  readonly route: RouteReference;
  /** Whether the call names a budget scope: a route that requires one gets no admission without it. */
  readonly hasBudget: boolean;
  /** The breaker caller name of the call's first attempt (`<workflow id>#1`). */
  readonly firstCaller: string;
}

export interface BeginCallResult {
  readonly route: ResolvedRoute;
  /**
   * The first target's breaker admission, when the worker's view alone could decide it (closed: allow; open
   * in cooldown: deny). It changed nothing, so the call may drop it. Absent when the entity must decide.
   */
  readonly firstAdmission?: AdmitTargetResult;
}

export interface BeginCallDependencies {
  readonly resolveRoute: (reference: RouteReference) => Promise<ResolvedRoute>;
  readonly peekAdmission: (input: AdmitTargetInput) => Promise<AdmitTargetResult | undefined>;
}

/**
 * One local activity instead of two: resolution is a look-up in the worker's config and a healthy breaker
 * answers from the worker's view, so together they cost the call one marker and no entity event.
 */
export function createBeginCall(dependencies: BeginCallDependencies) {
  return async function beginCall(input: BeginCallInput): Promise<BeginCallResult> {
    const route = await dependencies.resolveRoute(input.route);
    const first = route.targets[0];
    if (!first || (route.requireBudget && !input.hasBudget)) return { route };
    const firstAdmission = await dependencies.peekAdmission({
      provider: first.provider,
      model: first.model,
      policy: route.breaker,
      caller: input.firstCaller,
      probeLeaseMs: probeLeaseMs(first),
    });
    return { route, ...(firstAdmission ? { firstAdmission } : {}) };
  };
}

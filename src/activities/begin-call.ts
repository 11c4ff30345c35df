// The first local activity of a routed call: its route resolved and, where the worker's view can, its first target admitted. Worker side.
import { probeLeaseMs } from '../routing/breaker-admission';
import { readsObservations } from '../routing/candidate-order';
import type { RouteReference } from '../config/resolve-route';
import type { ResolvedRoute } from '../config/resolved-route';
import type { TargetObservation } from '../routing/target-observation';
import type { AdmitTargetInput, AdmitTargetResult } from './breaker-types';

export interface BeginCallInput {
  readonly route: RouteReference;
  /** Whether the call names a budget scope: a route that requires one gets no admission without it. */
  readonly hasBudget: boolean;
  /** The breaker caller name of the call's first attempt (`<workflow id>#1`). */
  readonly firstCaller: string;
  /**
   * Also hand back the worker's recent measurements of each target and a random draw, for a strategy that
   * orders by them. Recorded in history with the result, so a replayed call decides from the same numbers.
   * A resolved route whose strategy (or a nested route's) reads them is observed without it.
   * @default false
   */
  readonly observe?: boolean;
}

export interface BeginCallResult {
  readonly route: ResolvedRoute;
  /**
   * The first target's breaker admission, when the worker's view alone could decide it (closed: allow; open
   * in cooldown: deny). It changed nothing, so the call may drop it. Absent when the entity must decide.
   */
  readonly firstAdmission?: AdmitTargetResult;
  /** With `observe`: this worker's measurements of each of `route.targets`, by target index. */
  readonly observations?: readonly TargetObservation[];
  /** With `observe`: a uniform random number in [0, 1), for the `weighted` strategy's pick. */
  readonly draw?: number;
}

export interface BeginCallDependencies {
  readonly resolveRoute: (reference: RouteReference) => Promise<ResolvedRoute>;
  readonly peekAdmission: (input: AdmitTargetInput) => Promise<AdmitTargetResult | undefined>;
  /** The worker's recent measurements of one target (`TargetObservations.observe`). */
  readonly observe: (target: { readonly provider: string; readonly model: string }) => TargetObservation;
  /** A uniform random number in [0, 1). @default Math.random */
  readonly draw?: () => number;
}

/**
 * One local activity instead of two: resolution is a look-up in the worker's config and a healthy breaker
 * answers from the worker's view, so together they cost the call one marker and no entity event.
 */
export function createBeginCall(dependencies: BeginCallDependencies) {
  return async function beginCall(input: BeginCallInput): Promise<BeginCallResult> {
    const route = await dependencies.resolveRoute(input.route);
    // Read here, not in the workflow: the result is recorded, so a replay sees what the first run saw.
    // A named route's strategy is known only now: a route that reads them is observed whatever the call said.
    const measured =
      input.observe || readsObservations(route)
        ? {
            observations: route.targets.map((target) => dependencies.observe(target)),
            draw: (dependencies.draw ?? Math.random)(),
          }
        : {};
    const first = route.targets[0];
    if (!first || (route.requireBudget && !input.hasBudget)) return { route, ...measured };
    const firstAdmission = await dependencies.peekAdmission({
      provider: first.provider,
      model: first.model,
      policy: route.breaker,
      caller: input.firstCaller,
      probeLeaseMs: probeLeaseMs(first),
    });
    return { route, ...(firstAdmission ? { firstAdmission } : {}), ...measured };
  };
}

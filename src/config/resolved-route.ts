// A route with every target's provider kind and prices filled in, as recorded in workflow history. Types, and the
// candidates of a route resolved before they existed.
import type { BreakerPolicy, ResponseCacheSpec, RoutingStrategy } from './route';
import type { FailureClass } from './failure-class';
import type { ModelSupport, ProviderConfig } from './provider-schema';

export interface Prices {
  readonly inputUsdPerMillion: number;
  readonly cachedInputUsdPerMillion: number;
  /** Absent in routes resolved before cache writes were priced apart: the input price then. */
  readonly cacheWriteUsdPerMillion?: number;
  /** Absent in routes resolved before cache writes were priced apart: the input price then. */
  readonly cacheWrite1hUsdPerMillion?: number;
  readonly outputUsdPerMillion: number;
}

export interface ResolvedTarget {
  readonly provider: string;
  readonly providerKind: ProviderConfig['kind'];
  readonly model: string;
  readonly timeoutMs: number;
  readonly retries: number;
  readonly prices: Prices;
  readonly contextWindow?: number;
  /** The most prompt tokens one image can cost here; absent: the provider kind's published worst case. */
  readonly maxImageTokens?: number;
  /** What the model accepts; absent (as in routes resolved before it existed): everything. */
  readonly supports?: ModelSupport;
  /** The `weighted` strategy's weight of this target. @default 1 */
  readonly weight?: number;
  /** The nested route this target belongs to; absent for the route's own targets. */
  readonly via?: string;
}

/**
 * One candidate of a route: one of its targets, or a nested route whose own strategy picks one of its targets.
 * A route's targets list holds the nested routes' targets too, so every attempt names a target by index.
 */
export interface RouteCandidate {
  /** Indexes into the route's `targets`: one for a target; a nested route's targets in their declared order. */
  readonly targetIndexes: readonly number[];
  /** The `weighted` strategy's weight of this candidate. */
  readonly weight: number;
  /** For a nested route: its name. */
  readonly route?: string;
  /** For a nested route: the strategy that picks among its targets. */
  readonly strategy?: RoutingStrategy;
  /** For a nested route: the version of it that was resolved (routes changed at runtime). */
  readonly version?: number;
}

export interface ResolvedRoute {
  /** The route's name in the config, or `inline`. */
  readonly name: string;
  readonly targets: readonly ResolvedTarget[];
  readonly maxAttempts: number;
  readonly deadlineMs?: number;
  readonly failoverOn: readonly FailureClass[];
  readonly breaker: BreakerPolicy;
  readonly whenAllOpen: 'probe_first' | 'fail';
  readonly heartbeatTimeoutMs: number;
  readonly requireBudget: boolean;
  /** How candidates are ordered; absent (routes resolved before strategies existed): `ordered`. */
  readonly strategy?: RoutingStrategy;
  /**
   * The route's candidates in declared order; absent (routes resolved before nested routes existed): each target
   * is its own candidate, weight 1.
   */
  readonly candidates?: readonly RouteCandidate[];
  /** The route's version when it was resolved (routes changed at runtime); absent: the config file's. */
  readonly version?: number;
  /** The route's response cache; absent: no caching unless the call asks for it. */
  readonly cache?: ResponseCacheSpec;
}

/** The route's candidates: its own, or one per target in order for routes resolved before candidates existed. */
export function routeCandidates(
  route: Pick<ResolvedRoute, 'targets' | 'candidates'>,
): readonly RouteCandidate[] {
  return (
    route.candidates ??
    route.targets.map((target, index) => ({ targetIndexes: [index], weight: target.weight ?? 1 }))
  );
}

// A route with every target's provider kind and prices filled in, as recorded in workflow history. Types only.
import type { BreakerPolicy } from './route';
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
}

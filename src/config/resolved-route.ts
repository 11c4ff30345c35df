// A route with every target's provider kind and prices filled in, as recorded in workflow history. Types only.
import type { BreakerPolicy } from './route';
import type { FailureClass } from '../routing/failure-class';
import type { ProviderConfig } from './provider-schema';

export interface Prices {
  readonly inputUsdPerMillion: number;
  readonly cachedInputUsdPerMillion: number;
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

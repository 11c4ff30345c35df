// The breaker and budget steps of an attempt (DESIGN §2 steps 2, 3, 5). Workflow-safe.
// Until the breaker and ledger entities land, both gates admit every attempt and settle nothing; the routed
// call already goes through this interface so they plug in without reshaping the walk.
import type { ResolvedRoute, ResolvedTarget } from '../../config/resolved-route';
import type { FailureClass } from '../../routing/failure-class';
import type { SkipReason } from '../../routing/routing-record';

export type GateDecision =
  | { readonly admitted: true }
  | { readonly admitted: false; readonly reason: SkipReason };

export interface AttemptSettlement {
  readonly target: ResolvedTarget;
  readonly succeeded: boolean;
  readonly failureClass?: FailureClass;
  readonly costNanoUsd: number;
  readonly costKnown: boolean;
}

export interface AttemptGates {
  /** Asks the breaker, then reserves the attempt's bound; a refusal becomes a skip. */
  admit(route: ResolvedRoute, target: ResolvedTarget): Promise<GateDecision>;
  /** Reports the attempt's outcome to the breaker and settles its reservation. */
  settle(settlement: AttemptSettlement): Promise<void>;
}

export const admitEverything: AttemptGates = {
  admit: async () => ({ admitted: true }),
  settle: async () => undefined,
};

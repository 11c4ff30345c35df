// A routed call's explanation: the strategy's order and rejections, with the skips and the chosen candidate read
// from its attempts. Pure, workflow-safe.
import type { ResolvedRoute } from '../config/resolved-route';
import type { CandidateOrder } from './candidate-order';
import {
  AttemptOutcome,
  type AttemptRecord,
  type CandidateVerdict,
  type RoutingExplanation,
  type RoutingRecord,
} from './routing-record';

/** What the order decided before the walk; the walk's skips and its outcome complete it. */
export type OrderExplanation = Pick<RoutingExplanation, 'strategy' | 'considered' | 'reason' | 'rejected'>;

export function orderExplanation(order: CandidateOrder): OrderExplanation {
  return {
    strategy: order.strategy,
    considered: order.candidates.map((candidate) => candidate.name),
    reason: order.reason,
    rejected: order.rejected,
  };
}

/** `provider/model` of the target, with its nested route when it belongs to one: `p/m (route:pool)`. */
export function targetLabel(route: Pick<ResolvedRoute, 'targets'>, targetIndex: number): string {
  const target = route.targets[targetIndex]!;
  const name = `${target.provider}/${target.model}`;
  return target.via !== undefined ? `${name} (route:${target.via})` : name;
}

/** The whole explanation: each skipped target once per reason, and who served the call. */
export function explainCall(
  route: Pick<ResolvedRoute, 'targets'>,
  order: OrderExplanation,
  attempts: readonly AttemptRecord[],
  servedBy: RoutingRecord['servedBy'],
): RoutingExplanation {
  const skipped: CandidateVerdict[] = [];
  for (const attempt of attempts) {
    if (attempt.outcome !== AttemptOutcome.skipped) continue;
    const candidate = targetLabel(route, attempt.targetIndex);
    const why = attempt.skipReason ?? 'skipped';
    const reason = attempt.message ? `${why}: ${attempt.message}` : why;
    if (!skipped.some((verdict) => verdict.candidate === candidate && verdict.reason === reason)) {
      skipped.push({ candidate, reason });
    }
  }
  return {
    ...order,
    ...(servedBy ? { chosen: targetLabel(route, servedBy.targetIndex) } : {}),
    skipped,
  };
}

// A dry run of a routed call: which attempts it would make in which order, why, and what each may cost. Pure.
import type { GenerationRequest } from '../config/request';
import type { ResolvedRoute } from '../config/resolved-route';
import type { RoutingRequirements } from '../config/routed-call-input';
import type { PlannedAttempt } from './attempt-plan';
import { orderCandidates, readsObservations, type RoutingPreference } from './candidate-order';
import { orderExplanation, type OrderExplanation } from './routing-explanation';
import type { TargetObservation } from './target-observation';
import { conversationTraits } from '../config/conversation';
import { checkContextWindow, contextWindowMessage } from './context-window';
import { checkConversationFit } from './conversation-fit';
import { estimateInputTokens } from './estimate-tokens';
import { targetInputBound } from './media-bounds';
import { attemptBound, nanoToUsd, type NanoUsd } from './money';

export interface PlannedAttemptView {
  readonly attempt: number;
  readonly targetIndex: number;
  readonly provider: string;
  readonly model: string;
  readonly retry: number;
  /** The nested route the target belongs to; absent for the route's own targets. */
  readonly via?: string;
  readonly timeoutMs: number;
  /** Worst-case cost of this attempt, reserved before it is made. */
  readonly boundNanoUsd: NanoUsd;
  readonly boundUsd: number;
  /**
   * Set when the call would pass the target over: it cannot take the conversation (`unsupported_input`), or its
   * context window cannot hold the request (`context_window`).
   */
  readonly skip?: { readonly reason: 'context_window' | 'unsupported_input'; readonly message: string };
}

export interface CallPlan {
  readonly route: string;
  /**
   * Upper bound of the prompt tokens for any provider's tokenizer (see `estimateInputTokens`), images and
   * documents not included: what they cost depends on the target, and is in each attempt's bound.
   */
  readonly estimatedInputTokens: number;
  readonly maxOutputTokens: number;
  readonly deadlineMs?: number;
  readonly failoverOn: readonly string[];
  /**
   * The order the call would follow and why: the strategy, the candidates in order, the reason, and those the
   * call's `require` rejects. Planned without measurements unless given, so `fastest` and `fewest_failures`
   * show declared order and `weighted` its first share's leader; the reason says so.
   */
  readonly explanation: OrderExplanation;
  readonly attempts: readonly PlannedAttemptView[];
}

/** What the call asks of the order, and what the planner knows of the targets. */
export interface CallPlanOptions {
  readonly deadlineMs?: number;
  readonly prefer?: RoutingPreference;
  readonly require?: RoutingRequirements;
  /** A worker's measurements of each target (by target index). @default none: nothing measured */
  readonly observations?: readonly TargetObservation[];
}

export function planCall(
  route: ResolvedRoute,
  request: GenerationRequest,
  options: CallPlanOptions | number = {},
): CallPlan {
  // A bare number is the deadline, as callers passed it before the plan had an order.
  const { deadlineMs, prefer, require, observations } =
    typeof options === 'number' ? { deadlineMs: options } : options;
  const estimatedInputTokens = estimateInputTokens(request);
  const traits = conversationTraits(request);
  const deadlines = [route.deadlineMs, deadlineMs].filter((value): value is number => value !== undefined);
  const bounds = route.targets.map((target) =>
    attemptBound(
      target.prices,
      targetInputBound(target, estimatedInputTokens, traits).tokens,
      request.maxOutputTokens,
      traits.cacheTtl,
    ),
  );
  const skips = route.targets.map((target): PlannedAttemptView['skip'] => {
    const fit = checkConversationFit(target, request, traits);
    if (!fit.fits) return { reason: 'unsupported_input', message: fit.message };
    const input = targetInputBound(target, estimatedInputTokens, traits);
    const window = checkContextWindow(target, input.fitTokens, request.maxOutputTokens);
    return window.fits ? undefined : { reason: 'context_window', message: contextWindowMessage(window) };
  });
  const order = orderCandidates({
    route,
    ...(prefer ? { prefer } : {}),
    ...(require ? { require } : {}),
    boundsNanoUsd: bounds,
    ...(observations ? { observations } : {}),
  });
  const unmeasured =
    !observations &&
    readsObservations(route, { ...(prefer ? { prefer } : {}), ...(require ? { require } : {}) });
  const explanation = orderExplanation(order);
  // As the walk goes: each target with its retries; a nested route's targets until one it would not pass over.
  const planned: PlannedAttempt[] = [];
  for (const candidate of order.candidates) {
    for (const targetIndex of candidate.targetIndexes) {
      // A target passed over inside a nested route is one entry; a route's own keeps its retries' entries.
      const passedOver = skips[targetIndex] !== undefined;
      const retries = passedOver && candidate.route !== undefined ? 0 : route.targets[targetIndex]!.retries;
      for (let retry = 0; retry <= retries; retry += 1) planned.push({ targetIndex, retry });
      if (!passedOver) break;
    }
  }
  return {
    route: route.name,
    estimatedInputTokens,
    maxOutputTokens: request.maxOutputTokens,
    ...(deadlines.length ? { deadlineMs: Math.min(...deadlines) } : {}),
    failoverOn: route.failoverOn,
    explanation: unmeasured
      ? {
          ...explanation,
          reason: `${explanation.reason} (no measurements in a plan: a call orders by its worker's, and draws its own leader for weighted)`,
        }
      : explanation,
    attempts: planned.slice(0, route.maxAttempts).map((entry, index) => {
      const target = route.targets[entry.targetIndex]!;
      const boundNanoUsd = bounds[entry.targetIndex]!;
      const skip = skips[entry.targetIndex];
      return {
        attempt: index + 1,
        targetIndex: entry.targetIndex,
        provider: target.provider,
        model: target.model,
        retry: entry.retry,
        ...(target.via !== undefined ? { via: target.via } : {}),
        timeoutMs: target.timeoutMs,
        boundNanoUsd,
        boundUsd: nanoToUsd(boundNanoUsd),
        ...(skip ? { skip } : {}),
      };
    }),
  };
}

// A dry run of a routed call: which attempts it would make and what each may cost. Pure.
import type { GenerationRequest } from '../config/request';
import type { ResolvedRoute } from '../config/resolved-route';
import { planAttempts } from './attempt-plan';
import { checkContextWindow, contextWindowMessage } from './context-window';
import { estimateInputTokens } from './estimate-tokens';
import { attemptBound, nanoToUsd, type NanoUsd } from './money';

export interface PlannedAttemptView {
  readonly attempt: number;
  readonly targetIndex: number;
  readonly provider: string;
  readonly model: string;
  readonly retry: number;
  readonly timeoutMs: number;
  /** Worst-case cost of this attempt, reserved before it is made. */
  readonly boundNanoUsd: NanoUsd;
  readonly boundUsd: number;
  /** Set when the target's context window cannot hold the request: the call would pass it over. */
  readonly skip?: { readonly reason: 'context_window'; readonly message: string };
}

export interface CallPlan {
  readonly route: string;
  /** Upper bound of the prompt tokens for any provider's tokenizer (see `estimateInputTokens`). */
  readonly estimatedInputTokens: number;
  readonly maxOutputTokens: number;
  readonly deadlineMs?: number;
  readonly failoverOn: readonly string[];
  readonly attempts: readonly PlannedAttemptView[];
}

export function planCall(route: ResolvedRoute, request: GenerationRequest, deadlineMs?: number): CallPlan {
  const estimatedInputTokens = estimateInputTokens(request);
  const deadlines = [route.deadlineMs, deadlineMs].filter((value): value is number => value !== undefined);
  return {
    route: route.name,
    estimatedInputTokens,
    maxOutputTokens: request.maxOutputTokens,
    ...(deadlines.length ? { deadlineMs: Math.min(...deadlines) } : {}),
    failoverOn: route.failoverOn,
    attempts: planAttempts(route).map((planned, index) => {
      const target = route.targets[planned.targetIndex]!;
      const boundNanoUsd = attemptBound(target.prices, estimatedInputTokens, request.maxOutputTokens);
      const window = checkContextWindow(target, estimatedInputTokens, request.maxOutputTokens);
      return {
        attempt: index + 1,
        targetIndex: planned.targetIndex,
        provider: target.provider,
        model: target.model,
        retry: planned.retry,
        timeoutMs: target.timeoutMs,
        boundNanoUsd,
        boundUsd: nanoToUsd(boundNanoUsd),
        ...(window.fits
          ? {}
          : { skip: { reason: 'context_window' as const, message: contextWindowMessage(window) } }),
      };
    }),
  };
}

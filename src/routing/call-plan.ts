// A dry run of a routed call: which attempts it would make and what each may cost. Pure.
import type { GenerationRequest } from '../config/request';
import type { ResolvedRoute } from '../config/resolved-route';
import { planAttempts } from './attempt-plan';
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
  readonly attempts: readonly PlannedAttemptView[];
}

export function planCall(route: ResolvedRoute, request: GenerationRequest, deadlineMs?: number): CallPlan {
  const estimatedInputTokens = estimateInputTokens(request);
  const traits = conversationTraits(request);
  const deadlines = [route.deadlineMs, deadlineMs].filter((value): value is number => value !== undefined);
  return {
    route: route.name,
    estimatedInputTokens,
    maxOutputTokens: request.maxOutputTokens,
    ...(deadlines.length ? { deadlineMs: Math.min(...deadlines) } : {}),
    failoverOn: route.failoverOn,
    attempts: planAttempts(route).map((planned, index) => {
      const target = route.targets[planned.targetIndex]!;
      const input = targetInputBound(target, estimatedInputTokens, traits);
      const boundNanoUsd = attemptBound(
        target.prices,
        input.tokens,
        request.maxOutputTokens,
        traits.cacheTtl,
      );
      const fit = checkConversationFit(target, request, traits);
      const window = checkContextWindow(target, input.fitTokens, request.maxOutputTokens);
      return {
        attempt: index + 1,
        targetIndex: planned.targetIndex,
        provider: target.provider,
        model: target.model,
        retry: planned.retry,
        timeoutMs: target.timeoutMs,
        boundNanoUsd,
        boundUsd: nanoToUsd(boundNanoUsd),
        ...(!fit.fits
          ? { skip: { reason: 'unsupported_input' as const, message: fit.message } }
          : window.fits
            ? {}
            : { skip: { reason: 'context_window' as const, message: contextWindowMessage(window) } }),
      };
    }),
  };
}

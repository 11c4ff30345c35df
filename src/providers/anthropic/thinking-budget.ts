// Reasoning options as Anthropic's extended-thinking config (a token budget below max_tokens). Pure; worker side.
import type { ThinkingConfigEnabled } from '@anthropic-ai/sdk/resources/messages';
import type { ReasoningOptions } from '../../config/request';
import { ANTHROPIC_MIN_THINKING_BUDGET } from '../../routing/kind-options';
import type { RequestRefusal } from '../refuse-request';

/** Thinking budget per effort, in tokens, before it is held below `max_tokens`. */
export const EFFORT_BUDGETS: Readonly<Record<NonNullable<ReasoningOptions['effort']>, number>> = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 16384,
};

/**
 * The `thinking` field. Thinking tokens count towards `max_tokens`, and Anthropic requires
 * 1024 <= budget_tokens < max_tokens: an explicit budget that does not fit is refused, an effort's budget is
 * held below `max_tokens` (and refused when not even the minimum fits).
 */
export function thinkingConfig(
  reasoning: ReasoningOptions,
  maxTokens: number,
  refuse: RequestRefusal,
): ThinkingConfigEnabled {
  if (reasoning.budgetTokens !== undefined) {
    if (reasoning.budgetTokens < ANTHROPIC_MIN_THINKING_BUDGET) {
      throw refuse(
        'reasoning.budgetTokens',
        `Anthropic needs at least ${ANTHROPIC_MIN_THINKING_BUDGET} tokens`,
      );
    }
    if (reasoning.budgetTokens >= maxTokens) {
      throw refuse(
        'reasoning.budgetTokens',
        `must be less than maxOutputTokens (${maxTokens}), which the thinking counts towards`,
      );
    }
    return { type: 'enabled', budget_tokens: reasoning.budgetTokens };
  }
  if (reasoning.effort === undefined) throw refuse('reasoning', 'takes an effort or a budgetTokens');
  if (maxTokens <= ANTHROPIC_MIN_THINKING_BUDGET) {
    throw refuse(
      'reasoning',
      `maxOutputTokens (${maxTokens}) leaves no room for Anthropic's smallest thinking budget (${ANTHROPIC_MIN_THINKING_BUDGET} tokens)`,
    );
  }
  return { type: 'enabled', budget_tokens: Math.min(EFFORT_BUDGETS[reasoning.effort], maxTokens - 1) };
}

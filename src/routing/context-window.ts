// Whether a target's context window can hold a request: the prompt's token bound plus its output cap. Pure.
import type { ResolvedTarget } from '../config/resolved-route';

export type WindowCheck =
  | { readonly fits: true }
  | {
      readonly fits: false;
      /** The prompt's token bound plus `maxOutputTokens`. */
      readonly neededTokens: number;
      readonly windowTokens: number;
    };

/**
 * Checks a target's configured `contextWindow` (no window configured: it fits). The prompt side is the same
 * upper bound the budget reserves by (`estimateInputTokens`), so a target is only ever passed over when the
 * request might not fit, never sent a request the provider could refuse as too long.
 */
export function checkContextWindow(
  target: Pick<ResolvedTarget, 'contextWindow'>,
  inputTokens: number,
  maxOutputTokens: number,
): WindowCheck {
  if (target.contextWindow === undefined) return { fits: true };
  const neededTokens = inputTokens + maxOutputTokens;
  return neededTokens <= target.contextWindow
    ? { fits: true }
    : { fits: false, neededTokens, windowTokens: target.contextWindow };
}

/** The record's message of a `context_window` skip. */
export function contextWindowMessage(check: Extract<WindowCheck, { fits: false }>): string {
  return `needs up to ${check.neededTokens} tokens (prompt bound plus maxOutputTokens), window ${check.windowTokens}`;
}

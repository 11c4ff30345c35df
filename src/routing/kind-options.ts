// Request options one provider kind cannot honour as asked, whatever the model: one home for the rule, read by the
// route walk (to pass such a target over before sending) and by the adapters (as their last guard). Pure; workflow-safe.
import type { GenerationRequest, ProviderKind } from '../config/request';

/** A request option the kind cannot honour: the neutral field and why. */
export interface OptionMismatch {
  /** Path into the neutral request, e.g. `topK` or `reasoning.budgetTokens`. */
  readonly field: string;
  readonly reason: string;
}

/** Anthropic's highest temperature. */
export const ANTHROPIC_MAX_TEMPERATURE = 1;
/** With thinking on Anthropic takes top-p only from this value up. */
export const ANTHROPIC_MIN_TOP_P_WITH_THINKING = 0.95;
/** Anthropic's smallest thinking budget, in tokens; thinking counts towards `max_tokens`, and must stay below it. */
export const ANTHROPIC_MIN_THINKING_BUDGET = 1024;
/** OpenAI's own limit on stop sequences (compatible servers such as vLLM take more). */
export const OPENAI_MAX_STOP_SEQUENCES = 4;
/** The smallest `max_output_tokens` the Responses API takes (`integer_below_min_value` below it). */
export const RESPONSES_MIN_OUTPUT_TOKENS = 16;

function anthropicMismatch(request: GenerationRequest): OptionMismatch | undefined {
  if (request.seed !== undefined) return { field: 'seed', reason: 'Anthropic has no seed' };
  if (request.temperature !== undefined && request.temperature > ANTHROPIC_MAX_TEMPERATURE) {
    return { field: 'temperature', reason: `Anthropic takes 0 to ${ANTHROPIC_MAX_TEMPERATURE}` };
  }
  const reasoning = request.reasoning;
  if (reasoning === undefined) return undefined;
  // 1 is Anthropic's default, and the one value it takes with thinking on (coding agents send it).
  if (request.temperature !== undefined && request.temperature !== 1) {
    return {
      field: 'temperature',
      reason: 'Anthropic takes no temperature but 1 with reasoning (thinking) on',
    };
  }
  if (request.topK !== undefined) {
    return { field: 'topK', reason: 'Anthropic does not take top_k with reasoning (thinking) on' };
  }
  if (request.topP !== undefined && request.topP < ANTHROPIC_MIN_TOP_P_WITH_THINKING) {
    return {
      field: 'topP',
      reason: `Anthropic takes only ${ANTHROPIC_MIN_TOP_P_WITH_THINKING} to 1 with reasoning (thinking) on`,
    };
  }
  const choice = request.toolChoice;
  if (choice === 'required' || (typeof choice === 'object' && choice.type === 'tool')) {
    return { field: 'toolChoice', reason: 'Anthropic cannot force a tool call with reasoning (thinking) on' };
  }
  if (reasoning.budgetTokens !== undefined && reasoning.budgetTokens >= request.maxOutputTokens) {
    return {
      field: 'reasoning.budgetTokens',
      reason: `must be less than maxOutputTokens (${request.maxOutputTokens}), which Anthropic's thinking counts towards`,
    };
  }
  if (reasoning.effort !== undefined && request.maxOutputTokens <= ANTHROPIC_MIN_THINKING_BUDGET) {
    return {
      field: 'reasoning',
      reason: `maxOutputTokens (${request.maxOutputTokens}) leaves no room for Anthropic's smallest thinking budget (${ANTHROPIC_MIN_THINKING_BUDGET} tokens)`,
    };
  }
  return undefined;
}

/**
 * The first option of `request` that `kind` cannot honour as asked, or undefined. Sending it would end in the
 * provider's 400, and dropping it would change the answer: such a target is passed over instead, and the next
 * target of another kind may take the request as it is.
 */
export function optionMismatch(kind: ProviderKind, request: GenerationRequest): OptionMismatch | undefined {
  switch (kind) {
    case 'anthropic':
      return anthropicMismatch(request);
    case 'openai':
      if ((request.stopSequences?.length ?? 0) > OPENAI_MAX_STOP_SEQUENCES) {
        return {
          field: 'stopSequences',
          reason: `OpenAI takes at most ${OPENAI_MAX_STOP_SEQUENCES} stop sequences`,
        };
      }
      if (request.topK !== undefined)
        return { field: 'topK', reason: 'OpenAI Chat Completions has no top_k parameter' };
      return undefined;
    case 'openai-compatible':
      return undefined;
    case 'openai-responses':
      // The Responses API has no stop, seed or top_k parameter.
      if (request.stopSequences?.length)
        return { field: 'stopSequences', reason: 'the OpenAI Responses API has no stop sequences' };
      if (request.seed !== undefined)
        return { field: 'seed', reason: 'the OpenAI Responses API has no seed' };
      if (request.topK !== undefined)
        return { field: 'topK', reason: 'the OpenAI Responses API has no top_k' };
      // Raising the bound would raise what the attempt may cost, so a smaller one is refused.
      if (request.maxOutputTokens < RESPONSES_MIN_OUTPUT_TOKENS)
        return {
          field: 'maxOutputTokens',
          reason: `the OpenAI Responses API takes at least ${RESPONSES_MIN_OUTPUT_TOKENS}`,
        };
      return undefined;
    default:
      return kind satisfies never;
  }
}

// Maps a Responses API status (and why it is incomplete) to the neutral finish reason. Pure; worker side.
import type { FinishReason } from '../types';

/**
 * A response has no finish reason of its own: `status` says whether it completed, and `incomplete_details.reason`
 * why not. A completed response that called functions stopped to have them run. `raw` keeps the provider's word:
 * the incomplete reason when there is one, else the status.
 * @param status the response's `status` (`completed`, `incomplete`, …)
 * @param incompleteReason `incomplete_details.reason` (`max_output_tokens`, `content_filter`)
 * @param calledFunctions whether the output holds `function_call` items
 */
export function mapResponsesFinishReason(
  status: string | null | undefined,
  incompleteReason: string | null | undefined,
  calledFunctions: boolean,
): FinishReason {
  if (status === 'incomplete') {
    const raw = incompleteReason ?? status;
    switch (incompleteReason) {
      case 'max_output_tokens':
        return { unified: 'length', raw };
      case 'content_filter':
        return { unified: 'content_filter', raw };
      default:
        return { unified: 'other', raw };
    }
  }
  if (status === 'completed') return { unified: calledFunctions ? 'tool_calls' : 'stop', raw: status };
  return { unified: 'other', raw: status ?? null };
}

// Maps an Anthropic `stop_reason` to the neutral finish reason. Pure; worker side.
import type { FinishReason } from '../types';

export function mapAnthropicStopReason(raw: string | null | undefined): FinishReason {
  const value = raw ?? null;
  switch (value) {
    case 'end_turn':
    case 'stop_sequence':
      return { unified: 'stop', raw: value };
    // `model_context_window_exceeded`: the window filled up mid-answer; truncated output, like max_tokens.
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return { unified: 'length', raw: value };
    case 'tool_use':
      return { unified: 'tool_calls', raw: value };
    case 'refusal':
      return { unified: 'refusal', raw: value };
    default:
      // `pause_turn` (a server tool paused a long turn) and anything newer.
      return { unified: 'other', raw: value };
  }
}

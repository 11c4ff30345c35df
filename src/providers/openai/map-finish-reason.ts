// Maps an OpenAI `finish_reason` to the neutral finish reason. Pure; worker side.
import type { FinishReason } from '../types';

export function mapOpenAIFinishReason(raw: string | null | undefined): FinishReason {
  const value = raw ?? null;
  switch (value) {
    case 'stop':
      return { unified: 'stop', raw: value };
    case 'length':
      return { unified: 'length', raw: value };
    // `function_call` is the pre-tools name some compatible servers still send.
    case 'tool_calls':
    case 'function_call':
      return { unified: 'tool_calls', raw: value };
    case 'content_filter':
      return { unified: 'content_filter', raw: value };
    default:
      return { unified: 'other', raw: value };
  }
}

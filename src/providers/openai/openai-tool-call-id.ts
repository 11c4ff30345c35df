// Tool call ids as Chat Completions accepts them (at most 40 characters), mapped deterministically. Pure; worker side.
import { toolCallIdFor, type ToolCallIdFormat } from '../tool-call-id';

/**
 * OpenAI refuses a `tool_calls[].id` or `tool_call_id` longer than 40 characters (`string_above_max_length`) and
 * takes any characters. Ids made by other providers or by callers can be longer, so they are shortened, with a
 * hash of the whole id, the same way for the call and for the result that names it.
 */
export const OPENAI_TOOL_CALL_ID: ToolCallIdFormat = {
  // Nothing is refused by character; a pattern that never matches keeps every character as it is.
  invalidCharacter: /(?!)/g,
  maxLength: 40,
};

/** `id` as a Chat Completions tool call id: unchanged when it fits, else shortened with a hash suffix. */
export function openAIToolCallId(id: string): string {
  return toolCallIdFor(id, OPENAI_TOOL_CALL_ID);
}

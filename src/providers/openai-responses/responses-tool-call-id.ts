// Tool call ids as the Responses API accepts them (at most 64 characters), mapped deterministically. Pure; worker side.
import { toolCallIdFor, type ToolCallIdFormat } from '../tool-call-id';

/**
 * The Responses API refuses a `call_id` longer than 64 characters (`string_above_max_length`) and takes any
 * characters. Ids made by other providers or by callers can be longer, so they are shortened, with a hash of the
 * whole id, the same way for the `function_call` and for the `function_call_output` that names it.
 */
export const RESPONSES_CALL_ID: ToolCallIdFormat = {
  // Nothing is refused by character; a pattern that never matches keeps every character as it is.
  invalidCharacter: /(?!)/g,
  maxLength: 64,
};

/** `id` as a Responses `call_id`: unchanged when it fits, else shortened with a hash suffix. */
export function responsesCallId(id: string): string {
  return toolCallIdFor(id, RESPONSES_CALL_ID);
}

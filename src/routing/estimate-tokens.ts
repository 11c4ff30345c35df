// A prompt-token estimate that leans high, for budget bounds before a call. Pure.
import type { GenerationRequest } from '../config/request';

/** Tokens added per message for role markers and separators; providers add a handful. */
const PER_MESSAGE_OVERHEAD = 8;

/**
 * Estimates prompt tokens as one token per 3 UTF-16 code units (real tokenizers average about 4 characters
 * per token for English, so this overestimates), plus per-message overhead and the tool and schema text.
 */
export function estimateInputTokens(request: GenerationRequest): number {
  let characters = request.system?.length ?? 0;
  for (const message of request.messages) characters += message.content.length;
  if (request.tools) characters += JSON.stringify(request.tools).length;
  if (request.jsonSchema) characters += JSON.stringify(request.jsonSchema).length;
  return Math.ceil(characters / 3) + PER_MESSAGE_OVERHEAD * (request.messages.length + 1);
}

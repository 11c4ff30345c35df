// Deterministic mapping of tool call ids into what a provider's format accepts. Pure; workflow-safe (no imports).

/** What a provider accepts as a tool call id. */
export interface ToolCallIdFormat {
  /** Matches one character the format does NOT accept (must carry the `g` flag). */
  readonly invalidCharacter: RegExp;
  /** Longest id the format accepts, in UTF-16 code units. @default unlimited */
  readonly maxLength?: number;
}

/** Anthropic: `tool_use.id` and `tool_result.tool_use_id` must match `^[a-zA-Z0-9_-]+$`. */
export const ANTHROPIC_TOOL_CALL_ID: ToolCallIdFormat = { invalidCharacter: /[^a-zA-Z0-9_-]/g };

/** Characters of the hash suffix, plus one for the `_` before it. */
const HASH_LENGTH = 8;
const SUFFIX_LENGTH = HASH_LENGTH + 1;

/**
 * 32-bit FNV-1a over the UTF-16 code units, as 8 hex digits. Not for security: it only keeps two different ids
 * that sanitize to the same text apart, and it needs no crypto module, so workflow code may call it too.
 */
function fnv1aHex(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(HASH_LENGTH, '0');
}

/**
 * `id` as `format` accepts it: unchanged when it already fits, else its bad characters replaced by `_`, cut to
 * fit, and a hash of the whole original id appended. The same id always maps to the same text, so a tool call
 * and the tool result that names it stay paired when both are mapped.
 */
export function toolCallIdFor(id: string, format: ToolCallIdFormat): string {
  const fitsLength = format.maxLength === undefined || id.length <= format.maxLength;
  // A fresh RegExp so the caller's `g` flag state (lastIndex) never leaks between calls.
  const invalid = new RegExp(format.invalidCharacter.source, 'g');
  if (id.length > 0 && fitsLength && !invalid.test(id)) return id;
  const keep = format.maxLength === undefined ? id.length : Math.max(0, format.maxLength - SUFFIX_LENGTH);
  const cleaned = id.replace(invalid, '_').slice(0, keep);
  return `${cleaned}_${fnv1aHex(id)}`;
}

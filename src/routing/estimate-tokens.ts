// An upper bound of a request's prompt tokens for any text, for the budget bound of an attempt. Pure; workflow-safe.
import { SwitchyardError } from '../config/branded-error';
import { partsOf, systemParts, type MessagePart } from '../config/conversation';
import type { GenerationRequest } from '../config/request';
import { NORMALIZATION_EXPANSION_RANGES } from './normalization-expansion';

// Why bytes bound tokens: a byte-level BPE tokenizer (OpenAI's o200k_base and cl100k_base, the Claude
// tokenizers, Llama 3's and most open models') splits the UTF-8 bytes of the text into tokens of at least one
// byte each, so it never makes more tokens than the text has bytes; SentencePiece with byte fallback (Llama 2,
// Mistral) makes at most one token per byte plus a prefix token, which the per-message allowance covers. A
// tokenizer that normalizes first (the published Claude 2 tokenizer applied NFKC) sees more bytes when a
// character decomposes (U+FDFA, 3 bytes, is 33 after NFKC), so each code point counts the most bytes it can take
// under NFC or NFKC (the generated table). What the provider adds beyond the text is counted in tokens below,
// generously where it is not documented.

/**
 * Tokens a provider adds around each message and the system prompt: role markers and separators. OpenAI's
 * cookbook counts 3 per message (and 1 per `name`) for its current chat models
 * (https://cookbook.openai.com/examples/how_to_count_tokens_with_tiktoken); Anthropic does not document its
 * own (a one-message call with a system prompt measures about 6 beyond the text); open models' chat
 * templates add a header and an end marker of up to about 10.
 */
export const PER_MESSAGE_OVERHEAD_TOKENS = 16;

/**
 * Tokens a provider adds once per request: OpenAI primes every reply with 3 (`<|start|>assistant<|message|>`,
 * same cookbook); open models' chat templates add a begin marker and sometimes a default system line (Llama
 * 3.1's knowledge-cutoff and date lines are about 25).
 */
export const PER_REQUEST_OVERHEAD_TOKENS = 128;

/**
 * Tokens a provider adds once when a request has tools. Anthropic adds a tool-use system prompt of up to 530
 * tokens (Claude 3 Opus with `tool_choice: auto`; 346 for the Claude 4 models; see
 * https://docs.anthropic.com/en/docs/tool-use-pricing-and-tokens); OpenAI wraps the definitions in a
 * `namespace functions { … }` block; open models' templates add an instruction paragraph.
 */
export const TOOLS_OVERHEAD_TOKENS = 1024;

/**
 * Tokens a provider adds per tool beyond the bytes of its definition: OpenAI's cookbook counts 7 to open and 12
 * to close each function for gpt-4o and gpt-4o-mini.
 */
export const PER_TOOL_OVERHEAD_TOKENS = 64;

/**
 * Tokens a provider adds once for a JSON-schema answer format (`response_format` / `output_config`): the
 * schema is rendered into a system prompt like a tool's, with an instruction around it. Not documented by
 * either provider; as generous as the tools' allowance.
 */
export const JSON_SCHEMA_OVERHEAD_TOKENS = 1024;

/**
 * Bytes allowed per JSON node (an object member or an array element) at nesting `depth`, beyond its own JSON:
 * providers do not tokenize tool schemas as compact JSON but render them — OpenAI as TypeScript-like
 * declarations with `// description` comments and indentation, open models' templates as JSON indented by up to
 * 4 spaces a level, one node per line — which adds a line break, indentation and separators per node.
 */
function nodeAllowanceBytes(depth: number): number {
  return 4 * depth + 16;
}

/** Decoded expansion ranges: `starts[i]..ends[i]` take `extras[i]` more bytes than their own UTF-8. */
interface ExpansionTable {
  readonly starts: number[];
  readonly ends: number[];
  readonly extras: number[];
}

// Decoded on first use rather than at module load: workflow bundles evaluate their modules once per workflow.
let expansionTable: ExpansionTable | undefined;

function expansions(): ExpansionTable {
  if (expansionTable) return expansionTable;
  const table: ExpansionTable = { starts: [], ends: [], extras: [] };
  for (const entry of NORMALIZATION_EXPANSION_RANGES.split(',')) {
    const [range = '', extra = '0'] = entry.split(':');
    const [start = '0', count = '0'] = range.split('+');
    const first = parseInt(start, 36);
    table.starts.push(first);
    table.ends.push(first + parseInt(count, 36));
    table.extras.push(parseInt(extra, 36));
  }
  expansionTable = table;
  return table;
}

/** Bytes `codePoint` (≥ 0x80) can take beyond its own UTF-8 once normalized (NFC or NFKC). */
function expansionBytes(codePoint: number): number {
  const { starts, ends, extras } = expansions();
  let low = 0;
  let high = starts.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (codePoint < starts[middle]!) high = middle - 1;
    else if (codePoint > ends[middle]!) low = middle + 1;
    else return extras[middle]!;
  }
  return 0;
}

/** A lone surrogate reaches the provider as a `\uD800` escape (6 bytes): JSON.stringify writes it so. */
const LONE_SURROGATE_BYTES = 6;

/**
 * The most bytes `text` can take as a tokenizer sees it: its UTF-8 bytes, each code point counted at the most
 * it takes under NFC or NFKC normalization, and a lone surrogate at the 6 bytes of its escape.
 */
export function textBoundBytes(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index += 1) {
    const unit = text.charCodeAt(index);
    if (unit < 0x80) {
      bytes += 1;
    } else if (unit < 0x800) {
      bytes += 2 + expansionBytes(unit);
    } else if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = index + 1 < text.length ? text.charCodeAt(index + 1) : 0;
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4 + expansionBytes(0x10000 + ((unit - 0xd800) << 10) + (next - 0xdc00));
        index += 1;
      } else {
        bytes += LONE_SURROGATE_BYTES;
      }
    } else if (unit >= 0xdc00 && unit <= 0xdfff) {
      bytes += LONE_SURROGATE_BYTES;
    } else {
      bytes += 3 + expansionBytes(unit);
    }
  }
  return bytes;
}

/**
 * The most bytes a string inside a tool definition or schema can take once rendered: quotes, then each
 * character as itself, or escaped (`\"`, `\u00e9` when a template escapes non-ASCII: 6 bytes per UTF-16 unit),
 * whichever is more; a line break may become a new comment line with its indentation.
 */
function jsonStringBoundBytes(text: string, depth: number): number {
  let bytes = 2;
  for (let index = 0; index < text.length; index += 1) {
    const unit = text.charCodeAt(index);
    if (unit === 0x0a) bytes += 6 + 4 * depth;
    else if (unit < 0x20 || unit === 0x22 || unit === 0x5c) bytes += 6;
    else if (unit < 0x80) bytes += 1;
    else bytes += Math.max(6, textBoundBytes(text[index]!));
  }
  // A surrogate pair was counted as two lone units of 6 bytes each, which covers its 4 bytes of UTF-8 and its
  // 12-byte escape, but not what normalization may add to an astral code point: that is added here.
  return bytes + surrogatePairExpansions(text);
}

/** Expansion bytes of the astral code points in `text` (the per-unit count above cannot see them). */
function surrogatePairExpansions(text: string): number {
  let bytes = 0;
  for (let index = 0; index + 1 < text.length; index += 1) {
    const unit = text.charCodeAt(index);
    const next = text.charCodeAt(index + 1);
    if (unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      bytes += expansionBytes(0x10000 + ((unit - 0xd800) << 10) + (next - 0xdc00));
      index += 1;
    }
  }
  return bytes;
}

/** Thrown for a value that JSON cannot carry to a provider (a cycle); the caller's request is at fault. */
export class UnserializableRequestError extends SwitchyardError {
  static override readonly brand: string = 'switchyard.UnserializableRequestError';

  override readonly name = 'UnserializableRequestError';
}

/**
 * The most bytes a JSON value (a tool definition, a JSON schema) can take once a provider has rendered it: its
 * JSON, each string by {@link jsonStringBoundBytes}, plus {@link nodeAllowanceBytes} per member and element.
 * Walked with an explicit stack, so a deeply nested schema cannot overflow the call stack of a workflow.
 */
export function jsonBoundBytes(root: unknown): number {
  let bytes = 0;
  // `exit` entries take an object off the current path again, which is how a cycle is told from sharing.
  const stack: ({ value: unknown; depth: number } | { exit: object })[] = [{ value: root, depth: 0 }];
  const onPath = new Set<object>();
  while (stack.length > 0) {
    const entry = stack.pop()!;
    if ('exit' in entry) {
      onPath.delete(entry.exit);
      continue;
    }
    const { value, depth } = entry;
    if (typeof value === 'string') bytes += jsonStringBoundBytes(value, depth);
    else if (typeof value === 'number') bytes += Number.isFinite(value) ? String(value).length : 4;
    else if (typeof value === 'boolean') bytes += 5;
    else if (value === null) bytes += 4;
    else if (typeof value === 'object') {
      if (onPath.has(value)) throw new UnserializableRequestError('a tool or JSON schema contains a cycle');
      onPath.add(value);
      stack.push({ exit: value });
      bytes += 2;
      const children = Array.isArray(value)
        ? value
        : Object.entries(value as Record<string, unknown>).flatMap(([key, child]) =>
            // JSON drops members whose value is undefined (or a function); so do we.
            child === undefined || typeof child === 'function' ? [] : [key, child],
          );
      for (const child of children) {
        bytes += nodeAllowanceBytes(depth + 1);
        stack.push({ value: child, depth: depth + 1 });
      }
    }
    // undefined, functions and symbols are dropped by JSON and cost nothing.
  }
  return bytes;
}

/**
 * An upper bound of the prompt tokens any provider's tokenizer counts for `request`, for the worst-case cost
 * reserved before each attempt. It holds for any text under one assumption: the tokenizer makes at
 * most one token per byte of the (possibly NFC- or NFKC-normalized) UTF-8 text it sees — true of byte-level BPE
 * and of SentencePiece with byte fallback. It counts the bytes of every text the provider receives (messages,
 * system prompt, tool definitions and JSON schema as rendered) plus the provider's own additions per message,
 * per request and for tools, and so runs well above the real count for English (about 4 bytes a token) and
 * closer to it for CJK and emoji, where a token is 1-3 characters.
 */
export function estimateInputTokens(request: GenerationRequest): number {
  let tokens = PER_REQUEST_OVERHEAD_TOKENS;
  if (request.system !== undefined) {
    const parts = systemParts(request.system);
    // Parts reach a single-string format joined by a blank line (2 bytes each).
    tokens += PER_MESSAGE_OVERHEAD_TOKENS + 2 * (parts.length - 1);
    for (const part of parts) tokens += textBoundBytes(part.text);
  }
  for (const message of request.messages) {
    tokens += PER_MESSAGE_OVERHEAD_TOKENS;
    for (const part of partsOf(message)) tokens += partBoundTokens(part);
  }
  if (request.tools && request.tools.length > 0) {
    tokens += TOOLS_OVERHEAD_TOKENS;
    for (const tool of request.tools) tokens += PER_TOOL_OVERHEAD_TOKENS + jsonBoundBytes(tool);
  }
  if (request.jsonSchema !== undefined) {
    tokens += JSON_SCHEMA_OVERHEAD_TOKENS + jsonBoundBytes(request.jsonSchema);
  }
  return tokens;
}

/**
 * Tokens a provider adds around each part beyond its text: a tool call's or result's markers and id (OpenAI
 * renders each call as its own message, Anthropic as a block with an id), a reasoning block's markers.
 */
export const PER_PART_OVERHEAD_TOKENS = 32;

/**
 * The bound of one part's text. Images and documents count only their wrapper here: what they cost depends on
 * the target (see `media-bounds.ts`).
 */
function partBoundTokens(part: MessagePart): number {
  switch (part.type) {
    case 'text':
      return textBoundBytes(part.text);
    case 'image':
    case 'document':
      return PER_PART_OVERHEAD_TOKENS;
    case 'tool_call':
      return (
        PER_PART_OVERHEAD_TOKENS +
        textBoundBytes(part.id) +
        textBoundBytes(part.name) +
        textBoundBytes(part.arguments)
      );
    case 'tool_result': {
      let tokens = PER_PART_OVERHEAD_TOKENS + textBoundBytes(part.callId);
      if (typeof part.content === 'string') return tokens + textBoundBytes(part.content);
      for (const inner of part.content) tokens += partBoundTokens(inner);
      return tokens;
    }
    case 'reasoning':
      // A signature or redacted block is opaque; its bytes bound what the provider may decode it to.
      return (
        PER_PART_OVERHEAD_TOKENS +
        textBoundBytes(part.text) +
        (part.signature === undefined ? 0 : textBoundBytes(part.signature)) +
        (part.redactedData === undefined ? 0 : textBoundBytes(part.redactedData))
      );
    default:
      return part satisfies never;
  }
}

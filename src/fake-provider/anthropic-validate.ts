// The fake Anthropic's request validation: what the real Messages API refuses with a 400, in its words. Node side; test/bench.
import { isRecord } from './content-text';
import { verifyThinking } from './thinking-signature';

/** A problem found, as the message of the 400 `invalid_request_error`; undefined when the request is fine. */
type Problem = string | undefined;

/** Top-level fields the Messages API knows; anything else is "Extra inputs are not permitted". */
const KNOWN_FIELDS = new Set([
  'model',
  'messages',
  'max_tokens',
  'system',
  'temperature',
  'top_p',
  'top_k',
  'stop_sequences',
  'stream',
  'tools',
  'tool_choice',
  'thinking',
  'metadata',
  'output_config',
  'service_tier',
  'cache_control',
  'container',
  'context_management',
  'inference_geo',
  'mcp_servers',
  'speed',
]);

const ID_PATTERN = /^[a-zA-Z0-9_-]+$/;
const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,128}$/;
const BASE64_PATTERN = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const MIN_THINKING_BUDGET = 1024;
const MAX_CACHE_BREAKPOINTS = 4;

/** The first bytes each accepted image type starts with (the real API checks the data is what it claims). */
const IMAGE_SIGNATURES: Readonly<Record<string, (bytes: Buffer) => boolean>> = {
  'image/png': (bytes) =>
    bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  'image/jpeg': (bytes) => bytes.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff])),
  'image/gif': (bytes) => bytes.subarray(0, 4).toString('latin1') === 'GIF8',
  'image/webp': (bytes) =>
    bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP',
};

function decodeBase64(data: unknown): Buffer | undefined {
  if (typeof data !== 'string' || data === '' || !BASE64_PATTERN.test(data)) return undefined;
  return Buffer.from(data, 'base64');
}

function checkCacheControl(value: unknown, path: string): Problem {
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value) || value.type !== 'ephemeral')
    return `${path}.cache_control.type: Input should be 'ephemeral'`;
  if (value.ttl !== undefined && value.ttl !== '5m' && value.ttl !== '1h') {
    return `${path}.cache_control.ttl: Input should be '5m' or '1h'`;
  }
  return undefined;
}

function checkText(block: Record<string, unknown>, path: string): Problem {
  if (typeof block.text !== 'string') return `${path}.text: Field required`;
  if (block.text === '') return 'messages: text content blocks must be non-empty';
  return checkCacheControl(block.cache_control, path);
}

function checkImage(block: Record<string, unknown>, path: string): Problem {
  const source = block.source;
  if (!isRecord(source)) return `${path}.source: Field required`;
  switch (source.type) {
    case 'base64': {
      const mediaType = source.media_type;
      const matches = typeof mediaType === 'string' ? IMAGE_SIGNATURES[mediaType] : undefined;
      if (matches === undefined) {
        return `${path}.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`;
      }
      const bytes = decodeBase64(source.data);
      if (bytes === undefined) return `${path}.source.base64: invalid base64 data`;
      if (!matches(bytes)) {
        return `${path}.source.base64.data: Image does not match the provided media type ${String(mediaType)}`;
      }
      break;
    }
    case 'url':
      if (typeof source.url !== 'string' || !/^https?:\/\//i.test(source.url)) {
        return `${path}.source.url.url: Input should be a valid URL`;
      }
      break;
    default:
      return `${path}.source: Input tag '${String(source.type)}' found using 'type' does not match any of the expected tags: 'base64', 'url', 'file'`;
  }
  return checkCacheControl(block.cache_control, path);
}

function checkDocument(block: Record<string, unknown>, path: string): Problem {
  const source = block.source;
  if (!isRecord(source)) return `${path}.source: Field required`;
  switch (source.type) {
    case 'base64': {
      if (source.media_type !== 'application/pdf') {
        return `${path}.source.base64.media_type: Input should be 'application/pdf'`;
      }
      const bytes = decodeBase64(source.data);
      if (bytes === undefined) return `${path}.source.base64: invalid base64 data`;
      if (bytes.subarray(0, 5).toString('latin1') !== '%PDF-') return 'The PDF specified was not valid.';
      break;
    }
    case 'text':
    case 'url':
      break;
    default:
      return `${path}.source: Input tag '${String(source.type)}' found using 'type' does not match any of the expected tags: 'base64', 'text', 'url', 'content', 'file'`;
  }
  return checkCacheControl(block.cache_control, path);
}

function checkToolResult(block: Record<string, unknown>, path: string): Problem {
  if (typeof block.tool_use_id !== 'string' || !ID_PATTERN.test(block.tool_use_id)) {
    return `${path}.tool_result.tool_use_id: String should match pattern '^[a-zA-Z0-9_-]+$'`;
  }
  const content = block.content;
  if (Array.isArray(content)) {
    for (const [index, inner] of content.entries()) {
      const innerPath = `${path}.content.${index}`;
      if (!isRecord(inner)) return `${innerPath}: Input should be a valid dictionary`;
      const problem =
        inner.type === 'text'
          ? checkText(inner, innerPath)
          : inner.type === 'image'
            ? checkImage(inner, innerPath)
            : inner.type === 'document'
              ? checkDocument(inner, innerPath)
              : `${innerPath}.type: Input tag '${String(inner.type)}' found using 'type' does not match any of the expected tags: 'text', 'image', 'document', 'search_result'`;
      if (problem) return problem;
    }
  } else if (content !== undefined && typeof content !== 'string') {
    return `${path}.content: Input should be a valid string or list`;
  }
  if (block.is_error !== undefined && typeof block.is_error !== 'boolean') {
    return `${path}.is_error: Input should be a valid boolean`;
  }
  return checkCacheControl(block.cache_control, path);
}

function checkToolUse(block: Record<string, unknown>, path: string): Problem {
  if (typeof block.id !== 'string' || !ID_PATTERN.test(block.id)) {
    return `${path}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`;
  }
  if (typeof block.name !== 'string' || block.name === '') return `${path}.tool_use.name: Field required`;
  if (!isRecord(block.input)) return `${path}.tool_use.input: Input should be a valid dictionary`;
  return checkCacheControl(block.cache_control, path);
}

function checkThinkingBlock(block: Record<string, unknown>, path: string): Problem {
  if (typeof block.thinking !== 'string') return `${path}.thinking.thinking: Field required`;
  if (typeof block.signature !== 'string') return `${path}.thinking.signature: Field required`;
  // Anthropic checks the signature covers exactly this text: an edited or foreign block is refused.
  if (!verifyThinking(block.thinking, block.signature))
    return `${path}: Invalid \`signature\` in \`thinking\` block`;
  if (block.cache_control !== undefined)
    return `${path}.thinking.cache_control: Extra inputs are not permitted`;
  return undefined;
}

function checkUserBlock(block: Record<string, unknown>, path: string): Problem {
  switch (block.type) {
    case 'text':
      return checkText(block, path);
    case 'image':
      return checkImage(block, path);
    case 'document':
      return checkDocument(block, path);
    case 'tool_result':
      return checkToolResult(block, path);
    default:
      return `${path}.type: Input tag '${String(block.type)}' found using 'type' does not match any of the expected tags for a user message: 'text', 'image', 'document', 'tool_result'`;
  }
}

function checkAssistantBlock(block: Record<string, unknown>, path: string): Problem {
  switch (block.type) {
    case 'text':
      return checkText(block, path);
    case 'tool_use':
      return checkToolUse(block, path);
    case 'thinking':
      return checkThinkingBlock(block, path);
    case 'redacted_thinking':
      return typeof block.data === 'string' && block.data !== ''
        ? undefined
        : `${path}.redacted_thinking.data: Field required`;
    default:
      return `${path}.type: Input tag '${String(block.type)}' found using 'type' does not match any of the expected tags for an assistant message: 'text', 'tool_use', 'thinking', 'redacted_thinking'`;
  }
}

function blocksOf(message: Record<string, unknown>): Record<string, unknown>[] {
  return Array.isArray(message.content) ? message.content.filter(isRecord) : [];
}

function toolUseIds(message: Record<string, unknown> | undefined): string[] {
  if (message?.role !== 'assistant') return [];
  return blocksOf(message).flatMap((block) =>
    block.type === 'tool_use' && typeof block.id === 'string' ? [block.id] : [],
  );
}

/** Tool results pair with the tool uses of the turn just before, all of them, and come first in their turn. */
function checkToolPairing(messages: Record<string, unknown>[]): Problem {
  const seenToolUseIds = new Set<string>();
  for (const [index, message] of messages.entries()) {
    if (message.role === 'assistant') {
      for (const id of toolUseIds(message)) {
        if (seenToolUseIds.has(id)) return `messages.${index}: \`tool_use\` ids must be unique`;
        seenToolUseIds.add(id);
      }
      const next = messages[index + 1];
      if (next === undefined) continue;
      const answered = new Set(
        blocksOf(next).flatMap((block) =>
          block.type === 'tool_result' && typeof block.tool_use_id === 'string' ? [block.tool_use_id] : [],
        ),
      );
      const unanswered = toolUseIds(message).filter((id) => !answered.has(id));
      if (unanswered.length > 0) {
        return `messages.${index + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${unanswered.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
      }
      continue;
    }
    const offered = new Set(toolUseIds(messages[index - 1]));
    let otherContentSeen = false;
    for (const [blockIndex, block] of blocksOf(message).entries()) {
      if (block.type !== 'tool_result') {
        otherContentSeen = true;
        continue;
      }
      const path = `messages.${index}.content.${blockIndex}`;
      if (otherContentSeen) {
        return `${path}: \`tool_result\` blocks must come first in the user message, before any other content.`;
      }
      if (typeof block.tool_use_id === 'string' && !offered.has(block.tool_use_id)) {
        return `${path}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${block.tool_use_id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
      }
    }
  }
  return undefined;
}

function checkMessages(messages: unknown[]): Problem {
  for (const [index, message] of messages.entries()) {
    const path = `messages.${index}`;
    if (!isRecord(message)) return `${path}: Input should be a valid dictionary`;
    if (message.role !== 'user' && message.role !== 'assistant') {
      return `${path}.role: Input should be 'user' or 'assistant'`;
    }
    const previous = index > 0 ? messages[index - 1] : undefined;
    if (isRecord(previous) && previous.role === message.role) {
      return `messages: roles must alternate between "user" and "assistant", but found multiple "${message.role}" roles in a row`;
    }
    const finalAssistant = index === messages.length - 1 && message.role === 'assistant';
    const content = message.content;
    if (typeof content === 'string') {
      if (content === '' && !finalAssistant) {
        return `${path}: all messages must have non-empty content except for the optional final assistant message`;
      }
      continue;
    }
    if (!Array.isArray(content)) return `${path}.content: Input should be a valid list`;
    if (content.length === 0 && !finalAssistant) {
      return `${path}: all messages must have non-empty content except for the optional final assistant message`;
    }
    for (const [blockIndex, block] of content.entries()) {
      const blockPath = `${path}.content.${blockIndex}`;
      if (!isRecord(block)) return `${blockPath}: Input should be a valid dictionary`;
      const problem =
        message.role === 'user' ? checkUserBlock(block, blockPath) : checkAssistantBlock(block, blockPath);
      if (problem) return problem;
    }
  }
  return checkToolPairing(messages.filter(isRecord));
}

function checkSystem(system: unknown): Problem {
  if (system === undefined || typeof system === 'string') return undefined;
  if (!Array.isArray(system)) return 'system: Input should be a valid string or list';
  for (const [index, block] of system.entries()) {
    const path = `system.${index}`;
    if (!isRecord(block) || block.type !== 'text') return `${path}.type: Input should be 'text'`;
    const problem = checkText(block, path);
    if (problem) return problem;
  }
  return undefined;
}

function checkTools(body: Record<string, unknown>): Problem {
  const tools = body.tools;
  const names = new Set<string>();
  if (tools !== undefined) {
    if (!Array.isArray(tools)) return 'tools: Input should be a valid list';
    for (const [index, tool] of tools.entries()) {
      const path = `tools.${index}.custom`;
      if (!isRecord(tool)) return `tools.${index}: Input should be a valid dictionary`;
      if (typeof tool.name !== 'string' || !TOOL_NAME_PATTERN.test(tool.name)) {
        return `${path}.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`;
      }
      if (names.has(tool.name)) return 'tools: Tool names must be unique.';
      names.add(tool.name);
      if (!isRecord(tool.input_schema) || tool.input_schema.type !== 'object') {
        return `${path}.input_schema.type: Input should be 'object'`;
      }
      const problem = checkCacheControl(tool.cache_control, path);
      if (problem) return problem;
    }
  }
  const choice = body.tool_choice;
  if (choice === undefined) return undefined;
  if (!isRecord(choice) || !['auto', 'any', 'tool', 'none'].includes(String(choice.type))) {
    return "tool_choice: Input tag found using 'type' does not match any of the expected tags: 'auto', 'any', 'tool', 'none'";
  }
  if ((choice.type === 'any' || choice.type === 'tool') && names.size === 0) {
    return 'tool_choice may only be specified while providing tools.';
  }
  if (choice.type === 'tool' && (typeof choice.name !== 'string' || !names.has(choice.name))) {
    return `Tool '${String(choice.name)}' not found in provided tools`;
  }
  return undefined;
}

function checkSampling(body: Record<string, unknown>): Problem {
  const { temperature, top_p: topP, top_k: topK, stop_sequences: stopSequences } = body;
  if (temperature !== undefined && (typeof temperature !== 'number' || temperature < 0 || temperature > 1)) {
    return 'temperature: Input should be less than or equal to 1';
  }
  if (topP !== undefined && (typeof topP !== 'number' || topP < 0 || topP > 1)) {
    return 'top_p: Input should be less than or equal to 1';
  }
  if (topK !== undefined && (typeof topK !== 'number' || !Number.isInteger(topK) || topK < 0)) {
    return 'top_k: Input should be a valid integer';
  }
  if (stopSequences !== undefined) {
    if (!Array.isArray(stopSequences)) return 'stop_sequences: Input should be a valid list';
    if (stopSequences.some((sequence) => typeof sequence !== 'string' || sequence.trim() === '')) {
      return 'stop_sequences: each stop sequence must contain non-whitespace';
    }
  }
  return undefined;
}

/** With thinking on: the budget, the sampling it excludes, and the tool loop's turn starting with thinking. */
function checkThinking(body: Record<string, unknown>, messages: unknown[]): Problem {
  const thinking = body.thinking;
  if (thinking === undefined) return undefined;
  if (!isRecord(thinking)) return 'thinking: Input should be a valid dictionary';
  if (thinking.type === 'disabled') return undefined;
  if (thinking.type === 'enabled') {
    const budget = thinking.budget_tokens;
    if (typeof budget !== 'number' || !Number.isInteger(budget))
      return 'thinking.enabled.budget_tokens: Field required';
    if (budget < MIN_THINKING_BUDGET) {
      return `thinking.enabled.budget_tokens: Input should be greater than or equal to ${MIN_THINKING_BUDGET}`;
    }
    if (typeof body.max_tokens === 'number' && body.max_tokens <= budget) {
      return '`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size';
    }
  } else if (thinking.type !== 'adaptive') {
    return "thinking: Input tag found using 'type' does not match any of the expected tags: 'enabled', 'disabled', 'adaptive'";
  }
  if (body.temperature !== undefined && body.temperature !== 1) {
    return '`temperature` may only be set to 1 when thinking is enabled. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#feature-compatibility';
  }
  if (body.top_k !== undefined) {
    return '`top_k` is not supported when thinking is enabled. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#feature-compatibility';
  }
  if (typeof body.top_p === 'number' && body.top_p < 0.95) {
    return '`top_p` must be greater than or equal to 0.95 or unset when thinking is enabled. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#feature-compatibility';
  }
  if (isRecord(body.tool_choice) && (body.tool_choice.type === 'any' || body.tool_choice.type === 'tool')) {
    return 'Thinking may not be enabled when tool_choice forces tool use.';
  }
  const last = messages.at(-1);
  const previous = messages.at(-2);
  const continuesToolLoop =
    isRecord(last) && last.role === 'user' && blocksOf(last).some((block) => block.type === 'tool_result');
  if (continuesToolLoop && isRecord(previous)) {
    const first = blocksOf(previous)[0];
    if (first?.type !== 'thinking' && first?.type !== 'redacted_thinking') {
      return `messages.${messages.length - 2}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first?.type ?? 'text')}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking`;
    }
  }
  return undefined;
}

/** Every cache_control in the order Anthropic processes them: tools, system, then messages (nested included). */
function cacheTtls(body: Record<string, unknown>): string[] {
  const ttls: string[] = [];
  const note = (holder: unknown) => {
    if (isRecord(holder) && isRecord(holder.cache_control)) {
      ttls.push(typeof holder.cache_control.ttl === 'string' ? holder.cache_control.ttl : '5m');
    }
  };
  if (Array.isArray(body.tools)) body.tools.forEach(note);
  if (Array.isArray(body.system)) body.system.forEach(note);
  for (const message of Array.isArray(body.messages) ? body.messages.filter(isRecord) : []) {
    for (const block of blocksOf(message)) {
      note(block);
      if (Array.isArray(block.content)) block.content.forEach(note);
    }
  }
  return ttls;
}

function checkCacheBreakpoints(body: Record<string, unknown>): Problem {
  const ttls = cacheTtls(body);
  if (ttls.length > MAX_CACHE_BREAKPOINTS) {
    return `A maximum of ${MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found ${ttls.length}.`;
  }
  const firstShort = ttls.indexOf('5m');
  if (firstShort !== -1 && ttls.slice(firstShort).includes('1h')) {
    return "a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block. Note that blocks are processed in the following order: `tools`, `system`, `messages`.";
  }
  return undefined;
}

/**
 * The message of the 400 the real API would answer `body` with, or undefined when it would take it. The
 * caller has checked `model`, `max_tokens` and that `messages` is a non-empty array.
 */
export function validateAnthropicRequest(body: Record<string, unknown>): Problem {
  const extra = Object.keys(body).find((field) => !KNOWN_FIELDS.has(field));
  if (extra !== undefined) return `${extra}: Extra inputs are not permitted`;
  const messages = Array.isArray(body.messages) ? body.messages : [];
  return (
    checkSampling(body) ??
    checkSystem(body.system) ??
    checkTools(body) ??
    checkMessages(messages) ??
    checkThinking(body, messages) ??
    checkCacheBreakpoints(body)
  );
}

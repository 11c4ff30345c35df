// Anthropic Messages content blocks → the neutral conversation's messages and parts. Node side.
import { z } from 'zod';
import {
  IMAGE_MEDIA_TYPES,
  type AssistantContentPart,
  type CacheBreakpoint,
  type DocumentPart,
  type ImagePart,
  type Message,
  type TextPart,
  type ToolResultContentPart,
  type ToolResultPart,
  type UserContentPart,
} from '../config/request';
import { thinkingOrigin } from './anthropic-thinking-origin';
import { blockType, checkField, fieldPath, invalidField } from './parse-body';

/** `cache_control`: Anthropic's only kind, `ephemeral`, with its TTL. */
export const CacheControlSchema = z
  .strictObject({ type: z.literal('ephemeral'), ttl: z.enum(['5m', '1h']).optional() })
  .nullish();

/** The neutral breakpoint of a `cache_control`, spread into a part (nothing when absent). */
export function cacheOf(control: z.infer<typeof CacheControlSchema>): { cache?: CacheBreakpoint } {
  if (control === null || control === undefined) return {};
  return { cache: control.ttl !== undefined ? { ttl: control.ttl } : {} };
}

const base64 = z
  .string()
  .min(1, 'data must not be empty')
  .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'data must be base64 (standard alphabet, no data: prefix)');

/** Clients that send an answer's blocks back unchanged may carry `citations: null`: nothing to honour. */
const noCitations = z.null({ error: 'citations are not supported by the gateway' }).optional();

export const TextBlockSchema = z.strictObject({
  type: z.literal('text'),
  text: z.string(),
  cache_control: CacheControlSchema,
  citations: noCitations,
});

function textPart(block: unknown, path: string): TextPart {
  const text = checkField(TextBlockSchema, block, path);
  return { type: 'text', text: text.text, ...cacheOf(text.cache_control) };
}

/** A `source` whose `type` the gateway does not route is refused naming `source.type`. */
function sourceType(source: unknown, path: string, accepted: readonly string[], why: string): string {
  const type = blockType(source, path);
  if (!accepted.includes(type)) throw invalidField(fieldPath(path, 'type'), `source type "${type}": ${why}`);
  return type;
}

const ImageBlockSchema = z.strictObject({
  type: z.literal('image'),
  source: z.unknown(),
  cache_control: CacheControlSchema,
});

function imagePart(block: unknown, path: string): ImagePart {
  const image = checkField(ImageBlockSchema, block, path);
  const sourcePath = fieldPath(path, 'source');
  const type = sourceType(
    image.source,
    sourcePath,
    ['base64', 'url'],
    'only base64 and url images can be routed (a file id belongs to one provider account)',
  );
  const cache = cacheOf(image.cache_control);
  if (type === 'url') {
    const source = checkField(
      z.strictObject({
        type: z.literal('url'),
        url: z.url({ protocol: /^https?$/i, error: 'an image url must be http:// or https://' }),
      }),
      image.source,
      sourcePath,
    );
    return { type: 'image', url: source.url, ...cache };
  }
  const source = checkField(
    z.strictObject({ type: z.literal('base64'), media_type: z.enum(IMAGE_MEDIA_TYPES), data: base64 }),
    image.source,
    sourcePath,
  );
  return { type: 'image', data: source.data, mediaType: source.media_type, ...cache };
}

const DocumentBlockSchema = z.strictObject({
  type: z.literal('document'),
  source: z.unknown(),
  title: z.string().max(512).nullish(),
  cache_control: CacheControlSchema,
});

function documentPart(block: unknown, path: string): DocumentPart {
  const document = checkField(DocumentBlockSchema, block, path);
  const sourcePath = fieldPath(path, 'source');
  sourceType(document.source, sourcePath, ['base64'], 'only base64 PDF documents can be routed');
  const source = checkField(
    z.strictObject({ type: z.literal('base64'), media_type: z.literal('application/pdf'), data: base64 }),
    document.source,
    sourcePath,
  );
  return {
    type: 'document',
    data: source.data,
    mediaType: 'application/pdf',
    ...(typeof document.title === 'string' ? { title: document.title } : {}),
    ...cacheOf(document.cache_control),
  };
}

const ToolResultBlockSchema = z.strictObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string().min(1),
  content: z.union([z.string(), z.array(z.unknown())]).optional(),
  is_error: z.boolean().optional(),
  cache_control: CacheControlSchema,
});

function toolResultPart(
  block: unknown,
  path: string,
  toolNames: ReadonlyMap<string, string>,
): ToolResultPart {
  const result = checkField(ToolResultBlockSchema, block, path);
  const content: string | ToolResultContentPart[] =
    typeof result.content === 'string' || result.content === undefined
      ? (result.content ?? '')
      : result.content.map((inner, index) => {
          const innerPath = fieldPath(path, 'content', index);
          const type = blockType(inner, innerPath);
          if (type === 'text') return textPart(inner, innerPath);
          if (type === 'image') return imagePart(inner, innerPath);
          throw invalidField(
            fieldPath(innerPath, 'type'),
            `a tool result may hold text and image blocks here, not "${type}"`,
          );
        });
  const name = toolNames.get(result.tool_use_id);
  return {
    type: 'tool_result',
    callId: result.tool_use_id,
    ...(name !== undefined ? { name } : {}),
    content,
    ...(result.is_error !== undefined ? { isError: result.is_error } : {}),
    ...cacheOf(result.cache_control),
  };
}

const ToolUseBlockSchema = z.strictObject({
  type: z.literal('tool_use'),
  id: z.string().min(1),
  name: z.string().min(1),
  input: z.record(z.string(), z.unknown()),
  cache_control: CacheControlSchema,
  // An answer's block names who called the tool; sent back unchanged it says "the model, directly".
  caller: z.strictObject({ type: z.literal('direct') }).optional(),
});

const ThinkingBlockSchema = z.strictObject({
  type: z.literal('thinking'),
  thinking: z.string(),
  signature: z.string(),
});

const RedactedThinkingBlockSchema = z.strictObject({
  type: z.literal('redacted_thinking'),
  data: z.string().min(1),
});

function assistantPart(block: unknown, path: string): AssistantContentPart {
  const type = blockType(block, path);
  switch (type) {
    case 'text':
      return textPart(block, path);
    case 'tool_use': {
      const call = checkField(ToolUseBlockSchema, block, path);
      return {
        type: 'tool_call',
        id: call.id,
        name: call.name,
        arguments: JSON.stringify(call.input),
        ...cacheOf(call.cache_control),
      };
    }
    case 'thinking': {
      const thinking = checkField(ThinkingBlockSchema, block, path);
      const part = thinkingOrigin.reasoningOf(thinking.thinking, thinking.signature);
      if (!part)
        throw invalidField(fieldPath(path, 'signature'), 'this signature was not written by the gateway');
      return part;
    }
    case 'redacted_thinking': {
      const redacted = checkField(RedactedThinkingBlockSchema, block, path);
      return { type: 'reasoning', text: '', redactedData: redacted.data, origin: 'anthropic' };
    }
    default:
      throw invalidField(fieldPath(path, 'type'), `"${type}" blocks are not supported in assistant messages`);
  }
}

function userPart(block: unknown, path: string): UserContentPart {
  const type = blockType(block, path);
  switch (type) {
    case 'text':
      return textPart(block, path);
    case 'image':
      return imagePart(block, path);
    case 'document':
      return documentPart(block, path);
    default:
      throw invalidField(fieldPath(path, 'type'), `"${type}" blocks are not supported in user messages`);
  }
}

const MessageSchema = z.strictObject({
  role: z.enum(['user', 'assistant']),
  content: z.union([
    z.string().min(1, 'a message needs content'),
    z.array(z.unknown()).min(1, 'a message needs content'),
  ]),
});

/**
 * The conversation as neutral messages. Anthropic carries tool results inside a user message; the neutral
 * conversation has a `tool` message for them, so such a user message becomes a `tool` message (its results)
 * followed by a user message with its other blocks, if any.
 */
export function convertMessages(messages: readonly unknown[]): Message[] {
  const converted: Message[] = [];
  // Tool results name only the call's id; formats that want the tool's name get it from the call.
  const toolNames = new Map<string, string>();
  for (const [index, raw] of messages.entries()) {
    const path = fieldPath('messages', index);
    const message = checkField(MessageSchema, raw, path);
    const contentPath = fieldPath(path, 'content');
    if (typeof message.content === 'string') {
      converted.push({ role: message.role, content: message.content });
      continue;
    }
    if (message.role === 'assistant') {
      const parts = message.content.map((block, blockIndex) =>
        assistantPart(block, fieldPath(contentPath, blockIndex)),
      );
      for (const part of parts) if (part.type === 'tool_call') toolNames.set(part.id, part.name);
      converted.push({ role: 'assistant', content: parts });
      continue;
    }
    const results: ToolResultPart[] = [];
    const rest: UserContentPart[] = [];
    for (const [blockIndex, block] of message.content.entries()) {
      const blockPath = fieldPath(contentPath, blockIndex);
      if (blockType(block, blockPath) === 'tool_result')
        results.push(toolResultPart(block, blockPath, toolNames));
      else rest.push(userPart(block, blockPath));
    }
    if (results.length > 0) converted.push({ role: 'tool', content: results });
    if (rest.length > 0) converted.push({ role: 'user', content: rest });
  }
  return converted;
}

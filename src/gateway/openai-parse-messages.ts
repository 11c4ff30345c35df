// OpenAI Chat Completions messages → the neutral conversation's system prompt, messages and parts. Node side.
import { z } from 'zod';
import {
  IMAGE_MEDIA_TYPES,
  type AssistantContentPart,
  type DocumentPart,
  type ImagePart,
  type Message,
  type TextPart,
  type ToolResultPart,
  type UserContentPart,
} from '../config/request';
import { blockType, checkField, fieldPath, invalidField } from './parse-body';

/** A tool call's `id`, `type` and `function`, as answers return them and clients send them back. */
const ToolCallSchema = z.strictObject({
  id: z.string().min(1, 'a tool call needs its id'),
  type: z.literal('function', { error: 'only function tool calls can be routed' }),
  function: z.strictObject({ name: z.string().min(1), arguments: z.string() }),
});

const TextPartWireSchema = z.strictObject({ type: z.literal('text'), text: z.string() });

const ImagePartWireSchema = z.strictObject({
  type: z.literal('image_url'),
  image_url: z.strictObject({ url: z.string(), detail: z.enum(['auto', 'low', 'high']).nullish() }),
});

const FilePartWireSchema = z.strictObject({
  type: z.literal('file'),
  file: z.strictObject({
    file_data: z.string().optional(),
    filename: z.string().max(512).optional(),
    file_id: z.string().optional(),
  }),
});

const RefusalPartWireSchema = z.strictObject({ type: z.literal('refusal'), refusal: z.string() });

/** `content` of any role, checked for its shape before its parts are read one by one. */
const contentSchema = z.union([z.string(), z.array(z.unknown()), z.null()]).optional();

const SystemMessageSchema = z.strictObject({
  role: z.enum(['system', 'developer']),
  content: z.union([z.string(), z.array(z.unknown())]),
});

const UserMessageSchema = z.strictObject({
  role: z.literal('user'),
  content: z.union([
    z.string().min(1, 'a message needs content'),
    z.array(z.unknown()).min(1, 'a message needs content'),
  ]),
});

const AssistantMessageSchema = z.strictObject({
  role: z.literal('assistant'),
  content: contentSchema,
  tool_calls: z.array(z.unknown()).nullish(),
  refusal: z.string().nullish(),
  // A known no-op (see OPENAI_IGNORED_FIELDS): read only to check it is text.
  reasoning_content: z.string().nullish(),
});

const ToolMessageSchema = z.strictObject({
  role: z.literal('tool'),
  tool_call_id: z.string().min(1, 'a tool message needs the id of its call'),
  content: z.union([z.string(), z.array(z.unknown())]),
});

const ROLES = ['system', 'developer', 'user', 'assistant', 'tool'] as const;
type Role = (typeof ROLES)[number];

/** Why a message role the gateway knows of cannot be routed. */
const REFUSED_ROLES: Readonly<Record<string, string>> = {
  function: 'the deprecated "function" role cannot be routed; send tool results as "tool" messages',
};

function textPart(raw: unknown, path: string): TextPart {
  return { type: 'text', text: checkField(TextPartWireSchema, raw, path).text };
}

/** Splits `data:<type>;base64,<data>`; undefined for anything else. */
function dataURL(url: string): { mediaType: string; data: string } | undefined {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return match ? { mediaType: match[1]!.toLowerCase(), data: match[2]! } : undefined;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The image a URL names: `data:<image type>;base64,…` inline, or an http(s) URL the provider fetches. Shared by
 * the OpenAI surfaces (Chat Completions `image_url`, Responses `input_image`); `urlPath` names the URL field.
 */
export function imageOfUrl(url: string, urlPath: string, detail?: ImagePart['detail']): ImagePart {
  const hint = detail !== undefined ? { detail } : {};
  const inline = dataURL(url);
  if (inline !== undefined) {
    const mediaType = IMAGE_MEDIA_TYPES.find((type) => type === inline.mediaType);
    if (mediaType === undefined) {
      throw invalidField(urlPath, `image type "${inline.mediaType}": only ${IMAGE_MEDIA_TYPES.join(', ')}`);
    }
    if (inline.data === '' || !BASE64.test(inline.data))
      throw invalidField(urlPath, 'the image data must be base64');
    return { type: 'image', data: inline.data, mediaType, ...hint };
  }
  if (!/^https?:\/\//i.test(url) || !URL.canParse(url)) {
    throw invalidField(urlPath, 'an image url must be http(s)://… or data:<image type>;base64,…');
  }
  return { type: 'image', url, ...hint };
}

function imagePart(raw: unknown, path: string): ImagePart {
  const { image_url: image } = checkField(ImagePartWireSchema, raw, path);
  return imageOfUrl(image.url, fieldPath(path, 'image_url', 'url'), image.detail ?? undefined);
}

/** A PDF given as `data:application/pdf;base64,…` (`dataPath` names the field), with its file name as title. */
export function pdfOfDataUrl(fileData: string, dataPath: string, filename?: string): DocumentPart {
  const inline = dataURL(fileData);
  if (inline === undefined || inline.mediaType !== 'application/pdf') {
    throw invalidField(dataPath, 'only PDF files, as data:application/pdf;base64,…, can be routed');
  }
  if (inline.data === '' || !BASE64.test(inline.data))
    throw invalidField(dataPath, 'the file data must be base64');
  return {
    type: 'document',
    data: inline.data,
    mediaType: 'application/pdf',
    ...(filename !== undefined ? { title: filename } : {}),
  };
}

function documentPart(raw: unknown, path: string): DocumentPart {
  const { file } = checkField(FilePartWireSchema, raw, path);
  if (file.file_id !== undefined) {
    throw invalidField(
      fieldPath(path, 'file', 'file_id'),
      'a file id belongs to one provider account and cannot be routed; send file_data',
    );
  }
  const dataPath = fieldPath(path, 'file', 'file_data');
  if (file.file_data === undefined) throw invalidField(dataPath, 'a file part needs its file_data');
  return pdfOfDataUrl(file.file_data, dataPath, file.filename);
}

function userPart(raw: unknown, path: string): UserContentPart {
  const type = blockType(raw, path);
  switch (type) {
    case 'text':
      return textPart(raw, path);
    case 'image_url':
      return imagePart(raw, path);
    case 'file':
      return documentPart(raw, path);
    case 'input_audio':
      throw invalidField(fieldPath(path, 'type'), 'audio input cannot be routed');
    default:
      throw invalidField(fieldPath(path, 'type'), `"${type}" parts are not supported in user messages`);
  }
}

/** Text parts only (system, developer and tool messages), each checked and kept. */
function textParts(content: string | readonly unknown[], path: string, role: string): TextPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return content.map((raw, index) => {
    const partPath = fieldPath(path, index);
    const type = blockType(raw, partPath);
    if (type !== 'text') {
      throw invalidField(fieldPath(partPath, 'type'), `${role} messages hold text parts only, not "${type}"`);
    }
    return textPart(raw, partPath);
  });
}

/**
 * An assistant turn as the client sends it back: its text (a refusal it made is what it said, so it is kept as
 * text), then its tool calls. `reasoning_content` is dropped: no Chat Completions model takes it as input, and
 * a client cannot vouch for which provider wrote it.
 */
function assistantMessage(raw: unknown, path: string): Message {
  const message = checkField(AssistantMessageSchema, raw, path);
  const contentPath = fieldPath(path, 'content');
  const parts: AssistantContentPart[] = [];
  if (typeof message.content === 'string') {
    if (message.content !== '') parts.push({ type: 'text', text: message.content });
  } else if (Array.isArray(message.content)) {
    for (const [index, rawPart] of message.content.entries()) {
      const partPath = fieldPath(contentPath, index);
      const type = blockType(rawPart, partPath);
      if (type === 'text') parts.push(textPart(rawPart, partPath));
      else if (type === 'refusal') {
        parts.push({ type: 'text', text: checkField(RefusalPartWireSchema, rawPart, partPath).refusal });
      } else {
        throw invalidField(
          fieldPath(partPath, 'type'),
          `assistant messages hold text and refusal parts only, not "${type}"`,
        );
      }
    }
  }
  if (message.refusal) parts.push({ type: 'text', text: message.refusal });
  for (const [index, rawCall] of (message.tool_calls ?? []).entries()) {
    const call = checkField(ToolCallSchema, rawCall, fieldPath(path, 'tool_calls', index));
    parts.push({
      type: 'tool_call',
      id: call.id,
      name: call.function.name,
      arguments: call.function.arguments,
    });
  }
  // Old requests digest as before: a plain text turn stays a string.
  if (parts.length === 1 && parts[0]!.type === 'text' && typeof message.content === 'string') {
    return { role: 'assistant', content: message.content };
  }
  // A turn that said nothing (an empty answer sent back) still needs content: one empty text part.
  return { role: 'assistant', content: parts.length > 0 ? parts : [{ type: 'text', text: '' }] };
}

function userMessage(raw: unknown, path: string): Message {
  const message = checkField(UserMessageSchema, raw, path);
  if (typeof message.content === 'string') return { role: 'user', content: message.content };
  const contentPath = fieldPath(path, 'content');
  return {
    role: 'user',
    content: message.content.map((part, index) => userPart(part, fieldPath(contentPath, index))),
  };
}

function toolResult(raw: unknown, path: string, toolNames: ReadonlyMap<string, string>): ToolResultPart {
  const message = checkField(ToolMessageSchema, raw, path);
  const name = toolNames.get(message.tool_call_id);
  return {
    type: 'tool_result',
    callId: message.tool_call_id,
    ...(name !== undefined ? { name } : {}),
    content:
      typeof message.content === 'string'
        ? message.content
        : textParts(message.content, fieldPath(path, 'content'), 'tool'),
  };
}

export interface ConvertedMessages {
  readonly system?: string | TextPart[];
  readonly messages: Message[];
}

/**
 * The conversation as neutral messages. System and developer messages become the system prompt, wherever they
 * stand (the neutral request has one system prompt, sent first, as every provider but OpenAI requires): one
 * plain string stays a string, several messages or text parts stay separate text parts. Consecutive tool
 * messages become one neutral tool message holding each result.
 */
export function convertMessages(messages: readonly unknown[]): ConvertedMessages {
  const system: TextPart[] = [];
  let systemString: string | undefined;
  let systemMessages = 0;
  const converted: Message[] = [];
  // Tool results name only the call's id; formats that want the tool's name get it from the call.
  const toolNames = new Map<string, string>();
  for (const [index, raw] of messages.entries()) {
    const path = fieldPath('messages', index);
    const role = checkField(z.looseObject({ role: z.string() }), raw, path).role;
    if (REFUSED_ROLES[role] !== undefined) throw invalidField(fieldPath(path, 'role'), REFUSED_ROLES[role]);
    if (!(ROLES as readonly string[]).includes(role)) {
      throw invalidField(fieldPath(path, 'role'), `the role is system, developer, user, assistant or tool`);
    }
    const known = role as Role;
    switch (known) {
      case 'system':
      case 'developer': {
        const message = checkField(SystemMessageSchema, raw, path);
        systemMessages += 1;
        if (typeof message.content === 'string') systemString = message.content;
        system.push(...textParts(message.content, fieldPath(path, 'content'), role));
        break;
      }
      case 'user':
        converted.push(userMessage(raw, path));
        break;
      case 'assistant': {
        const message = assistantMessage(raw, path);
        if (typeof message.content !== 'string') {
          for (const part of message.content)
            if (part.type === 'tool_call') toolNames.set(part.id, part.name);
        }
        converted.push(message);
        break;
      }
      case 'tool': {
        const result = toolResult(raw, path, toolNames);
        const previous = converted.at(-1);
        if (previous?.role === 'tool') previous.content.push(result);
        else converted.push({ role: 'tool', content: [result] });
        break;
      }
      default:
        known satisfies never;
    }
  }
  if (converted.length === 0) throw invalidField('messages', 'at least one user message is required');
  const single = systemMessages === 1 && systemString !== undefined;
  return {
    ...(single ? (systemString !== '' ? { system: systemString } : {}) : system.length > 0 ? { system } : {}),
    messages: converted,
  };
}

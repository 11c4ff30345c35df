// A stored response's input as OpenAI's list of input items (`GET /v1/responses/{id}/input_items`). Node side, pure.
import { createHash } from 'node:crypto';
import type {
  AssistantContentPart,
  DocumentPart,
  ImagePart,
  Message,
  TextPart,
  ToolResultPart,
  UserContentPart,
} from '../config/request';
import { GatewayError, GatewayErrorKind } from './gateway-error';
import { functionCallItem, messageItem } from './responses-render';

/**
 * An input item's id: a digest of the response id and the item's place in its input, so a listing read twice
 * (or page by page) names each item the same way.
 */
function inputItemId(responseId: string, prefix: 'msg' | 'fc' | 'fco', ordinal: number): string {
  const digest = createHash('sha256')
    .update(`${responseId}\u0000input\u0000${prefix}\u0000${ordinal}`)
    .digest('hex');
  return `${prefix}_${digest.slice(0, 48)}`;
}

function imageContent(part: ImagePart) {
  return {
    type: 'input_image' as const,
    image_url: part.url ?? `data:${part.mediaType};base64,${part.data}`,
    detail: part.detail ?? 'auto',
  };
}

function documentContent(part: DocumentPart) {
  return {
    type: 'input_file' as const,
    file_data: `data:${part.mediaType};base64,${part.data}`,
    ...(part.title !== undefined ? { filename: part.title } : {}),
  };
}

function userContent(part: UserContentPart | TextPart) {
  switch (part.type) {
    case 'text':
      return { type: 'input_text' as const, text: part.text };
    case 'image':
      return imageContent(part);
    case 'document':
      return documentContent(part);
    default:
      return part satisfies never;
  }
}

/** A tool result's output: its text, or its parts as input content. */
function toolOutput(content: ToolResultPart['content']) {
  return typeof content === 'string'
    ? content
    : content.map((part) => (part.type === 'text' ? userContent(part) : imageContent(part)));
}

/**
 * The items of a conversation, oldest first: user messages, the assistant's text as output messages and its tool
 * calls as function calls, tool results as function call outputs. Reasoning is left out: OpenAI's list has no
 * item for it. The system prompt is the response's `instructions`, not an item.
 */
export function inputItemsOf(responseId: string, messages: readonly Message[]): Record<string, unknown>[] {
  const items: Record<string, unknown>[] = [];
  const add = (prefix: 'msg' | 'fc' | 'fco', item: Record<string, unknown>) =>
    items.push({ ...item, id: inputItemId(responseId, prefix, items.length) });
  for (const message of messages) {
    switch (message.role) {
      case 'user': {
        const parts =
          typeof message.content === 'string'
            ? [{ type: 'text' as const, text: message.content }]
            : message.content;
        add('msg', { type: 'message', role: 'user', status: 'completed', content: parts.map(userContent) });
        break;
      }
      case 'assistant': {
        const parts: readonly AssistantContentPart[] =
          typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
        const text = parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
        if (text !== '') add('msg', messageItem('', 'completed', text));
        for (const part of parts) {
          if (part.type === 'tool_call') add('fc', functionCallItem(part, '', 'completed'));
        }
        break;
      }
      case 'tool':
        for (const result of message.content) {
          add('fco', {
            type: 'function_call_output',
            call_id: result.callId,
            output: toolOutput(result.content),
            status: 'completed',
          });
        }
        break;
      default:
        message satisfies never;
    }
  }
  return items;
}

/** How a listing is asked for: `after` an item id, at most `limit` items, `asc` or `desc`. */
export interface InputItemsPage {
  readonly after?: string;
  /** 1 to 100. @default 20 */
  readonly limit: number;
  /** @default 'desc' (newest first), as on OpenAI */
  readonly order: 'asc' | 'desc';
}

/** The query of a listing, checked: a bad value is a 400 naming it. */
export function inputItemsPageOf(query: Readonly<Record<string, string | undefined>>): InputItemsPage {
  const { after, limit, order } = query;
  if (limit !== undefined && !/^(100|[1-9][0-9]?)$/.test(limit)) {
    throw new GatewayError(
      'limit: a whole number from 1 to 100',
      GatewayErrorKind.invalidRequest,
      'invalid_request',
      {
        param: 'limit',
      },
    );
  }
  if (order !== undefined && order !== 'asc' && order !== 'desc') {
    throw new GatewayError('order: "asc" or "desc"', GatewayErrorKind.invalidRequest, 'invalid_request', {
      param: 'order',
    });
  }
  return {
    ...(after !== undefined && after !== '' ? { after } : {}),
    limit: limit === undefined ? 20 : Number(limit),
    order: order ?? 'desc',
  };
}

/** One page of `items` in OpenAI's list shape; an `after` that names no item is a 400 naming it. */
export function inputItemsList(items: readonly Record<string, unknown>[], page: InputItemsPage) {
  const ordered = page.order === 'asc' ? items : [...items].reverse();
  let start = 0;
  if (page.after !== undefined) {
    const at = ordered.findIndex((item) => item.id === page.after);
    if (at < 0) {
      throw new GatewayError(
        'after: no input item of this response has that id',
        GatewayErrorKind.invalidRequest,
        'invalid_request',
        {
          param: 'after',
        },
      );
    }
    start = at + 1;
  }
  const data = ordered.slice(start, start + page.limit);
  return {
    object: 'list' as const,
    data,
    first_id: (data[0]?.id as string | undefined) ?? null,
    last_id: (data.at(-1)?.id as string | undefined) ?? null,
    has_more: start + page.limit < ordered.length,
  };
}

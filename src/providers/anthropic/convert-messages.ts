// Turns the neutral conversation into Anthropic `messages`: alternating user/assistant turns of content blocks. Pure; worker side.
import type {
  CacheControlEphemeral,
  ContentBlockParam,
  DocumentBlockParam,
  ImageBlockParam,
  MessageParam,
  TextBlockParam,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import type {
  AssistantContentPart,
  CacheBreakpoint,
  DocumentPart,
  ImagePart,
  Message,
  TextPart,
  ToolResultPart,
  UserContentPart,
} from '../../config/request';
import { reasoningFor } from '../../routing/conversation-fit';
import { isRecord } from '../json-value';
import { ANTHROPIC_TOOL_CALL_ID, toolCallIdFor } from '../tool-call-id';
import type { RequestRefusal } from '../refuse-request';

/** One Anthropic turn, gathered from one or more neutral messages of the same side. */
interface Turn {
  readonly role: 'user' | 'assistant';
  /** `tool_result` blocks: Anthropic wants them first in the user turn that follows the `tool_use` turn. */
  readonly toolResults: ToolResultBlockParam[];
  readonly blocks: ContentBlockParam[];
  /** How many neutral messages the turn gathers. */
  messages: number;
  /** The content of a turn made of one string message: sent as that string, as text-only requests always were. */
  plainText: string | undefined;
}

export function cacheControl(cache: CacheBreakpoint | undefined): { cache_control?: CacheControlEphemeral } {
  if (cache === undefined) return {};
  return { cache_control: { type: 'ephemeral', ...(cache.ttl !== undefined ? { ttl: cache.ttl } : {}) } };
}

/**
 * A text block, or nothing for an empty text (Anthropic refuses empty text blocks, and an empty text says
 * nothing). An empty text that carries a cache breakpoint is refused: dropping it would move the breakpoint.
 */
export function textBlock(part: TextPart, path: string, refuse: RequestRefusal): TextBlockParam | undefined {
  if (part.text === '') {
    if (part.cache !== undefined)
      throw refuse(`${path}.cache`, 'Anthropic cannot place a cache breakpoint on an empty text');
    return undefined;
  }
  return { type: 'text', text: part.text, ...cacheControl(part.cache) };
}

function imageBlock(part: ImagePart, path: string, refuse: RequestRefusal): ImageBlockParam {
  if (part.url !== undefined) {
    return { type: 'image', source: { type: 'url', url: part.url }, ...cacheControl(part.cache) };
  }
  if (part.data === undefined || part.mediaType === undefined) {
    throw refuse(path, 'an image needs a url, or data with its mediaType');
  }
  return {
    type: 'image',
    source: { type: 'base64', media_type: part.mediaType, data: part.data },
    ...cacheControl(part.cache),
  };
}

function documentBlock(part: DocumentPart): DocumentBlockParam {
  return {
    type: 'document',
    source: { type: 'base64', media_type: part.mediaType, data: part.data },
    ...(part.title !== undefined ? { title: part.title } : {}),
    ...cacheControl(part.cache),
  };
}

function userBlock(
  part: UserContentPart,
  path: string,
  refuse: RequestRefusal,
): ContentBlockParam | undefined {
  switch (part.type) {
    case 'text':
      return textBlock(part, path, refuse);
    case 'image':
      return imageBlock(part, path, refuse);
    case 'document':
      return documentBlock(part);
    default:
      return part satisfies never;
  }
}

/** Tool input: Anthropic takes an object, not the JSON text; an empty text is a call without arguments. */
function toolInput(argumentsText: string, path: string, refuse: RequestRefusal): Record<string, unknown> {
  let input: unknown;
  try {
    input = JSON.parse(argumentsText === '' ? '{}' : argumentsText);
  } catch {
    throw refuse(path, 'is not valid JSON; Anthropic takes tool input as a JSON object');
  }
  if (!isRecord(input)) throw refuse(path, 'is not a JSON object; Anthropic takes tool input as an object');
  return input;
}

function assistantBlock(
  part: AssistantContentPart,
  path: string,
  refuse: RequestRefusal,
): ContentBlockParam | undefined {
  switch (part.type) {
    case 'text':
      return textBlock(part, path, refuse);
    case 'tool_call':
      return {
        type: 'tool_use',
        // The same mapping as its tool_result's tool_use_id, so the pair still matches.
        id: toolCallIdFor(part.id, ANTHROPIC_TOOL_CALL_ID),
        name: part.name,
        input: toolInput(part.arguments, `${path}.arguments`, refuse),
        ...cacheControl(part.cache),
      };
    case 'reasoning':
      // A signature means something only to the kind that made it; another kind's reasoning is not sent.
      if (!reasoningFor(part, 'anthropic')) return undefined;
      if (part.redactedData !== undefined) return { type: 'redacted_thinking', data: part.redactedData };
      // Anthropic refuses a thinking block without its signature (an answer cut before signature_delta).
      if (part.signature === undefined) return undefined;
      return { type: 'thinking', thinking: part.text, signature: part.signature };
    default:
      return part satisfies never;
  }
}

function toolResultBlock(part: ToolResultPart, path: string, refuse: RequestRefusal): ToolResultBlockParam {
  const content =
    typeof part.content === 'string'
      ? part.content
      : part.content.flatMap((inner, index): (TextBlockParam | ImageBlockParam)[] => {
          const innerPath = `${path}.content[${index}]`;
          switch (inner.type) {
            case 'text': {
              const block = textBlock(inner, innerPath, refuse);
              return block === undefined ? [] : [block];
            }
            case 'image':
              return [imageBlock(inner, innerPath, refuse)];
            default:
              return inner satisfies never;
          }
        });
  return {
    type: 'tool_result',
    tool_use_id: toolCallIdFor(part.callId, ANTHROPIC_TOOL_CALL_ID),
    content,
    ...(part.isError === true ? { is_error: true } : {}),
    ...cacheControl(part.cache),
  };
}

/**
 * Anthropic has no tool role, and its turns alternate: tool results go into a user turn, and consecutive
 * messages of the same side (tool and user messages, or two assistant messages) become one turn, with the
 * tool results first. Ids a tool call cannot carry on Anthropic are mapped the same way on both sides.
 */
export function convertMessages(messages: readonly Message[], refuse: RequestRefusal): MessageParam[] {
  const turns: Turn[] = [];
  for (const [messageIndex, message] of messages.entries()) {
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    let turn = turns.at(-1);
    if (turn?.role !== role) {
      turn = { role, toolResults: [], blocks: [], messages: 0, plainText: undefined };
      turns.push(turn);
    }
    turn.messages += 1;
    const path = `messages[${messageIndex}].content`;
    if (typeof message.content === 'string') {
      turn.blocks.push({ type: 'text', text: message.content });
      if (turn.messages === 1) turn.plainText = message.content;
      continue;
    }
    switch (message.role) {
      case 'user':
        for (const [index, part] of message.content.entries()) {
          const block = userBlock(part, `${path}[${index}]`, refuse);
          if (block !== undefined) turn.blocks.push(block);
        }
        break;
      case 'assistant':
        for (const [index, part] of message.content.entries()) {
          const block = assistantBlock(part, `${path}[${index}]`, refuse);
          if (block !== undefined) turn.blocks.push(block);
        }
        break;
      case 'tool':
        for (const [index, part] of message.content.entries()) {
          turn.toolResults.push(toolResultBlock(part, `${path}[${index}]`, refuse));
        }
        break;
      default:
        message satisfies never;
    }
    // A turn left empty (only reasoning of another kind, say) is not sent: Anthropic refuses empty content.
    if (turn.blocks.length === 0 && turn.toolResults.length === 0) turns.pop();
  }
  return turns.map((turn) => ({
    role: turn.role,
    content:
      turn.messages === 1 && turn.plainText !== undefined
        ? turn.plainText
        : [...turn.toolResults, ...turn.blocks],
  }));
}

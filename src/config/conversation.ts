// Reading a conversation the same way everywhere: string content as parts, what a request holds. Workflow-safe (types only).
import type {
  AssistantContentPart,
  AssistantMessage,
  GenerationRequest,
  Message,
  ReasoningPart,
  TextPart,
  ToolResultPart,
  UserContentPart,
} from './request';

/** Any part a message can hold. */
export type MessagePart = UserContentPart | AssistantContentPart | ToolResultPart;

/** A message's content as parts: a plain string is one text part. */
export function partsOf(message: Message): readonly MessagePart[] {
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
}

/** The text a message shows a reader: its text parts (and tool results' text) joined by line breaks. */
export function messageText(message: Message): string {
  if (typeof message.content === 'string') return message.content;
  return message.content
    .flatMap((part) => {
      if (part.type === 'text') return [part.text];
      if (part.type === 'tool_result') return [toolResultText(part.content)];
      return [];
    })
    .join('\n');
}

/** The system prompt as text parts (none when absent). */
export function systemParts(system: GenerationRequest['system']): readonly TextPart[] {
  if (system === undefined) return [];
  return typeof system === 'string' ? [{ type: 'text', text: system }] : system;
}

/** The system prompt as one text: parts joined by blank lines, for formats with a single system string. */
export function systemText(system: GenerationRequest['system']): string | undefined {
  if (system === undefined) return undefined;
  return typeof system === 'string' ? system : system.map((part) => part.text).join('\n\n');
}

/** Text of a tool result's content: a string, or its text parts joined. */
export function toolResultText(content: ToolResultPart['content']): string {
  return typeof content === 'string'
    ? content
    : content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
}

/** What kinds of input a request holds, for choosing the targets that can take it. */
export interface ConversationTraits {
  readonly images: number;
  readonly documents: number;
  /** The request defines tools, or its messages carry tool calls or results. */
  readonly tools: boolean;
  readonly reasoning: boolean;
  /** A prompt-cache breakpoint is set somewhere, with the longest TTL asked for. */
  readonly cacheTtl?: '5m' | '1h';
}

/** Counts what `request` holds; one pass over its messages. */
export function conversationTraits(request: GenerationRequest): ConversationTraits {
  let images = 0;
  let documents = 0;
  let tools = (request.tools?.length ?? 0) > 0;
  let cacheTtl: '5m' | '1h' | undefined;
  const noteCache = (cache: { ttl?: '5m' | '1h' } | undefined) => {
    if (cache === undefined) return;
    if (cache.ttl === '1h' || cacheTtl === '1h') cacheTtl = '1h';
    else cacheTtl = '5m';
  };
  for (const part of systemParts(request.system)) noteCache(part.cache);
  for (const tool of request.tools ?? []) noteCache(tool.cache);
  for (const message of request.messages) {
    if (typeof message.content === 'string') continue;
    for (const part of message.content) {
      if (part.type !== 'reasoning') noteCache(part.cache);
      switch (part.type) {
        case 'image':
          images += 1;
          break;
        case 'document':
          documents += 1;
          break;
        case 'tool_call':
          tools = true;
          break;
        case 'tool_result':
          tools = true;
          if (typeof part.content !== 'string') {
            for (const inner of part.content) {
              noteCache(inner.cache);
              if (inner.type === 'image') images += 1;
            }
          }
          break;
        case 'text':
        case 'reasoning':
          break;
        default:
          part satisfies never;
      }
    }
  }
  return {
    images,
    documents,
    tools,
    reasoning: request.reasoning !== undefined,
    ...(cacheTtl !== undefined ? { cacheTtl } : {}),
  };
}

/** The parts of an answer that belong in the conversation (a routed call's `answer` has them). */
export interface AnswerContent {
  readonly text: string;
  readonly toolCalls: readonly { readonly id: string; readonly name: string; readonly arguments: string }[];
  readonly reasoning?: readonly ReasoningPart[];
}

/**
 * The assistant message to append to a conversation for `answer`: its reasoning (kept with its origin, so it
 * is sent back only to the provider kind that made it), text and tool calls, unchanged. The next turn is this
 * message, then a `tool` message with the results of its tool calls.
 */
export function assistantMessageOf(answer: AnswerContent): AssistantMessage {
  const parts: AssistantContentPart[] = [
    ...(answer.reasoning ?? []),
    ...(answer.text !== '' ? [{ type: 'text' as const, text: answer.text }] : []),
    ...answer.toolCalls.map((call) => ({
      type: 'tool_call' as const,
      id: call.id,
      name: call.name,
      arguments: call.arguments,
    })),
  ];
  // A message needs content: an empty answer (rare; a stop with nothing said) is kept as an empty text part.
  return { role: 'assistant', content: parts.length > 0 ? parts : [{ type: 'text', text: '' }] };
}

// Turns the neutral conversation into Responses API `input` items: messages, function calls and their outputs,
// and this kind's own reasoning items. Pure; worker side.
import type {
  EasyInputMessage,
  ResponseFunctionCallOutputItem,
  ResponseFunctionToolCall,
  ResponseInputContent,
  ResponseInputImage,
  ResponseInputItem,
  ResponseOutputMessage,
  ResponseReasoningItem,
} from 'openai/resources/responses/responses';
import { toolResultText } from '../../config/conversation';
import type {
  AssistantMessage,
  ImagePart,
  Message,
  ReasoningPart,
  ToolResultPart,
  UserMessage,
} from '../../config/request';
import { reasoningFor } from '../../routing/conversation-fit';
import type { RequestRefusal } from '../refuse-request';
import { responsesCallId } from './responses-tool-call-id';

/**
 * An earlier answer's text sent back: a `message` item of `output_text`, as the API returned it, without the id
 * and status it had (stateless: no stored item is referred to).
 */
export type AssistantMessageItem = Omit<ResponseOutputMessage, 'id' | 'status'>;

/** A reasoning item sent back; the SDK types its id as required, the API takes an item that lost it. */
export type ReasoningInputItem = Omit<ResponseReasoningItem, 'id' | 'status'> & { id?: string };

/** One item of `input`: the SDK's input items, plus the two above. */
export type ResponsesInputItem = ResponseInputItem | AssistantMessageItem | ReasoningInputItem;

/** What the conversion needs beyond the messages. */
export interface InputOptions {
  /**
   * The model makes and takes reasoning items. When false, reasoning is never sent: OpenAI refuses encrypted
   * reasoning for a model that does not reason. @default true
   */
  readonly reasoningItems?: boolean;
}

/** An image as `input_image`: its URL, or its bytes as a data URL. `detail` `auto` is the API's own default. */
export function inputImage(part: ImagePart, path: string, refuse: RequestRefusal): ResponseInputImage {
  let url: string;
  if (part.url !== undefined) url = part.url;
  else if (part.data !== undefined && part.mediaType !== undefined)
    url = `data:${part.mediaType};base64,${part.data}`;
  else throw refuse(path, 'an image needs a url, or data with its mediaType');
  return { type: 'input_image', image_url: url, detail: part.detail ?? 'auto' };
}

function userMessage(message: UserMessage, path: string, refuse: RequestRefusal): EasyInputMessage {
  if (typeof message.content === 'string') return { type: 'message', role: 'user', content: message.content };
  const content = message.content.map((part, index): ResponseInputContent => {
    // Every part's `cache` is a known no-op: OpenAI caches prompt prefixes by itself, at no write price.
    switch (part.type) {
      case 'text':
        return { type: 'input_text', text: part.text };
      case 'image':
        return inputImage(part, `${path}.content[${index}]`, refuse);
      case 'document':
        return {
          type: 'input_file',
          filename: part.title ?? 'document.pdf',
          file_data: `data:${part.mediaType};base64,${part.data}`,
        };
      default:
        return part satisfies never;
    }
  });
  return { type: 'message', role: 'user', content };
}

function assistantText(text: string): AssistantMessageItem {
  return { type: 'message', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] };
}

/**
 * A reasoning item, for a part this kind made and can take back. Sent statelessly, so only with its encrypted
 * content (an id alone names a stored item, and with `store: false` there is none: OpenAI's 404) and its `rs_…` id,
 * which the API requires on the item. The summary goes back as one text (the parts it came in were joined);
 * OpenAI reads the encrypted content, not the summary.
 */
function reasoningItem(part: ReasoningPart): ReasoningInputItem | undefined {
  if (!reasoningFor(part, 'openai-responses') || part.signature === undefined || part.id === undefined)
    return undefined;
  return {
    type: 'reasoning',
    id: part.id,
    summary: part.text === '' ? [] : [{ type: 'summary_text', text: part.text }],
    encrypted_content: part.signature,
  };
}

/**
 * OpenAI wants each reasoning item followed by the item it led to (a refusal otherwise: "provided without its
 * required following item"). An answer carried as neutral parts keeps its reasoning first, then its text, then its
 * calls, so a response that went reasoning, call, reasoning, call comes back as two reasoning parts in a row. A run
 * of reasoning items is so dealt out again, one before each of the items that follow the run; a run longer than
 * the items after it keeps its last ones (the reasoning nearest the output), and reasoning at the very end of a turn
 * (an answer cut off while thinking) is not sent.
 */
function placeReasoning(items: readonly ResponsesInputItem[]): ResponsesInputItem[] {
  const placed: ResponsesInputItem[] = [];
  let index = 0;
  while (index < items.length) {
    const run: ResponsesInputItem[] = [];
    while (index < items.length && items[index]!.type === 'reasoning') run.push(items[index++]!);
    const followers: ResponsesInputItem[] = [];
    while (index < items.length && items[index]!.type !== 'reasoning') followers.push(items[index++]!);
    const kept = run.slice(Math.max(run.length - followers.length, 0));
    followers.forEach((follower, position) => {
      const reasoning = kept[position];
      if (reasoning !== undefined) placed.push(reasoning);
      placed.push(follower);
    });
  }
  return placed;
}

/**
 * One assistant message as items, in the order of its parts: a run of text parts is one `message` (they are
 * pieces of one answer), each tool call a `function_call`, each reasoning part of this kind a `reasoning` item
 * before the items that followed it (see {@link placeReasoning}).
 */
function assistantItems(message: AssistantMessage, options: InputOptions): ResponsesInputItem[] {
  if (typeof message.content === 'string') return [assistantText(message.content)];
  const items: ResponsesInputItem[] = [];
  let text = '';
  const endText = () => {
    if (text !== '') items.push(assistantText(text));
    text = '';
  };
  for (const part of message.content) {
    switch (part.type) {
      case 'text':
        text += part.text;
        break;
      case 'tool_call': {
        endText();
        const call: ResponseFunctionToolCall = {
          type: 'function_call',
          // The same mapping as its output's call_id, so the pair still matches.
          call_id: responsesCallId(part.id),
          name: part.name,
          arguments: part.arguments,
        };
        items.push(call);
        break;
      }
      case 'reasoning': {
        endText();
        const item = options.reasoningItems === false ? undefined : reasoningItem(part);
        if (item !== undefined) items.push(item);
        break;
      }
      default:
        part satisfies never;
    }
  }
  endText();
  return placeReasoning(items);
}

/**
 * A tool result as `function_call_output`: text as one string; with images, the list form (`input_text` and
 * `input_image` in the result's order), which the Responses API takes in a tool output, unlike Chat Completions.
 * `isError` is a known no-op: the format has no error flag, and the content already says what went wrong. `name`
 * is not sent either: an output names its call by `call_id`.
 */
function toolOutput(result: ToolResultPart, path: string, refuse: RequestRefusal): ResponseInputItem {
  const call_id = responsesCallId(result.callId);
  const hasImages =
    typeof result.content !== 'string' && result.content.some((part) => part.type === 'image');
  if (typeof result.content === 'string' || !hasImages) {
    return { type: 'function_call_output', call_id, output: toolResultText(result.content) };
  }
  const output = result.content.map((part, index): ResponseFunctionCallOutputItem => {
    switch (part.type) {
      case 'text':
        return { type: 'input_text', text: part.text };
      case 'image':
        return inputImage(part, `${path}.content[${index}]`, refuse);
      default:
        return part satisfies never;
    }
  });
  return { type: 'function_call_output', call_id, output };
}

/** The conversation as `input` items, oldest first. The system prompt is not among them: it is `instructions`. */
export function convertInput(
  messages: readonly Message[],
  refuse: RequestRefusal,
  options: InputOptions = {},
): ResponsesInputItem[] {
  const items: ResponsesInputItem[] = [];
  messages.forEach((message, index) => {
    const path = `messages[${index}]`;
    switch (message.role) {
      case 'user':
        items.push(userMessage(message, path, refuse));
        break;
      case 'assistant':
        items.push(...assistantItems(message, options));
        break;
      case 'tool':
        message.content.forEach((result, resultIndex) => {
          items.push(toolOutput(result, `${path}.content[${resultIndex}]`, refuse));
        });
        break;
      default:
        message satisfies never;
    }
  });
  return items;
}

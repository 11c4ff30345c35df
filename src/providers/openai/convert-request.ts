// Turns a neutral GenerationRequest into an OpenAI Chat Completions request body. Pure; worker side.
import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionContentPart,
  ChatCompletionContentPartImage,
  ChatCompletionContentPartText,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
  ChatCompletionToolChoiceOption,
  ChatCompletionToolMessageParam,
  ChatCompletionUserMessageParam,
} from 'openai/resources/chat/completions';
import type { ReasoningEffort } from 'openai/resources/shared';
import { systemText, toolResultText } from '../../config/conversation';
import type {
  AssistantMessage,
  GenerationRequest,
  ImagePart,
  ReasoningOptions,
  TextPart,
  ToolResultPart,
  UserMessage,
} from '../../config/request';
import { openAIToolCallId } from './openai-tool-call-id';
import { optionMismatch } from '../../routing/kind-options';
import { requestRefusal, type RequestRefusal } from '../refuse-request';

/** The two provider kinds this adapter serves. */
export type OpenAIChatKind = 'openai' | 'openai-compatible';

/** Which field carries the output bound; see {@link maxTokensFieldFor}. */
export type MaxTokensField = 'max_completion_tokens' | 'max_tokens';

/** The body sent: the SDK's type, plus `top_k`, which compatible servers (vLLM, llama.cpp) take and OpenAI does not. */
export type OpenAIChatRequestBody = ChatCompletionCreateParamsNonStreaming & { top_k?: number };

/**
 * OpenAI itself deprecated `max_tokens` for Chat Completions and its reasoning models reject it, so kind
 * `openai` sends `max_completion_tokens`. Many OpenAI-compatible servers (older vLLM, llama.cpp, some
 * hosted gateways) know only `max_tokens` and silently ignore the newer field — the bound would not
 * hold and the budget reservation could be exceeded — so kind `openai-compatible` sends `max_tokens`.
 */
export function maxTokensFieldFor(kind: OpenAIChatKind): MaxTokensField {
  return kind === 'openai' ? 'max_completion_tokens' : 'max_tokens';
}

/**
 * The effort for a token budget: Chat Completions has no budget, only `reasoning_effort`, so a budget maps to
 * the nearest effort (at most 2048 tokens low, at most 8192 medium, else high).
 */
export function reasoningEffortFor(reasoning: ReasoningOptions): ReasoningEffort {
  if (reasoning.effort !== undefined) return reasoning.effort;
  const budget = reasoning.budgetTokens ?? 0;
  if (budget <= 2048) return 'low';
  if (budget <= 8192) return 'medium';
  return 'high';
}

/**
 * Converts `request` for a Chat Completions endpoint of `kind`. Throws an `invalid_request` ProviderError with
 * `requestSent: false` (from `refuse`) for what the format cannot honour, before anything is sent.
 * @param refuse builds the refusal error @default errors labelled `<kind> <model>`
 */
export function convertRequest(
  model: string,
  request: GenerationRequest,
  kind: OpenAIChatKind,
  refuse: RequestRefusal = requestRefusal(`${kind} ${model}`),
): OpenAIChatRequestBody {
  const tools = request.tools ?? [];
  const hasTools = tools.length > 0;
  // The kind's own limits (the rule the route walk skips by), refused here as the last guard.
  const mismatch = optionMismatch(kind, request);
  if (mismatch) throw refuse(mismatch.field, mismatch.reason);
  const toolChoice = convertToolChoice(request);
  return {
    model,
    messages: convertMessages(request, kind, refuse),
    [maxTokensFieldFor(kind)]: request.maxOutputTokens,
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.topP !== undefined ? { top_p: request.topP } : {}),
    ...(request.topK !== undefined ? { top_k: request.topK } : {}),
    ...(request.seed !== undefined ? { seed: request.seed } : {}),
    ...(request.stopSequences !== undefined && request.stopSequences.length > 0
      ? { stop: request.stopSequences }
      : {}),
    ...(hasTools
      ? {
          tools: tools.map((tool) => ({
            type: 'function' as const,
            // A tool's `cache` is a known no-op: OpenAI caches prompt prefixes by itself.
            function: {
              name: tool.name,
              ...(tool.description !== undefined ? { description: tool.description } : {}),
              parameters: tool.parameters,
              ...(tool.strict !== undefined ? { strict: tool.strict } : {}),
            },
          })),
        }
      : {}),
    ...(toolChoice !== undefined ? { tool_choice: toolChoice } : {}),
    // OpenAI refuses parallel_tool_calls without tools; with no tools there are no calls to run in parallel.
    ...(hasTools && request.parallelToolCalls !== undefined
      ? { parallel_tool_calls: request.parallelToolCalls }
      : {}),
    // Both kinds take reasoning_effort (OpenAI's reasoning models, and compatible servers that reason).
    ...(request.reasoning !== undefined ? { reasoning_effort: reasoningEffortFor(request.reasoning) } : {}),
    ...(request.jsonSchema !== undefined
      ? {
          response_format: {
            type: 'json_schema',
            json_schema: { name: 'response', schema: request.jsonSchema },
          },
        }
      : {}),
  };
}

/**
 * OpenAI refuses `tool_choice` without `tools`: `auto` and `none` then mean what the request does anyway and are
 * left out (a forced call without its tool never gets here: the request schema refuses it).
 */
function convertToolChoice(request: GenerationRequest): ChatCompletionToolChoiceOption | undefined {
  const choice = request.toolChoice;
  if (choice === undefined || (request.tools ?? []).length === 0) return undefined;
  if (typeof choice === 'string') return choice;
  return { type: 'function', function: { name: choice.name } };
}

/** Text parts as Chat Completions content parts. A part's `cache` is a known no-op: OpenAI caches on its own. */
function textParts(parts: readonly TextPart[]): ChatCompletionContentPartText[] {
  return parts.map((part) => ({ type: 'text', text: part.text }));
}

/**
 * Text content for system and tool messages: OpenAI takes text parts; compatible servers are sent one string,
 * because several (older vLLM, llama.cpp templates) take only a string there.
 */
function textContent(
  parts: readonly TextPart[],
  joined: string,
  kind: OpenAIChatKind,
): string | ChatCompletionContentPartText[] {
  return kind === 'openai' ? textParts(parts) : joined;
}

function convertMessages(
  request: GenerationRequest,
  kind: OpenAIChatKind,
  refuse: RequestRefusal,
): ChatCompletionMessageParam[] {
  const messages: ChatCompletionMessageParam[] = [];
  // Chat Completions has no separate system field: the system prompt is the first message.
  if (request.system !== undefined) {
    messages.push({
      role: 'system',
      content:
        typeof request.system === 'string'
          ? request.system
          : textContent(request.system, systemText(request.system) ?? '', kind),
    });
  }
  // Images from tool results wait here until the tool messages of the turn are all sent (see convertToolMessage).
  let toolImages: ChatCompletionContentPart[] = [];
  const sendToolImages = () => {
    if (toolImages.length === 0) return;
    messages.push({ role: 'user', content: toolImages });
    toolImages = [];
  };
  request.messages.forEach((message, index) => {
    const path = `messages[${index}]`;
    switch (message.role) {
      case 'user':
        sendToolImages();
        messages.push(convertUserMessage(message, path, refuse));
        break;
      case 'assistant':
        sendToolImages();
        messages.push(convertAssistantMessage(message));
        break;
      case 'tool':
        message.content.forEach((result, resultIndex) => {
          const converted = convertToolResult(result, kind, `${path}.content[${resultIndex}]`, refuse);
          messages.push(converted.message);
          toolImages.push(...converted.images);
        });
        break;
      default:
        message satisfies never;
    }
  });
  sendToolImages();
  return messages;
}

function imageURL(part: ImagePart, path: string, refuse: RequestRefusal): ChatCompletionContentPartImage {
  let url: string;
  if (part.url !== undefined) url = part.url;
  else if (part.data !== undefined && part.mediaType !== undefined)
    url = `data:${part.mediaType};base64,${part.data}`;
  else throw refuse(path, 'an image needs a url, or data with its mediaType');
  return {
    type: 'image_url',
    image_url: { url, ...(part.detail !== undefined ? { detail: part.detail } : {}) },
  };
}

function convertUserMessage(
  message: UserMessage,
  path: string,
  refuse: RequestRefusal,
): ChatCompletionUserMessageParam {
  if (typeof message.content === 'string') return { role: 'user', content: message.content };
  const content = message.content.map((part, index): ChatCompletionContentPart => {
    // Every part's `cache` is a known no-op: OpenAI caches prompt prefixes by itself, at no write price.
    switch (part.type) {
      case 'text':
        return { type: 'text', text: part.text };
      case 'image':
        return imageURL(part, `${path}.content[${index}]`, refuse);
      case 'document':
        return {
          type: 'file',
          file: {
            file_data: `data:${part.mediaType};base64,${part.data}`,
            filename: part.title ?? 'document.pdf',
          },
        };
      default:
        return part satisfies never;
    }
  });
  return { role: 'user', content };
}

function convertAssistantMessage(message: AssistantMessage): ChatCompletionAssistantMessageParam {
  if (typeof message.content === 'string') return { role: 'assistant', content: message.content };
  let text = '';
  const toolCalls: ChatCompletionMessageToolCall[] = [];
  for (const part of message.content) {
    switch (part.type) {
      case 'text':
        // Text parts are pieces of one answer; like vercel/ai, they are sent as one content string.
        text += part.text;
        break;
      case 'tool_call':
        toolCalls.push({
          id: openAIToolCallId(part.id),
          type: 'function',
          function: { name: part.name, arguments: part.arguments },
        });
        break;
      case 'reasoning':
        // Chat Completions takes no reasoning input, whatever the part's origin (so `reasoningFor` never
        // applies here): OpenAI keeps its reasoning server-side and neither accepts nor needs it back, and
        // DeepSeek-style compatible servers ask that `reasoning_content` not be sent back. A known no-op.
        break;
      default:
        part satisfies never;
    }
  }
  if (toolCalls.length === 0) return { role: 'assistant', content: text };
  // OpenAI wants `content: null` (not an empty string) beside tool calls that come without text.
  return { role: 'assistant', content: text === '' ? null : text, tool_calls: toolCalls };
}

/** The text before a tool's images, which travel in a user message (see convertToolResult). */
export function toolImagesNote(callId: string): string {
  return `Images returned by tool call ${callId} (its output):`;
}

/** A tool message's text when the result is only images. */
export const TOOL_IMAGES_PLACEHOLDER = '(the output is the images in the next user message)';

/**
 * One tool result as its own `tool` message. A Chat Completions tool message carries text only (OpenAI refuses
 * an `image_url` part there), so a result's images travel in a user message after the turn's tool messages,
 * behind a short text naming the call. Peers differ: vercel/ai serializes such a result to JSON text (the
 * image's base64 billed as text and never seen as an image) and openai-agents drops the images; both change the
 * meaning or the cost, while a following user message keeps both: the model sees the images, billed as images.
 * `isError` is a known no-op: Chat Completions has no error flag, and the content already says what went wrong.
 * `name` is not sent either: a tool message names its call by id.
 */
function convertToolResult(
  result: ToolResultPart,
  kind: OpenAIChatKind,
  path: string,
  refuse: RequestRefusal,
): { message: ChatCompletionToolMessageParam; images: ChatCompletionContentPart[] } {
  const callId = openAIToolCallId(result.callId);
  if (typeof result.content === 'string') {
    return { message: { role: 'tool', tool_call_id: callId, content: result.content }, images: [] };
  }
  const texts: TextPart[] = [];
  const images: ChatCompletionContentPart[] = [];
  result.content.forEach((part, index) => {
    switch (part.type) {
      case 'text':
        texts.push(part);
        break;
      case 'image':
        images.push(imageURL(part, `${path}.content[${index}]`, refuse));
        break;
      default:
        part satisfies never;
    }
  });
  const shown: TextPart[] =
    texts.length === 0 && images.length > 0 ? [{ type: 'text', text: TOOL_IMAGES_PLACEHOLDER }] : texts;
  const message: ChatCompletionToolMessageParam = {
    role: 'tool',
    tool_call_id: callId,
    // An empty result is an empty string: OpenAI refuses an empty array of parts.
    content: shown.length === 0 ? '' : textContent(shown, toolResultText(shown), kind),
  };
  if (images.length === 0) return { message, images: [] };
  return { message, images: [{ type: 'text', text: toolImagesNote(callId) }, ...images] };
}

// The Anthropic Messages surface: request → routed call, message, stream events and errors in Anthropic's shapes. Node side.
import { z } from 'zod';
import type { GenerationRequestInput, Message, Tool } from '../config/request';
import type { OutputDelta, UnifiedFinishReason } from '../providers/types';
import type { GatewayError } from './gateway-error';
import { invalidField, parseBody, textOfParts } from './parse-body';
import type { RoutingSummary } from './routing-summary';
import {
  routingBody,
  sseEvent,
  type Answer,
  type ResponseIdentity,
  type StreamRenderer,
  type Surface,
  type SurfaceRequest,
} from './surface';

const BlockSchema = z.looseObject({ type: z.string(), text: z.unknown().optional() });

const MessagesRequestSchema = z.looseObject({
  /** A route name; absent for the default route. */
  model: z.string().min(1).optional(),
  max_tokens: z.number().int().positive().optional(),
  messages: z
    .array(
      z.looseObject({
        role: z.enum(['user', 'assistant']),
        content: z.union([z.string(), z.array(BlockSchema)]),
      }),
    )
    .min(1),
  system: z.union([z.string(), z.array(BlockSchema)]).optional(),
  temperature: z.number().optional(),
  stream: z.boolean().optional(),
  stop_sequences: z.array(z.string()).optional(),
  tools: z
    .array(
      z.looseObject({
        name: z.string(),
        description: z.string().optional(),
        input_schema: z.record(z.string(), z.unknown()),
      }),
    )
    .optional(),
  tool_choice: z.looseObject({ type: z.string() }).optional(),
});

function text(content: string | z.infer<typeof BlockSchema>[], where: string): string {
  const converted = textOfParts(content);
  if ('unsupported' in converted) {
    throw invalidField(
      `${where}.${converted.index}`,
      `only text blocks are supported by the gateway yet, not "${converted.unsupported}"`,
    );
  }
  return converted.text;
}

function convertTools(body: z.infer<typeof MessagesRequestSchema>): Tool[] | undefined {
  const choice = body.tool_choice?.type;
  if (choice === 'none') return undefined;
  if (choice !== undefined && choice !== 'auto') {
    throw invalidField('tool_choice.type', 'only "auto" and "none" are supported');
  }
  if (!body.tools || body.tools.length === 0) return undefined;
  return body.tools.map((tool) => ({
    name: tool.name,
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    parameters: tool.input_schema,
  }));
}

export function parseAnthropicRequest(raw: unknown): SurfaceRequest {
  const body = parseBody(MessagesRequestSchema, raw);
  if (body.stop_sequences && body.stop_sequences.length > 0) {
    throw invalidField('stop_sequences', 'stop sequences are not supported by the gateway yet');
  }
  const messages: Message[] = body.messages.map((message, index) => ({
    role: message.role,
    content: text(message.content, `messages.${index}.content`),
  }));
  const system = body.system === undefined ? undefined : text(body.system, 'system');
  const tools = convertTools(body);
  const request: GenerationRequestInput = {
    messages,
    ...(system ? { system } : {}),
    ...(body.max_tokens !== undefined ? { maxOutputTokens: body.max_tokens } : {}),
    ...(body.temperature !== undefined ? { temperature: body.temperature } : {}),
    ...(tools ? { tools } : {}),
  };
  return {
    ...(body.model !== undefined ? { route: body.model } : {}),
    request,
    stream: body.stream === true,
    // Anthropic's stream always ends with its usage (message_delta).
    includeUsage: true,
  };
}

const STOP_REASONS: Readonly<Record<UnifiedFinishReason, string>> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  content_filter: 'refusal',
  refusal: 'refusal',
  other: 'end_turn',
};

function usageOf(answer: Answer) {
  return {
    input_tokens: answer.usage.inputTokens,
    output_tokens: answer.usage.outputTokens,
    cache_read_input_tokens: answer.usage.cachedInputTokens,
    cache_creation_input_tokens: 0,
  };
}

function parsedInput(argumentsText: string): unknown {
  try {
    return JSON.parse(argumentsText === '' ? '{}' : argumentsText);
  } catch {
    return {};
  }
}

/** Anthropic's error `type` of each gateway error kind. */
const ERROR_TYPES: Readonly<Record<GatewayError['kind'], string>> = {
  invalid_request: 'invalid_request_error',
  authentication: 'authentication_error',
  permission: 'permission_error',
  not_found: 'not_found_error',
  request_too_large: 'request_too_large',
  budget: 'billing_error',
  refused: 'invalid_request_error',
  unavailable: 'overloaded_error',
  upstream: 'api_error',
  timeout: 'timeout_error',
  cancelled: 'api_error',
  internal: 'api_error',
};

function errorBody(error: GatewayError, routing?: RoutingSummary) {
  const switchyard = routingBody(routing);
  return {
    type: 'error',
    error: {
      type: ERROR_TYPES[error.kind],
      message: error.message,
      code: error.code,
      ...(error.context.param !== undefined ? { param: error.context.param } : {}),
    },
    ...(switchyard ? { switchyard } : {}),
  };
}

class AnthropicStreamRenderer implements StreamRenderer {
  /** The open content block: its index, and for a tool call its place among the answer's tool calls. */
  private block: { index: number; tool?: number } | undefined;
  private blocks = 0;

  private event(type: string, data: Record<string, unknown>): string {
    return sseEvent({ type, ...data }, type);
  }

  private closeBlock(): string {
    if (!this.block) return '';
    const text = this.event('content_block_stop', { index: this.block.index });
    this.block = undefined;
    return text;
  }

  private openBlock(contentBlock: Record<string, unknown>, tool?: number): string {
    const closed = this.closeBlock();
    this.block = { index: this.blocks, ...(tool !== undefined ? { tool } : {}) };
    this.blocks += 1;
    return (
      closed + this.event('content_block_start', { index: this.block.index, content_block: contentBlock })
    );
  }

  start(identity: ResponseIdentity): string {
    return this.event('message_start', {
      message: {
        id: identity.id,
        type: 'message',
        role: 'assistant',
        model: identity.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        // The input count is known only when the answer is complete: message_delta carries it.
        usage: { input_tokens: 0, output_tokens: 0 },
      },
    });
  }

  delta(delta: OutputDelta): string {
    if (delta.type === 'text') {
      const opened =
        this.block && this.block.tool === undefined ? '' : this.openBlock({ type: 'text', text: '' });
      return (
        opened +
        this.event('content_block_delta', {
          index: this.block!.index,
          delta: { type: 'text_delta', text: delta.text },
        })
      );
    }
    const opened =
      this.block?.tool === delta.index
        ? ''
        : this.openBlock(
            { type: 'tool_use', id: delta.id ?? `toolu_${delta.index}`, name: delta.name ?? '', input: {} },
            delta.index,
          );
    if (delta.arguments === '') return opened;
    return (
      opened +
      this.event('content_block_delta', {
        index: this.block!.index,
        delta: { type: 'input_json_delta', partial_json: delta.arguments },
      })
    );
  }

  finish(answer: Answer, routing: RoutingSummary): string {
    return (
      this.closeBlock() +
      this.event('message_delta', {
        delta: { stop_reason: STOP_REASONS[answer.finishReason.unified], stop_sequence: null },
        usage: usageOf(answer),
        switchyard: routingBody(routing),
      }) +
      this.event('message_stop', {})
    );
  }

  error(error: GatewayError, routing: RoutingSummary): string {
    return sseEvent(errorBody(error, routing), 'error');
  }
}

export const anthropicSurface: Surface = {
  name: 'anthropic',
  parse: parseAnthropicRequest,
  answer(answer, identity, routing) {
    return {
      id: identity.id,
      type: 'message',
      role: 'assistant',
      model: identity.model,
      content: [
        ...(answer.text !== '' ? [{ type: 'text', text: answer.text }] : []),
        ...answer.toolCalls.map((call) => ({
          type: 'tool_use',
          id: call.id,
          name: call.name,
          input: parsedInput(call.arguments),
        })),
      ],
      stop_reason: STOP_REASONS[answer.finishReason.unified],
      stop_sequence: null,
      usage: usageOf(answer),
      switchyard: routingBody(routing),
    };
  },
  errorBody,
  streamRenderer: () => new AnthropicStreamRenderer(),
};

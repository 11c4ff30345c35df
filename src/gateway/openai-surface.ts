// The OpenAI Chat Completions surface: request → routed call, answer, chunks and errors in OpenAI's shapes. Node side.
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

const ContentPartSchema = z.looseObject({ type: z.string(), text: z.unknown().optional() });

const ChatRequestSchema = z.looseObject({
  /** A route name; absent for the default route. */
  model: z.string().min(1).optional(),
  messages: z
    .array(
      z.looseObject({
        role: z.string(),
        content: z.union([z.string(), z.array(ContentPartSchema), z.null()]).optional(),
        tool_calls: z.array(z.unknown()).optional(),
      }),
    )
    .min(1),
  max_tokens: z.number().int().positive().nullish(),
  max_completion_tokens: z.number().int().positive().nullish(),
  temperature: z.number().nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
  n: z.number().int().nullish(),
  stop: z.union([z.string(), z.array(z.string())]).nullish(),
  tools: z
    .array(
      z.looseObject({
        type: z.literal('function'),
        function: z.looseObject({
          name: z.string(),
          description: z.string().optional(),
          parameters: z.record(z.string(), z.unknown()).optional(),
        }),
      }),
    )
    .nullish(),
  tool_choice: z.unknown().optional(),
  response_format: z
    .looseObject({
      type: z.enum(['text', 'json_object', 'json_schema']),
      json_schema: z.looseObject({ schema: z.record(z.string(), z.unknown()).optional() }).optional(),
    })
    .nullish(),
});

function convertMessages(messages: z.infer<typeof ChatRequestSchema>['messages']): {
  system?: string;
  messages: Message[];
} {
  const system: string[] = [];
  const converted: Message[] = [];
  for (const [index, message] of messages.entries()) {
    const where = `messages.${index}`;
    if (message.role === 'tool' || message.role === 'function') {
      throw invalidField(`${where}.role`, 'tool results are not supported by the gateway yet');
    }
    if (message.tool_calls && message.tool_calls.length > 0) {
      throw invalidField(`${where}.tool_calls`, 'earlier tool calls are not supported by the gateway yet');
    }
    if (!['system', 'developer', 'user', 'assistant'].includes(message.role)) {
      throw invalidField(`${where}.role`, `unknown role "${message.role}"`);
    }
    if (message.content === undefined || message.content === null) {
      throw invalidField(`${where}.content`, 'a message needs content');
    }
    const content = textOfParts(message.content);
    if ('unsupported' in content) {
      throw invalidField(
        `${where}.content.${content.index}`,
        `only text parts are supported, not "${content.unsupported}"`,
      );
    }
    if (message.role === 'system' || message.role === 'developer') system.push(content.text);
    else converted.push({ role: message.role as Message['role'], content: content.text });
  }
  if (converted.length === 0)
    throw invalidField('messages', 'at least one user or assistant message is required');
  return { ...(system.length > 0 ? { system: system.join('\n\n') } : {}), messages: converted };
}

function convertTools(body: z.infer<typeof ChatRequestSchema>): Tool[] | undefined {
  const choice = body.tool_choice;
  if (choice === 'none') return undefined;
  if (choice !== undefined && choice !== null && choice !== 'auto') {
    throw invalidField('tool_choice', 'only "auto" and "none" are supported');
  }
  if (!body.tools || body.tools.length === 0) return undefined;
  return body.tools.map((tool) => ({
    name: tool.function.name,
    ...(tool.function.description !== undefined ? { description: tool.function.description } : {}),
    parameters: tool.function.parameters ?? { type: 'object', properties: {} },
  }));
}

function convertResponseFormat(body: z.infer<typeof ChatRequestSchema>): Record<string, unknown> | undefined {
  const format = body.response_format;
  if (!format || format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'object' };
  const schema = format.json_schema?.schema;
  if (!schema)
    throw invalidField('response_format.json_schema.schema', 'a json_schema response format needs a schema');
  return schema;
}

export function parseOpenAIRequest(raw: unknown): SurfaceRequest {
  const body = parseBody(ChatRequestSchema, raw);
  if (body.n !== undefined && body.n !== null && body.n !== 1)
    throw invalidField('n', 'only one choice (n: 1) is supported');
  if (body.stop !== undefined && body.stop !== null && body.stop.length > 0) {
    throw invalidField('stop', 'stop sequences are not supported by the gateway yet');
  }
  const { system, messages } = convertMessages(body.messages);
  const tools = convertTools(body);
  const jsonSchema = convertResponseFormat(body);
  const maxOutputTokens = body.max_completion_tokens ?? body.max_tokens ?? undefined;
  const request: GenerationRequestInput = {
    messages,
    ...(system !== undefined ? { system } : {}),
    ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
    ...(body.temperature !== undefined && body.temperature !== null ? { temperature: body.temperature } : {}),
    ...(tools ? { tools } : {}),
    ...(jsonSchema ? { jsonSchema } : {}),
  };
  return {
    ...(body.model !== undefined ? { route: body.model } : {}),
    request,
    stream: body.stream === true,
    includeUsage: body.stream_options?.include_usage === true,
  };
}

const FINISH_REASONS: Readonly<Record<UnifiedFinishReason, string>> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool_calls',
  content_filter: 'content_filter',
  refusal: 'content_filter',
  other: 'stop',
};

function usageOf(answer: Answer) {
  const { inputTokens, cachedInputTokens, outputTokens } = answer.usage;
  const promptTokens = inputTokens + cachedInputTokens;
  return {
    prompt_tokens: promptTokens,
    completion_tokens: outputTokens,
    total_tokens: promptTokens + outputTokens,
    prompt_tokens_details: { cached_tokens: cachedInputTokens },
  };
}

/** OpenAI's error `type` of each gateway error kind. */
const ERROR_TYPES: Readonly<Record<GatewayError['kind'], string>> = {
  invalid_request: 'invalid_request_error',
  authentication: 'authentication_error',
  permission: 'permission_error',
  not_found: 'not_found_error',
  request_too_large: 'invalid_request_error',
  budget: 'insufficient_quota',
  refused: 'content_refused',
  unavailable: 'service_unavailable',
  upstream: 'upstream_error',
  timeout: 'timeout',
  cancelled: 'cancelled',
  internal: 'server_error',
};

function errorObject(error: GatewayError, routing?: RoutingSummary) {
  const switchyard = routingBody(routing);
  return {
    message: error.message,
    type: ERROR_TYPES[error.kind],
    param: error.context.param ?? null,
    code: error.code,
    ...(switchyard ? { switchyard } : {}),
  };
}

class OpenAIStreamRenderer implements StreamRenderer {
  private identity: ResponseIdentity | undefined;
  private readonly startedTools = new Set<number>();

  constructor(private readonly includeUsage: boolean) {}

  private chunk(delta: Record<string, unknown>, finishReason: string | null = null, extra = {}): string {
    return sseEvent({
      id: this.identity?.id,
      object: 'chat.completion.chunk',
      created: this.identity?.created,
      model: this.identity?.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      ...extra,
    });
  }

  start(identity: ResponseIdentity): string {
    this.identity = identity;
    return this.chunk({ role: 'assistant', content: '' });
  }

  delta(delta: OutputDelta): string {
    if (delta.type === 'text') return this.chunk({ content: delta.text });
    const first = !this.startedTools.has(delta.index);
    this.startedTools.add(delta.index);
    return this.chunk({
      tool_calls: [
        {
          index: delta.index,
          ...(first ? { id: delta.id ?? `call_${delta.index}`, type: 'function' } : {}),
          function: { ...(first ? { name: delta.name ?? '' } : {}), arguments: delta.arguments },
        },
      ],
    });
  }

  finish(answer: Answer, routing: RoutingSummary): string {
    // The routing metadata rides on the finish chunk, which every client reads: a chunk of its own with no
    // choices would break clients that index choices[0].
    const switchyard = routingBody(routing);
    let text = this.chunk({}, FINISH_REASONS[answer.finishReason.unified], { switchyard });
    if (this.includeUsage) {
      text += sseEvent({
        id: this.identity?.id,
        object: 'chat.completion.chunk',
        created: this.identity?.created,
        model: this.identity?.model,
        choices: [],
        usage: usageOf(answer),
        switchyard,
      });
    }
    return text + sseEvent('[DONE]');
  }

  error(error: GatewayError, routing: RoutingSummary): string {
    // OpenAI's own mid-stream error: a data line holding `error`; both SDKs throw it as an APIError.
    return sseEvent({ error: errorObject(error, routing) });
  }
}

export const openAISurface: Surface = {
  name: 'openai',
  parse: parseOpenAIRequest,
  answer(answer, identity, routing) {
    const toolCalls = answer.toolCalls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }));
    return {
      id: identity.id,
      object: 'chat.completion',
      created: identity.created,
      model: identity.model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: answer.text === '' && toolCalls.length > 0 ? null : answer.text,
            refusal: null,
            ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
          },
          logprobs: null,
          finish_reason: FINISH_REASONS[answer.finishReason.unified],
        },
      ],
      usage: usageOf(answer),
      switchyard: routingBody(routing),
    };
  },
  errorBody: (error, routing) => ({ error: errorObject(error, routing) }),
  streamRenderer: (request) => new OpenAIStreamRenderer(request.includeUsage),
};

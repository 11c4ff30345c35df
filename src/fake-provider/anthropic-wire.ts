// Anthropic Messages wire format for the fake provider: request reading, JSON bodies, SSE events. Node side; test/bench.
import { splitIntoDeltas, type FakeAnswer, type FakeFinish, type FakeParsedRequest } from './answer';
import { validateAnthropicRequest } from './anthropic-validate';
import { contentText, isRecord, sseEvent } from './content-text';
import { anthropicErrorResponse } from './error-catalog';
import type { FakeResponseIds, FakeStreamEvents, ProviderWire } from './provider-wire';
import { signThinking } from './thinking-signature';

/** Anthropic has no content-filter stop reason; both render as `refusal`. */
const STOP_REASONS: Record<FakeFinish, string> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  content_filter: 'refusal',
  refusal: 'refusal',
};

function parseRequest(body: unknown): FakeParsedRequest | string {
  if (!isRecord(body)) return 'There was an issue with the formatting or content of your request.';
  if (typeof body.model !== 'string' || body.model === '') return 'model: Field required';
  // The real API requires max_tokens; refusing here proves adapters always send it.
  if (typeof body.max_tokens !== 'number') return 'max_tokens: Field required';
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) return 'messages: at least one message is required';
  const problem = validateAnthropicRequest(body);
  if (problem !== undefined) return problem;
  const records = messages.filter(isRecord);
  const lastUser = [...records].reverse().find((message) => message.role === 'user');
  return {
    model: body.model,
    stream: body.stream === true,
    maxTokens: body.max_tokens,
    includeUsage: true,
    promptText: [contentText(body.system), ...records.map((message) => messageText(message.content))].join(
      '\n',
    ),
    lastUserText: lastUser ? messageText(lastUser.content) : '',
  };
}

/** Text of a message's content; a tool result's text counts (it is what the model reads next). */
function messageText(content: unknown): string {
  if (!Array.isArray(content)) return contentText(content);
  return content
    .map((block: unknown) =>
      isRecord(block) && block.type === 'tool_result' ? contentText(block.content) : contentText([block]),
    )
    .join('');
}

function usageObject(answer: FakeAnswer): Record<string, unknown> {
  const { cacheWriteInputTokens, cacheWrite1hInputTokens } = answer.usage;
  // Anthropic's input_tokens excludes cache reads and writes, which are reported separately; the writes'
  // total is split by lifetime in cache_creation.
  return {
    input_tokens: answer.usage.inputTokens,
    cache_creation_input_tokens: cacheWriteInputTokens + cacheWrite1hInputTokens,
    cache_read_input_tokens: answer.usage.cachedInputTokens,
    cache_creation: {
      ephemeral_5m_input_tokens: cacheWriteInputTokens,
      ephemeral_1h_input_tokens: cacheWrite1hInputTokens,
    },
    output_tokens: answer.usage.outputTokens,
    service_tier: 'standard',
  };
}

function contentBlocks(answer: FakeAnswer): Record<string, unknown>[] {
  if (answer.empty) return [];
  return [
    // Thinking comes first, signed so that sending it back unchanged passes the fake's own check.
    ...(answer.reasoning !== undefined
      ? [{ type: 'thinking', thinking: answer.reasoning, signature: signThinking(answer.reasoning) }]
      : []),
    ...(answer.redactedReasoning !== undefined
      ? [{ type: 'redacted_thinking', data: answer.redactedReasoning }]
      : []),
    ...(answer.text !== '' ? [{ type: 'text', text: answer.text }] : []),
    ...answer.toolCalls.map((call) => ({
      type: 'tool_use',
      id: call.id,
      name: call.name,
      input: call.arguments,
    })),
  ];
}

function jsonBody(
  answer: FakeAnswer,
  request: FakeParsedRequest,
  ids: FakeResponseIds,
): Record<string, unknown> {
  return {
    id: ids.responseId,
    type: 'message',
    role: 'assistant',
    model: request.model,
    content: contentBlocks(answer),
    // A non-streamed message always has a stop reason; null marks the invalid "empty" answer.
    stop_reason: answer.empty ? null : STOP_REASONS[answer.finish],
    stop_sequence: null,
    usage: usageObject(answer),
  };
}

function streamEvents(
  answer: FakeAnswer,
  request: FakeParsedRequest,
  ids: FakeResponseIds,
): FakeStreamEvents {
  const event = (type: string, fields: Record<string, unknown>) => sseEvent({ type, ...fields }, type);
  const events: string[] = [
    event('message_start', {
      message: {
        id: ids.responseId,
        type: 'message',
        role: 'assistant',
        model: request.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usageObject(answer), output_tokens: 1 },
      },
    }),
  ];
  let index = 0;
  if (!answer.empty && answer.reasoning !== undefined) {
    events.push(
      event('content_block_start', {
        index,
        content_block: { type: 'thinking', thinking: '', signature: '' },
      }),
    );
    for (const thinking of splitIntoDeltas(answer.reasoning)) {
      events.push(event('content_block_delta', { index, delta: { type: 'thinking_delta', thinking } }));
    }
    events.push(
      event('content_block_delta', {
        index,
        delta: { type: 'signature_delta', signature: signThinking(answer.reasoning) },
      }),
    );
    events.push(event('content_block_stop', { index }));
    index += 1;
  }
  if (!answer.empty && answer.redactedReasoning !== undefined) {
    events.push(
      event('content_block_start', {
        index,
        content_block: { type: 'redacted_thinking', data: answer.redactedReasoning },
      }),
    );
    events.push(event('content_block_stop', { index }));
    index += 1;
  }
  if (!answer.empty && answer.text !== '') {
    events.push(event('content_block_start', { index, content_block: { type: 'text', text: '' } }));
    events.push(event('ping', {}));
    for (const text of splitIntoDeltas(answer.text)) {
      events.push(event('content_block_delta', { index, delta: { type: 'text_delta', text } }));
    }
    events.push(event('content_block_stop', { index }));
    index += 1;
  }
  for (const call of answer.empty ? [] : answer.toolCalls) {
    events.push(
      event('content_block_start', {
        index,
        content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} },
      }),
    );
    const argumentsText = JSON.stringify(call.arguments);
    const half = Math.ceil(argumentsText.length / 2);
    for (const partial_json of [argumentsText.slice(0, half), argumentsText.slice(half)]) {
      events.push(event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } }));
    }
    events.push(event('content_block_stop', { index }));
    index += 1;
  }
  const finalEvents = [
    event('message_delta', {
      delta: { stop_reason: answer.empty ? null : STOP_REASONS[answer.finish], stop_sequence: null },
      usage: { output_tokens: answer.usage.outputTokens },
    }),
    event('message_stop', {}),
  ];
  return { events, finalEvents };
}

export const anthropicWire: ProviderWire = {
  provider: 'anthropic',
  requestIdHeader: 'request-id',
  responseIdPrefix: 'msg_fake',
  toolCallIdPrefix: 'toolu_',
  parseRequest,
  errorResponse: anthropicErrorResponse,
  invalidRequestResponse: (message, context) => ({
    status: 400,
    body: { type: 'error', error: { type: 'invalid_request_error', message }, request_id: context.requestId },
  }),
  jsonBody,
  streamEvents,
  // Anthropic reports an error inside a stream as an `error` event with the usual error body.
  streamErrorEvent: (name, context) => {
    const response = anthropicErrorResponse(name, context);
    const body =
      typeof response.body === 'string'
        ? { type: 'error', error: { type: 'api_error', message: 'Internal server error' } }
        : response.body;
    return sseEvent(body, 'error');
  },
};

// OpenAI Chat Completions wire format for the fake provider: request reading, JSON bodies, SSE chunks.
import { splitIntoDeltas, type FakeAnswer, type FakeFinish, type FakeParsedRequest } from './answer';
import { contentText, isRecord, sseEvent } from './content-text';
import { openAIErrorResponse, type FakeErrorResponse } from './error-catalog';
import { decodeProblem, encodeProblem, validateOpenAIRequest } from './openai-validate';
import type { FakeResponseIds, FakeStreamEvents, ProviderWire } from './provider-wire';

/** OpenAI reports refusals in `message.refusal` with an ordinary `stop`. */
const FINISH_REASONS: Record<FakeFinish, string> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool_calls',
  content_filter: 'content_filter',
  refusal: 'stop',
};

function parseRequest(body: unknown): FakeParsedRequest | string {
  if (!isRecord(body)) return 'We could not parse the JSON body of your request.';
  if (typeof body.model !== 'string' || body.model === '') return 'you must provide a model parameter';
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) return "Invalid 'messages': empty array.";
  const problem = validateOpenAIRequest(body);
  if (problem !== undefined) return encodeProblem(problem);
  const records = messages.filter(isRecord);
  const lastUser = [...records].reverse().find((message) => message.role === 'user');
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  return {
    model: body.model,
    stream: body.stream === true,
    maxTokens: typeof maxTokens === 'number' ? maxTokens : undefined,
    includeUsage: isRecord(body.stream_options) && body.stream_options.include_usage === true,
    promptText: records.map((message) => contentText(message.content)).join('\n'),
    lastUserText: lastUser ? contentText(lastUser.content) : '',
  };
}

function usageObject(answer: FakeAnswer): Record<string, unknown> {
  const { inputTokens, cachedInputTokens, outputTokens, reasoningTokens } = answer.usage;
  // OpenAI's prompt_tokens includes the cached ones; the details say how many were cached.
  const promptTokens = inputTokens + cachedInputTokens;
  return {
    prompt_tokens: promptTokens,
    completion_tokens: outputTokens,
    total_tokens: promptTokens + outputTokens,
    prompt_tokens_details: { cached_tokens: cachedInputTokens, audio_tokens: 0 },
    completion_tokens_details: {
      // Reasoning tokens are part of completion_tokens, as OpenAI counts them.
      reasoning_tokens: reasoningTokens,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

function jsonBody(
  answer: FakeAnswer,
  request: FakeParsedRequest,
  ids: FakeResponseIds,
): Record<string, unknown> {
  const toolCalls = answer.toolCalls.map((call) => ({
    id: call.id,
    type: 'function',
    function: { name: call.name, arguments: JSON.stringify(call.arguments) },
  }));
  const message = {
    role: 'assistant',
    content: answer.text === '' ? null : answer.text,
    refusal: answer.refusal ?? null,
    annotations: [],
    // As compatible servers (DeepSeek, vLLM) return a reasoning model's thinking.
    ...(answer.reasoning !== undefined ? { reasoning_content: answer.reasoning } : {}),
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
  };
  return {
    id: ids.responseId,
    object: 'chat.completion',
    created: ids.created,
    model: request.model,
    choices: answer.empty
      ? []
      : [{ index: 0, message, logprobs: null, finish_reason: FINISH_REASONS[answer.finish] }],
    usage: usageObject(answer),
    service_tier: 'default',
    system_fingerprint: 'fp_fake',
  };
}

function streamEvents(
  answer: FakeAnswer,
  request: FakeParsedRequest,
  ids: FakeResponseIds,
): FakeStreamEvents {
  const chunk = (choices: unknown[], usage: Record<string, unknown> | null = null) =>
    sseEvent({
      id: ids.responseId,
      object: 'chat.completion.chunk',
      created: ids.created,
      model: request.model,
      system_fingerprint: 'fp_fake',
      choices,
      // With include_usage every chunk carries `usage: null` except the last, which has no choices.
      ...(request.includeUsage ? { usage } : {}),
    });
  const delta = (fields: Record<string, unknown>) =>
    chunk([{ index: 0, delta: fields, logprobs: null, finish_reason: null }]);

  const events: string[] = [];
  if (!answer.empty) {
    events.push(delta({ role: 'assistant', content: '', refusal: null }));
    // Compatible servers stream the thinking first, in `reasoning_content` deltas with no content.
    for (const piece of splitIntoDeltas(answer.reasoning ?? '')) {
      events.push(delta({ content: null, reasoning_content: piece }));
    }
    for (const piece of splitIntoDeltas(answer.text)) events.push(delta({ content: piece }));
    for (const piece of splitIntoDeltas(answer.refusal ?? '')) events.push(delta({ refusal: piece }));
    answer.toolCalls.forEach((call, index) => {
      events.push(
        delta({
          tool_calls: [
            { index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } },
          ],
        }),
      );
      const argumentsText = JSON.stringify(call.arguments);
      const half = Math.ceil(argumentsText.length / 2);
      for (const piece of [argumentsText.slice(0, half), argumentsText.slice(half)]) {
        events.push(delta({ tool_calls: [{ index, function: { arguments: piece } }] }));
      }
    });
  }
  const finalEvents: string[] = [];
  if (!answer.empty) {
    finalEvents.push(
      chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: FINISH_REASONS[answer.finish] }]),
    );
  }
  if (request.includeUsage) finalEvents.push(chunk([], usageObject(answer)));
  finalEvents.push(sseEvent('[DONE]'));
  return { events, finalEvents };
}

function errorObject(response: FakeErrorResponse): unknown {
  if (typeof response.body === 'string') {
    return {
      message: 'The server had an error processing your request.',
      type: 'server_error',
      param: null,
      code: null,
    };
  }
  return response.body.error;
}

export const openAIWire: ProviderWire = {
  provider: 'openai',
  requestIdHeader: 'x-request-id',
  responseIdPrefix: 'chatcmpl-fake',
  toolCallIdPrefix: 'call_',
  parseRequest,
  errorResponse: openAIErrorResponse,
  invalidRequestResponse: (text) => {
    const { message, param, code } = decodeProblem(text);
    return { status: 400, body: { error: { message, type: 'invalid_request_error', param, code } } };
  },
  jsonBody,
  streamEvents,
  // OpenAI reports an error inside a stream as a data chunk with an `error` member.
  streamErrorEvent: (name, context) => sseEvent({ error: errorObject(openAIErrorResponse(name, context)) }),
};

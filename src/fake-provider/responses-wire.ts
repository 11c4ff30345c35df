// OpenAI Responses wire format for the fake provider (POST /v1/responses): request reading, JSON bodies, SSE
// events and errors. Node side; test/bench.
import type { FakeAnswer, FakeParsedRequest } from './answer';
import { contentText, isRecord } from './content-text';
import { openAIErrorResponse, type FakeErrorContext, type FakeErrorResponse } from './error-catalog';
import type { FakeResponseIds, FakeStreamPosition, ProviderWire } from './provider-wire';
import { outcomeOf, outputItems, responseObject, usageObject } from './responses-output';
import { decodeResponsesProblem, encodeResponsesProblem } from './responses-problem';
import { responsesEvent, responsesStreamEvents } from './responses-stream';
import { validateResponsesRequest } from './responses-validate';
import type { FakeErrorName } from './scenario';

/** The text the model reads in one input item (messages, call arguments, call outputs). */
function itemText(item: unknown): string {
  if (!isRecord(item)) return '';
  if (item.type === 'function_call') return `${String(item.name)}${String(item.arguments)}`;
  if (item.type === 'function_call_output') return contentText(item.output);
  return contentText(item.content);
}

function parseRequest(body: unknown): FakeParsedRequest | string {
  if (!isRecord(body)) {
    return encodeResponsesProblem({
      message: 'We could not parse the JSON body of your request.',
      param: null,
      code: null,
    });
  }
  const problem = validateResponsesRequest(body);
  if (problem !== undefined) return encodeResponsesProblem(problem);
  const input = body.input;
  const items: unknown[] =
    typeof input === 'string' ? [{ role: 'user', content: input }] : (input as unknown[]);
  const lastUser = [...items].reverse().find((item) => isRecord(item) && item.role === 'user');
  return {
    model: String(body.model),
    stream: body.stream === true,
    maxTokens: typeof body.max_output_tokens === 'number' ? body.max_output_tokens : undefined,
    // A Responses stream always ends with the whole response, usage included.
    includeUsage: true,
    promptText: [typeof body.instructions === 'string' ? body.instructions : '', ...items.map(itemText)].join(
      '\n',
    ),
    lastUserText: lastUser === undefined ? '' : itemText(lastUser),
    body,
  };
}

/**
 * The platform's errors, with the two whose wording names the Chat Completions request reworded for this
 * endpoint's `input`.
 */
function errorResponse(name: FakeErrorName, context: FakeErrorContext): FakeErrorResponse {
  const invalid = (message: string, code: string | null): FakeErrorResponse => ({
    status: 400,
    body: {
      error: { message, type: 'invalid_request_error', param: 'input', code: context.echo?.code ?? code },
    },
  });
  if (name === 'bad_request') return invalid("Invalid 'input': empty array.", 'empty_array');
  if (name === 'context_overflow') {
    return invalid(
      'Your input exceeds the context window of this model. Please adjust your input and try again.',
      'context_length_exceeded',
    );
  }
  return openAIErrorResponse(name, context);
}

function jsonBody(
  answer: FakeAnswer,
  request: FakeParsedRequest,
  ids: FakeResponseIds,
): Record<string, unknown> {
  const outcome = outcomeOf(answer);
  return responseObject(request, ids, {
    status: outcome.status,
    output: outputItems(answer, request, ids),
    usage: usageObject(answer),
    incompleteDetails: outcome.incompleteDetails,
  });
}

/** The error object of an error body (a load balancer's HTML page reads as OpenAI's generic server error). */
function errorObject(response: FakeErrorResponse): Record<string, unknown> {
  const error = typeof response.body === 'string' ? undefined : response.body.error;
  if (isRecord(error)) return error;
  return {
    type: 'server_error',
    code: 'server_error',
    message: 'The server had an error processing your request.',
    param: null,
  };
}

/**
 * A failure after the stream began: by default `response.failed`, whose `error` takes the codes a response
 * object's error may have; or an `error` event carrying the platform's error object, as sent on rate limits.
 */
function streamErrorEvent(
  name: FakeErrorName,
  context: FakeErrorContext,
  position: FakeStreamPosition,
): string {
  const error = errorObject(errorResponse(name, context));
  if (position.event === 'error') {
    return responsesEvent('error', position.sent, {
      error: { type: error.type, code: error.code, message: error.message, param: error.param ?? null },
    });
  }
  const code = name === 'rate_limited' ? 'rate_limit_exceeded' : 'server_error';
  const response = responseObject(position.request, position.ids, {
    status: 'failed',
    output: [],
    usage: null,
    error: { code, message: String(error.message) },
  });
  return responsesEvent('response.failed', position.sent, { response });
}

export const responsesWire: ProviderWire = {
  provider: 'openai-responses',
  requestIdHeader: 'x-request-id',
  responseIdPrefix: 'resp_fake',
  toolCallIdPrefix: 'call_',
  parseRequest,
  errorResponse,
  invalidRequestResponse: (text) => {
    const { message, param, code, status } = decodeResponsesProblem(text);
    return { status, body: { error: { message, type: 'invalid_request_error', param, code } } };
  },
  jsonBody,
  streamEvents: responsesStreamEvents,
  streamErrorEvent,
};

// The OpenAI Chat Completions surface: request → routed call, answer, chunks and errors in OpenAI's shapes. Node side.
import type { GatewayError } from './gateway-error';
import { parseOpenAIRequest } from './openai-parse';
import { chatCompletionOf, OpenAIStreamRenderer } from './openai-render';
import type { RoutingSummary } from './routing-summary';
import { routingBody, type Surface } from './surface';

export { OPENAI_IGNORED_FIELDS, parseOpenAIRequest } from './openai-parse';

/** OpenAI's error `type` of each gateway error kind. */
const ERROR_TYPES: Readonly<Record<GatewayError['kind'], string>> = {
  invalid_request: 'invalid_request_error',
  authentication: 'authentication_error',
  permission: 'permission_error',
  not_found: 'not_found_error',
  conflict: 'invalid_request_error',
  request_too_large: 'invalid_request_error',
  rate_limited: 'rate_limit_exceeded',
  budget: 'insufficient_quota',
  refused: 'content_refused',
  unavailable: 'service_unavailable',
  upstream: 'upstream_error',
  timeout: 'timeout',
  cancelled: 'cancelled',
  internal: 'server_error',
};

/** OpenAI's error body (Chat Completions and Responses alike), with the routing metadata when there was a call. */
export function openAIErrorBody(error: GatewayError, routing?: RoutingSummary) {
  const switchyard = routingBody(routing);
  return {
    error: {
      message: error.message,
      type: ERROR_TYPES[error.kind],
      param: error.context.param ?? null,
      code: error.code,
      ...(switchyard ? { switchyard } : {}),
    },
  };
}

export const openAISurface = {
  name: 'openai',
  outputLimitField: 'max_tokens',
  answersBeforeRecord: true,
  parse: parseOpenAIRequest,
  answer: chatCompletionOf,
  errorBody: openAIErrorBody,
  streamRenderer: (request) => new OpenAIStreamRenderer(request.includeUsage, openAIErrorBody),
} satisfies Surface;

// The Anthropic Messages surface: request → routed call, message, stream events and errors in Anthropic's shapes. Node side.
import type { GatewayError } from './gateway-error';
import { parseAnthropicRequest } from './anthropic-parse';
import { AnthropicStreamRenderer, answerContent, STOP_REASONS, usageOf } from './anthropic-render';
import type { RoutingSummary } from './routing-summary';
import { routingBody, type Surface, type SurfaceRequest } from './surface';

export { ANTHROPIC_IGNORED_FIELDS, parseAnthropicRequest } from './anthropic-parse';

/** Anthropic's error `type` of each gateway error kind. */
const ERROR_TYPES: Readonly<Record<GatewayError['kind'], string>> = {
  invalid_request: 'invalid_request_error',
  authentication: 'authentication_error',
  permission: 'permission_error',
  not_found: 'not_found_error',
  conflict: 'invalid_request_error',
  request_too_large: 'request_too_large',
  rate_limited: 'rate_limit_error',
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

export const anthropicSurface = {
  name: 'anthropic',
  outputLimitField: 'max_tokens',
  answersBeforeRecord: true,
  parse: parseAnthropicRequest,
  answer(answer, identity, routing) {
    return {
      id: identity.id,
      type: 'message',
      role: 'assistant',
      model: identity.model,
      content: answerContent(answer),
      stop_reason: STOP_REASONS[answer.finishReason.unified],
      stop_sequence: null,
      usage: usageOf(answer),
      switchyard: routingBody(routing),
    };
  },
  errorBody,
  // Every Anthropic stream is the same: its request changes nothing in it.
  streamRenderer: (_request: SurfaceRequest) => new AnthropicStreamRenderer(errorBody),
} satisfies Surface;

// The fake provider's errors in each provider's real status and body shape. Pure data; test/bench side.
import type { FakeErrorName } from './scenario';

export interface FakeErrorResponse {
  readonly status: number;
  /** A JSON body, or a verbatim text body (gateways answer some errors with HTML). */
  readonly body: Record<string, unknown> | string;
}

export interface FakeErrorContext {
  readonly model: string;
  readonly requestId: string;
  /** The last four characters of the caller's key, which OpenAI really echoes in its 401 message. */
  readonly apiKeyTail: string;
  /** What a scenario's `echoApiKey` puts into the error: the key as its code, and/or after its message. */
  readonly echo?: { readonly code?: string; readonly text?: string };
}

/** The message with the echoed key after it, when the scenario asks for one. */
function echoedMessage(message: string, context: FakeErrorContext): string {
  return context.echo?.text !== undefined ? `${message} (key: ${context.echo.text})` : message;
}

/** What a load balancer in front of either provider sends for a 502: HTML, not JSON. */
const BAD_GATEWAY_HTML =
  '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n</body>\r\n</html>\r\n';

/** OpenAI: `{"error":{"message","type","param","code"}}`. */
export function openAIErrorResponse(name: FakeErrorName, context: FakeErrorContext): FakeErrorResponse {
  const error = (
    status: number,
    message: string,
    type: string,
    code: string | null,
    param: string | null = null,
  ) => ({
    status,
    body: {
      error: { message: echoedMessage(message, context), type, param, code: context.echo?.code ?? code },
    },
  });
  switch (name) {
    case 'rate_limited':
      return error(
        429,
        `Rate limit reached for ${context.model} in organization org-fake on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 20s.`,
        'requests',
        'rate_limit_exceeded',
      );
    case 'insufficient_quota':
      return error(
        429,
        'You exceeded your current quota, please check your plan and billing details.',
        'insufficient_quota',
        'insufficient_quota',
      );
    case 'payment_required':
      return error(
        402,
        'Billing hard limit has been reached.',
        'insufficient_quota',
        'billing_hard_limit_reached',
      );
    case 'server_error':
      return error(
        500,
        'The server had an error while processing your request. Sorry about that!',
        'server_error',
        null,
      );
    case 'bad_gateway':
      return { status: 502, body: BAD_GATEWAY_HTML };
    case 'service_unavailable':
      return error(503, 'The server is overloaded or not ready yet.', 'server_error', null);
    // OpenAI has no 529; an overloaded engine answers 503.
    case 'overloaded':
      return error(503, 'The engine is currently overloaded, please try again later.', 'server_error', null);
    case 'request_timeout':
      return error(408, 'Request timed out.', 'timeout', null);
    case 'gateway_timeout':
      return error(504, 'Gateway timed out.', 'server_error', null);
    case 'authentication':
      return error(
        401,
        `Incorrect API key provided: sk-...${context.apiKeyTail}. You can find your API key at https://platform.openai.com/account/api-keys.`,
        'invalid_request_error',
        'invalid_api_key',
      );
    case 'permission':
      return error(
        403,
        'Country, region, or territory not supported',
        'request_forbidden',
        'unsupported_country_region_territory',
      );
    case 'not_found':
      return error(
        404,
        `The model \`${context.model}\` does not exist or you do not have access to it.`,
        'invalid_request_error',
        'model_not_found',
      );
    case 'bad_request':
      return error(
        400,
        "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
        'invalid_request_error',
        'empty_array',
        'messages',
      );
    case 'unprocessable':
      return error(422, 'Unprocessable entity.', 'invalid_request_error', null);
    case 'context_overflow':
      return error(
        400,
        "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages.",
        'invalid_request_error',
        'context_length_exceeded',
        'messages',
      );
  }
}

/** Anthropic: `{"type":"error","error":{"type","message"},"request_id"}`. */
export function anthropicErrorResponse(name: FakeErrorName, context: FakeErrorContext): FakeErrorResponse {
  const error = (status: number, type: string, message: string, details?: Record<string, unknown>) => {
    const code = context.echo?.code;
    const allDetails = code !== undefined ? { ...details, error_code: code } : details;
    return {
      status,
      body: {
        type: 'error',
        error: {
          type,
          message: echoedMessage(message, context),
          ...(allDetails ? { details: allDetails } : {}),
        },
        request_id: context.requestId,
      },
    };
  };
  switch (name) {
    case 'rate_limited':
      return error(
        429,
        'rate_limit_error',
        'This request would exceed the rate limit for your organization of 50 requests per minute.',
      );
    // Spend limits arrive as 429s; only `details.error_code` tells them from a rate limit.
    case 'insufficient_quota':
      return error(429, 'rate_limit_error', 'You have reached your specified API usage limits.', {
        error_code: 'enforced_spend_limit_reached',
      });
    case 'payment_required':
      return error(402, 'billing_error', 'Your credit balance is too low to access the Anthropic API.');
    case 'server_error':
      return error(500, 'api_error', 'Internal server error');
    case 'bad_gateway':
      return { status: 502, body: BAD_GATEWAY_HTML };
    case 'service_unavailable':
      return error(503, 'api_error', 'Service unavailable');
    case 'overloaded':
      return error(529, 'overloaded_error', 'Overloaded');
    case 'request_timeout':
      return error(408, 'timeout_error', 'Request timed out');
    case 'gateway_timeout':
      return error(504, 'timeout_error', 'Request timeout');
    case 'authentication':
      return error(401, 'authentication_error', 'invalid x-api-key');
    case 'permission':
      return error(
        403,
        'permission_error',
        'Your API key does not have permission to use the specified resource.',
      );
    case 'not_found':
      return error(404, 'not_found_error', `model: ${context.model}`);
    case 'bad_request':
      return error(400, 'invalid_request_error', 'messages: at least one message is required');
    case 'unprocessable':
      return error(422, 'invalid_request_error', 'Unprocessable entity');
    case 'context_overflow':
      return error(400, 'invalid_request_error', 'prompt is too long: 215000 tokens > 200000 maximum');
  }
}

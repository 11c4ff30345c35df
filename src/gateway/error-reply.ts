// Gateway errors as HTTP responses in the caller's surface's shape, and Fastify's own errors made gateway errors. Node side.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { anthropicSurface } from './anthropic-surface';
import type { BodyLimit } from './body-limit';
import { bodyTooLarge } from './body-limit';
import { GatewayError, GatewayErrorKind, toGatewayError } from './gateway-error';
import { openAISurface } from './openai-surface';
import { responsesSurface } from './responses-surface';
import { ROUTING_HEADERS, routingHeaders, summaryOf } from './routing-summary';
import type { Surface } from './surface';

/** The surface a request's path belongs to: Anthropic's for `/v1/messages`, Responses' for `/v1/responses`, else OpenAI's. */
export function surfaceOfUrl(url: string): Surface {
  if (url.startsWith('/v1/messages')) return anthropicSurface;
  return url.startsWith('/v1/responses') ? responsesSurface : openAISurface;
}

export interface ErrorReplyOptions {
  /**
   * Ends the connection after the response: for a request refused while its body is still arriving, so the rest
   * is never received (on a kept-alive connection Node would read and discard all of it). @default false
   */
  readonly closeConnection?: boolean;
}

/** Sends `error` as the request's surface shapes it, with the routing headers and `retry-after` when known. */
export function sendGatewayError(
  request: FastifyRequest,
  reply: FastifyReply,
  error: GatewayError,
  options: ErrorReplyOptions = {},
): FastifyReply {
  const surface = surfaceOfUrl(request.url);
  const routing = error.context.workflowId
    ? summaryOf(error.context.workflowId, undefined, error.context.record)
    : undefined;
  // Worth retrying as is: the gateway did not fail over and retry these already.
  const retryable =
    error.kind === GatewayErrorKind.unavailable || error.kind === GatewayErrorKind.rateLimited;
  return reply
    .code(error.status)
    .headers({
      ...(routing ? routingHeaders(routing) : {}),
      [ROUTING_HEADERS.errorType]: error.code,
      ...(error.context.retryAfterSeconds !== undefined
        ? { 'retry-after': String(error.context.retryAfterSeconds) }
        : {}),
      // The gateway already failed over and retried: an SDK retrying on its own would only start it again.
      ...(retryable ? {} : { 'x-should-retry': 'false' }),
      ...(options.closeConnection ? { connection: 'close' } : {}),
    })
    .send(surface.errorBody(error, routing));
}

/** Answers every error a route throws, or Fastify raises (a body too large or unparsable), in the surface's shape. */
export function answerErrorsInSurfaceShape(app: FastifyInstance, bodyLimit: BodyLimit): void {
  app.setErrorHandler((error, request, reply) => {
    const fastifyError = error as { statusCode?: number; code?: string };
    let converted: GatewayError;
    if (error instanceof GatewayError) converted = error;
    else if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE') converted = bodyTooLarge(bodyLimit);
    else if (fastifyError.statusCode !== undefined && fastifyError.statusCode < 500) {
      // Unparsable JSON, a wrong content type: Fastify's message names what is wrong and holds no body text.
      converted = new GatewayError(
        (error as Error).message,
        GatewayErrorKind.invalidRequest,
        'invalid_request',
      );
    } else converted = toGatewayError(error);
    sendGatewayError(request, reply, converted);
  });
}

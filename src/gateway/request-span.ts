// One OpenTelemetry SERVER span per gateway request, continuing the caller's W3C trace context. Node side.
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import { GEN_AI_OPERATION_CHAT, GenAiAttribute } from '../routing/gen-ai-conventions';
import { ROUTING_HEADERS } from './routing-summary';

/** The gateway's tracer; a no-op until a tracer provider is registered (`switchyard serve` with `OTEL_*` set). */
const TRACER_NAME = 'switchyard-gateway';

/** Attributes of the gateway's request spans beside the HTTP and GenAI conventions' own. */
export const RequestSpanAttribute = {
  method: 'http.request.method',
  route: 'http.route',
  statusCode: 'http.response.status_code',
  switchyardRoute: 'switchyard.route',
  workflowId: 'switchyard.workflow_id',
  /** `openai`, `anthropic` or `responses`: the wire format the call came in. */
  surface: 'switchyard.surface',
} as const;

/** The event a span gets when its caller closed the connection before the whole response was written. */
export const CALLER_LEFT_EVENT = 'switchyard.caller_left';

interface RequestSpan {
  readonly span: Span;
  /** The caller's context with this span in it: the route's handler runs in it. */
  readonly context: Context;
  /** Set by the call routes for a failure the reply's headers do not carry (a stream's error event). */
  errorType?: string;
}

const spans = new WeakMap<FastifyRequest, RequestSpan>();

/** What the call routes learn of a routed call as they prepare it; each field once known. */
export interface RequestCallAttributes {
  readonly surface?: string;
  /** The route the caller named in `model` (or the default route's name). */
  readonly requestedModel?: string;
  /** The route the call runs on. */
  readonly route?: string;
  readonly workflowId?: string;
}

/** Marks the request's span as a routed call's and adds what is known of it. No-op for a request without one. */
export function describeRequestCall(request: FastifyRequest, call: RequestCallAttributes): void {
  const span = spans.get(request)?.span;
  if (!span) return;
  const attributes: Attributes = { [GenAiAttribute.operationName]: GEN_AI_OPERATION_CHAT };
  if (call.surface !== undefined) attributes[RequestSpanAttribute.surface] = call.surface;
  if (call.requestedModel !== undefined) attributes[GenAiAttribute.requestModel] = call.requestedModel;
  if (call.route !== undefined) attributes[RequestSpanAttribute.switchyardRoute] = call.route;
  if (call.workflowId !== undefined) attributes[RequestSpanAttribute.workflowId] = call.workflowId;
  span.setAttributes(attributes);
}

/**
 * Records a failure the reply's headers will not show: a streamed response's failure, told in an error event
 * after the status line, or in a response written by hand. `errorType` is the routed call's failure type or the
 * gateway's error code.
 */
export function recordRequestError(request: FastifyRequest, errorType: string): void {
  const entry = spans.get(request);
  if (entry) entry.errorType = errorType;
}

/** The stable error type of a finished reply: the one recorded, else the gateway's error header, else the status. */
function errorTypeOf(
  entry: RequestSpan,
  reply: FastifyReply,
  statusCode: number | undefined,
): string | undefined {
  if (entry.errorType !== undefined) return entry.errorType;
  // Error replies sent through Fastify carry their code in this header (kept by Fastify until they are written).
  const header = reply.getHeader(ROUTING_HEADERS.errorType);
  if (typeof header === 'string' && header !== '') return header;
  return statusCode !== undefined && statusCode >= 400 ? String(statusCode) : undefined;
}

function endSpan(entry: RequestSpan, reply: FastifyReply, callerLeft: boolean): void {
  const { span } = entry;
  // Before the status line went out there is no status to report, whatever `statusCode` defaults to.
  const statusCode = reply.raw.headersSent ? reply.raw.statusCode : undefined;
  if (statusCode !== undefined) span.setAttribute(RequestSpanAttribute.statusCode, statusCode);
  if (callerLeft) span.addEvent(CALLER_LEFT_EVENT);
  const errorType = errorTypeOf(entry, reply, statusCode);
  if (errorType !== undefined) {
    span.setAttribute(GenAiAttribute.errorType, errorType);
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

/**
 * Gives every route of `scope` registered after it a SERVER span per request: its parent is the caller's
 * `traceparent` (and `tracestate`), read with the global propagator; the route's handler runs with the span
 * active, so the Temporal client's OpenTelemetry interceptor puts it in the headers of the workflow it starts.
 * The span ends when the response's last byte is written (a stream's too) or when the caller leaves (an event
 * says so). It carries method, route, status, the call's route and workflow, and never a header, key or body.
 * Call it before any other hook of the scope, so that refusals by those hooks get spans too.
 */
export function traceRequests(scope: FastifyInstance): void {
  scope.addHook('onRequest', (request, reply, done) => {
    const route = request.routeOptions.url;
    const parent = propagation.extract(ROOT_CONTEXT, request.headers);
    const span = trace.getTracer(TRACER_NAME).startSpan(
      route !== undefined ? `${request.method} ${route}` : request.method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          [RequestSpanAttribute.method]: request.method,
          ...(route !== undefined ? { [RequestSpanAttribute.route]: route } : {}),
        },
      },
      parent,
    );
    const entry: RequestSpan = { span, context: trace.setSpan(parent, span) };
    spans.set(request, entry);
    let ended = false;
    const end = (callerLeft: boolean) => {
      if (ended) return;
      ended = true;
      endSpan(entry, reply, callerLeft);
    };
    // 'finish': the whole response was handed to the system; 'close' without it: the connection went first.
    reply.raw.once('finish', () => end(false));
    reply.raw.once('close', () => end(!reply.raw.writableFinished));
    done();
  });

  // The hooks before the handler (the key check, body parsing) run outside any context that could be carried
  // to it, so the context is entered around the handler itself.
  scope.addHook('onRoute', (routeOptions) => {
    const handler = routeOptions.handler;
    const withSpan: RouteHandlerMethod = function (this: FastifyInstance, request, reply) {
      const entry = spans.get(request);
      return entry
        ? context.with(entry.context, handler, this, request, reply)
        : handler.call(this, request, reply);
    };
    routeOptions.handler = withSpan;
  });
}

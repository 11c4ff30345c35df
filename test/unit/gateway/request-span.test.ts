// The gateway's request spans on a real Fastify server over HTTP: the caller's trace continued, the span active in
// the handler after the body was read, a stream's span ending with its last piece or with its caller leaving.
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import Fastify, { type FastifyInstance } from 'fastify';
import {
  CALLER_LEFT_EVENT,
  recordRequestError,
  RequestSpanAttribute,
  traceRequests,
} from '../../../src/gateway/request-span';
import {
  callerTraceparent,
  installInMemoryTracing,
  type InMemoryTracing,
} from '../../support/in-memory-tracing';
import { eventually } from '../../support/eventually';

const SECRET_KEY = 'sy_secret-key-text-4711';
const BODY_TEXT = 'body-text-that-stays-out-0815';

let tracing: InMemoryTracing;
let app: FastifyInstance;
let url: string;
/** What the handler saw as the active span, per request. */
let activeInHandler: string | undefined;
/** Opened by the test to let a held stream go on. */
let release: () => void;
let released: Promise<void>;

beforeAll(async () => {
  tracing = installInMemoryTracing();
  app = Fastify({ logger: false, forceCloseConnections: true });
  await app.register(async (scope) => {
    traceRequests(scope);
    scope.post('/things/:id', async (request) => {
      // After the body was read and parsed: the context must survive that.
      activeInHandler = trace.getActiveSpan()?.spanContext().spanId;
      return { length: JSON.stringify(request.body).length };
    });
    scope.get('/refused', async (_request, reply) =>
      reply.code(429).header('x-switchyard-error-type', 'too_many_concurrent_requests').send({}),
    );
    scope.get('/stream', async (request, reply) => {
      reply.hijack();
      reply.raw.writeHead(200, { 'content-type': 'text/plain' });
      reply.raw.write('first piece\n');
      await released;
      if (request.query && (request.query as Record<string, string>).fail) {
        recordRequestError(request, 'StreamInterrupted');
      }
      reply.raw.end('last piece\n');
    });
  });
  // Outside the traced scope: no span.
  app.get('/healthz', async () => ({ ok: true }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});

afterAll(async () => {
  await app?.close();
  await tracing?.close();
});

beforeEach(() => {
  tracing.reset();
  activeInHandler = undefined;
  released = new Promise((resolve) => (release = resolve));
});

function serverSpans(): ReadableSpan[] {
  return tracing.ended().filter((span) => span.kind === SpanKind.SERVER);
}

async function onlyServerSpan(): Promise<ReadableSpan> {
  const [span] = await eventually(
    'the request span ended',
    async () => serverSpans(),
    (spans) => spans.length === 1,
    { timeoutMs: 10_000, intervalMs: 20 },
  );
  return span!;
}

test("a request's span continues the caller's trace and is active in its handler, holding no header or body", async () => {
  const caller = callerTraceparent();
  const response = await fetch(`${url}/things/42?q=1`, {
    method: 'POST',
    headers: {
      traceparent: caller.traceparent,
      tracestate: 'vendor=opaque',
      authorization: `Bearer ${SECRET_KEY}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ text: BODY_TEXT }),
  });
  expect(response.status).toBe(200);
  const span = await onlyServerSpan();
  expect(span.spanContext().traceId).toBe(caller.traceId);
  expect(span.parentSpanId).toBe(caller.spanId);
  expect(span.spanContext().traceState?.get('vendor')).toBe('opaque');
  expect(span.name).toBe('POST /things/:id');
  expect(activeInHandler).toBe(span.spanContext().spanId);
  expect(span.attributes).toEqual({
    [RequestSpanAttribute.method]: 'POST',
    [RequestSpanAttribute.route]: '/things/:id',
    [RequestSpanAttribute.statusCode]: 200,
  });
  expect(span.status.code).toBe(SpanStatusCode.UNSET);
  const everything = JSON.stringify([span.name, span.attributes, span.events]);
  for (const secret of [SECRET_KEY, BODY_TEXT, 'Bearer', 'vendor=opaque'])
    expect(everything).not.toContain(secret);
});

test('without a traceparent the span starts a trace; routes outside the traced scope get none', async () => {
  await fetch(`${url}/healthz`);
  await fetch(`${url}/things/1`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  const span = await onlyServerSpan();
  expect(span.parentSpanId).toBeUndefined();
  expect(span.name).toBe('POST /things/:id');
});

test("an error reply's span is an error of the type its error header names", async () => {
  const response = await fetch(`${url}/refused`);
  expect(response.status).toBe(429);
  const span = await onlyServerSpan();
  expect(span.status.code).toBe(SpanStatusCode.ERROR);
  expect(span.attributes['error.type']).toBe('too_many_concurrent_requests');
  expect(span.attributes[RequestSpanAttribute.statusCode]).toBe(429);
});

test("a stream's span ends after its last piece, with an error the route recorded", async () => {
  const response = await fetch(`${url}/stream?fail=1`);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let received = decoder.decode((await reader.read()).value);
  expect(received).toBe('first piece\n');
  // The first piece reached the caller and the route holds the rest: the span is still open.
  expect(serverSpans()).toEqual([]);
  release();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    received += decoder.decode(value);
  }
  expect(received).toBe('first piece\nlast piece\n');
  const span = await onlyServerSpan();
  expect(span.name).toBe('GET /stream');
  expect(span.attributes[RequestSpanAttribute.statusCode]).toBe(200);
  expect(span.attributes['error.type']).toBe('StreamInterrupted');
  expect(span.status.code).toBe(SpanStatusCode.ERROR);
  expect(span.events.map((event) => event.name)).not.toContain(CALLER_LEFT_EVENT);
});

test("a caller leaving mid-stream ends the stream's span with an event saying so", async () => {
  const abort = new AbortController();
  const response = await fetch(`${url}/stream`, { signal: abort.signal });
  const reader = response.body!.getReader();
  await reader.read();
  abort.abort();
  const span = await onlyServerSpan();
  expect(span.events.map((event) => event.name)).toEqual([CALLER_LEFT_EVENT]);
  expect(span.status.code).toBe(SpanStatusCode.UNSET);
  // Let the held route finish writing into the closed response.
  release();
});

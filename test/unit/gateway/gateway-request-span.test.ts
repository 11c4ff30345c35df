// The gateway's own routes get request spans: refusals by the key check and by the surface's parser included,
// with the routed call's attributes and never the key or the body. No Temporal: every request here is answered
// before anything would reach it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { Client, Connection } from '@temporalio/client';
import { SwitchyardClient } from '../../../src/client/switchyard-client';
import { parseConfig } from '../../../src/config/load-config';
import { startGateway, type Gateway } from '../../../src/gateway/gateway-server';
import { KeyStore } from '../../../src/gateway/key-store';
import { RequestSpanAttribute } from '../../../src/gateway/request-span';
import { GenAiAttribute } from '../../../src/routing/gen-ai-conventions';
import { eventually } from '../../support/eventually';
import {
  callerTraceparent,
  installInMemoryTracing,
  type InMemoryTracing,
} from '../../support/in-memory-tracing';
import { TEST_CONFIG } from '../cli/cli-test-io';

const BODY_TEXT = 'a prompt that stays out of spans';

let tracing: InMemoryTracing;
let connection: Connection;
let gateway: Gateway;
let keysDirectory: string;
let key: string;

beforeAll(async () => {
  tracing = installInMemoryTracing();
  // Never connected: nothing in these tests gets as far as Temporal.
  connection = Connection.lazy({ address: '127.0.0.1:1' });
  const config = parseConfig(TEST_CONFIG);
  keysDirectory = mkdtempSync(path.join(tmpdir(), 'switchyard-span-keys-'));
  const keys = new KeyStore({ file: path.join(keysDirectory, 'keys.json'), recheckMs: 0 });
  key = keys.create({ routes: ['*'] }).key;
  gateway = await startGateway({
    switchyard: new SwitchyardClient({ client: new Client({ connection }), config }),
    config,
    keys,
    port: 0,
  });
});

afterAll(async () => {
  await gateway?.close();
  await connection?.close();
  await tracing?.close();
  if (keysDirectory) rmSync(keysDirectory, { recursive: true, force: true });
});

beforeEach(() => tracing.reset());

async function serverSpan(): Promise<ReadableSpan> {
  const [span] = await eventually(
    'the request span ended',
    async () => tracing.ended().filter((candidate) => candidate.kind === SpanKind.SERVER),
    (spans) => spans.length === 1,
    { timeoutMs: 10_000, intervalMs: 20 },
  );
  return span!;
}

function post(route: string, headers: Record<string, string>, body: unknown): Promise<Response> {
  return fetch(`${gateway.url}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

test('a request the key check refuses has a span in the caller trace, of the refusal type, without the key', async () => {
  const caller = callerTraceparent();
  const refused = await post(
    '/v1/chat/completions',
    { traceparent: caller.traceparent, authorization: 'Bearer sy_not-a-real-key-123' },
    { model: 'cheap', messages: [{ role: 'user', content: BODY_TEXT }] },
  );
  expect(refused.status).toBe(401);
  const span = await serverSpan();
  expect(span.spanContext().traceId).toBe(caller.traceId);
  expect(span.parentSpanId).toBe(caller.spanId);
  expect(span.name).toBe('POST /v1/chat/completions');
  expect(span.attributes).toEqual({
    [RequestSpanAttribute.method]: 'POST',
    [RequestSpanAttribute.route]: '/v1/chat/completions',
    [RequestSpanAttribute.statusCode]: 401,
    [GenAiAttribute.errorType]: 'invalid_api_key',
  });
  expect(span.status.code).toBe(SpanStatusCode.ERROR);
  expect(JSON.stringify([span.attributes, span.events])).not.toContain('sy_not-a-real-key-123');
});

test("a call its surface refuses is a chat operation's span, with the surface, and neither key nor body", async () => {
  const caller = callerTraceparent();
  const refused = await post(
    '/v1/messages',
    { traceparent: caller.traceparent, 'x-api-key': key },
    { model: 'cheap', max_tokens: 'many', messages: [{ role: 'user', content: BODY_TEXT }] },
  );
  expect(refused.status).toBe(400);
  const span = await serverSpan();
  expect(span.parentSpanId).toBe(caller.spanId);
  expect(span.name).toBe('POST /v1/messages');
  expect(span.attributes).toMatchObject({
    [GenAiAttribute.operationName]: 'chat',
    [RequestSpanAttribute.surface]: 'anthropic',
    [RequestSpanAttribute.statusCode]: 400,
    [GenAiAttribute.errorType]: refused.headers.get('x-switchyard-error-type'),
  });
  const everything = JSON.stringify([span.attributes, span.events]);
  for (const secret of [key, BODY_TEXT]) expect(everything).not.toContain(secret);
});

test('the plan endpoint has its span; the health check has none', async () => {
  expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
  const refused = await post('/v1/route?surface=fax', { authorization: `Bearer ${key}` }, { messages: [] });
  expect(refused.status).toBe(400);
  const span = await serverSpan();
  expect(span.name).toBe('POST /v1/route');
  expect(span.parentSpanId).toBeUndefined();
  expect(span.attributes[GenAiAttribute.operationName]).toBeUndefined();
});

// A caller's trace through the gateway into Temporal: the request's span continues the caller's traceparent, the
// client interceptor's StartWorkflow span is its child, and the workflow's start carries that context in its
// headers; a stream's span ends once its last piece is written.
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { defaultPayloadConverter } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import { createProviderRegistry } from '../../src/activities/provider-registry';
import { connectClient } from '../../src/client/connection';
import { SwitchyardClient } from '../../src/client/switchyard-client';
import { startGateway } from '../../src/gateway/gateway-server';
import { RequestSpanAttribute } from '../../src/gateway/request-span';
import { GenAiAttribute } from '../../src/routing/gen-ai-conventions';
import { createSwitchyardWorker } from '../../src/worker';
import { ROUTED_CALL_WORKFLOW_TYPE } from '../../src/workflows/definitions';
import { eventually } from '../support/eventually';
import { startGatewayHarness, terminateBreakers, type GatewayHarness } from '../support/gateway-harness';
import {
  callerTraceparent,
  installInMemoryTracing,
  type InMemoryTracing,
} from '../support/in-memory-tracing';
import { temporalAddress, uniqueName } from '../support/temporal';
import { TEST_API_KEYS } from '../support/test-config';

let harness: GatewayHarness;
let tracing: InMemoryTracing;
/** The client Switchyard builds: the one with the OpenTelemetry interceptor. */
let client: Client;

beforeAll(async () => {
  tracing = installInMemoryTracing();
  harness = await startGatewayHarness();
  client = await connectClient({ address: temporalAddress() });
});
afterAll(async () => {
  await client?.connection.close();
  await harness?.close();
  await tracing?.close();
});
beforeEach(() => {
  harness.fake.reset();
  tracing.reset();
});

/** A gateway over `client` and a worker on a fresh task queue, for the length of `body`. */
async function withTracedGateway(body: (url: string, key: string) => Promise<void>): Promise<void> {
  const { config, keys, bundle, temporal } = harness;
  await terminateBreakers(temporal, config);
  const taskQueue = uniqueName('switchyard-trace');
  const worker = await createSwitchyardWorker({
    config,
    connection: temporal.nativeConnection,
    taskQueue,
    workflowBundle: bundle,
    providers: createProviderRegistry(config, { ...TEST_API_KEYS }),
  });
  const switchyard = new SwitchyardClient({ client, taskQueue, config });
  const gateway = await startGateway({ switchyard, config, keys, port: 0 });
  try {
    await worker.runUntil(body(gateway.url, keys.create({ routes: ['*'] }).key));
  } finally {
    await gateway.close();
  }
}

/** The ended spans of one trace, once its gateway span has ended. */
async function traceOf(traceId: string): Promise<{ server: ReadableSpan; all: ReadableSpan[] }> {
  const all = await eventually(
    'the gateway span ended',
    async () => tracing.ended().filter((span) => span.spanContext().traceId === traceId),
    (spans) => spans.some((span) => span.kind === SpanKind.SERVER),
    { timeoutMs: 10_000, intervalMs: 50 },
  );
  return { server: all.find((span) => span.kind === SpanKind.SERVER)!, all };
}

function startSpanOf(all: readonly ReadableSpan[]): ReadableSpan | undefined {
  return all.find((span) => span.name === `StartWorkflow:${ROUTED_CALL_WORKFLOW_TYPE}`);
}

test("a call's workflow start is a child of the gateway span, which continues the caller's trace", async () => {
  harness.fake.scriptAlways('gpt-primary', { kind: 'answer', text: 'traced answer' });
  await withTracedGateway(async (url, key) => {
    const caller = callerTraceparent();
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        traceparent: caller.traceparent,
      },
      body: JSON.stringify({ model: 'support', messages: [{ role: 'user', content: 'hello' }] }),
    });
    expect(response.status).toBe(200);
    const workflowId = response.headers.get('x-switchyard-workflow-id')!;

    const { server, all } = await traceOf(caller.traceId);
    expect(server.parentSpanId).toBe(caller.spanId);
    expect(server.name).toBe('POST /v1/chat/completions');
    expect(server.attributes).toMatchObject({
      [RequestSpanAttribute.method]: 'POST',
      [RequestSpanAttribute.route]: '/v1/chat/completions',
      [RequestSpanAttribute.statusCode]: 200,
      [RequestSpanAttribute.surface]: 'openai',
      [RequestSpanAttribute.switchyardRoute]: 'support',
      [RequestSpanAttribute.workflowId]: workflowId,
      [GenAiAttribute.operationName]: 'chat',
      [GenAiAttribute.requestModel]: 'support',
    });
    expect(server.attributes[GenAiAttribute.errorType]).toBeUndefined();
    const start = startSpanOf(all);
    expect(start?.parentSpanId).toBe(server.spanContext().spanId);

    // The workflow was started with the start span's context in its headers: its trace goes on in the worker.
    const history = await client.workflow.getHandle(workflowId).fetchHistory();
    const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
    const carried = defaultPayloadConverter.fromPayload<{ traceparent?: string }>(
      started!.header!.fields!['_tracer-data']!,
    );
    expect(carried.traceparent).toBe(`00-${caller.traceId}-${start!.spanContext().spanId}-01`);
  });
});

test("a streamed call's span ends with the stream, its start a child of it", async () => {
  harness.fake.scriptAlways('gpt-primary', { kind: 'answer', text: 'one two three four', chunkDelayMs: 20 });
  await withTracedGateway(async (url, key) => {
    const caller = callerTraceparent();
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        traceparent: caller.traceparent,
      },
      body: JSON.stringify({
        model: 'support',
        stream: true,
        messages: [{ role: 'user', content: 'hello' }],
      }),
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain('data: [DONE]');

    const { server, all } = await traceOf(caller.traceId);
    expect(server.parentSpanId).toBe(caller.spanId);
    expect(server.attributes[RequestSpanAttribute.statusCode]).toBe(200);
    expect(server.status.code).toBe(SpanStatusCode.UNSET);
    expect(server.events).toEqual([]);
    const start = startSpanOf(all);
    expect(start?.parentSpanId).toBe(server.spanContext().spanId);
  });
});

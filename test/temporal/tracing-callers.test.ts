// One trace per routed call whoever the caller is, exported over real OTLP/HTTP to a receiver in this process: a
// SwitchyardClient call made inside the application's active span, and a routedCall from a user's own traced
// workflow, each continue the caller's trace through the call's workflow to its attempt.
import { context, propagation, trace, type SpanContext } from '@opentelemetry/api';
import type { Client } from '@temporalio/client';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createProviderRegistry } from '../../src/activities/provider-registry';
import { connectClient } from '../../src/client/connection';
import { SwitchyardClient } from '../../src/client/switchyard-client';
import type { Config } from '../../src/config/config';
import { parseConfig } from '../../src/config/load-config';
import { startFakeProvider, type FakeProvider } from '../../src/fake-provider';
import { installTracing, type TracingHandle } from '../../src/tracing/install-tracing';
import { workflowSpanSinks } from '../../src/tracing/worker-tracing';
import { createSwitchyardWorker } from '../../src/worker';
import { bundleSwitchyardWorkflows } from '../../src/workflow-bundle';
import { ROUTED_CALL_WORKFLOW_TYPE } from '../../src/workflows/definitions';
import { eventually } from '../support/eventually';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver';
import { ancestry, onlySpanNamed, spansById } from '../support/span-tree';
import { connectForTest, uniqueName, type TemporalTestContext } from '../support/temporal';
import { TEST_API_KEYS, TEST_PRICES } from '../support/test-config';
import { bundleTracedUserWorkflows } from '../support/traced-user-workflows';
import type { callsWorkflow } from '../support/user-workflows';

const request = { messages: [{ role: 'user' as const, content: 'Say hello' }], maxOutputTokens: 64 };
// Breakers are shared by (provider, model) across the whole server: a model of its own keeps this file apart.
const model = uniqueName('gpt-callers');

let temporal: TemporalTestContext;
let fake: FakeProvider;
let receiver: OtlpReceiver;
let tracing: TracingHandle;
let switchyardBundle: WorkflowBundleWithSourceMap;
let userBundle: WorkflowBundleWithSourceMap;
let config: Config;
/** The application's client, as `connectClient` builds it (with Temporal's OpenTelemetry client interceptor). */
let appClient: Client;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.endpoint;
  process.env.OTEL_BSP_SCHEDULE_DELAY = '50';
  tracing = installTracing({
    serviceName: 'switchyard-callers-test',
    settings: { exporter: 'otlp', protocol: 'http/json', captureContent: false },
  })!;
  [temporal, fake, switchyardBundle, userBundle, appClient] = await Promise.all([
    connectForTest(),
    startFakeProvider(),
    bundleSwitchyardWorkflows({ tracing: true }),
    bundleTracedUserWorkflows(),
    connectClient(),
  ]);
  config = parseConfig({
    providers: {
      openai: {
        kind: 'openai',
        apiKeyEnv: 'OPENAI_TEST_KEY',
        baseURL: fake.openaiBaseURL,
        models: { [model]: TEST_PRICES },
      },
    },
    routes: { callers: { targets: [{ provider: 'openai', model, timeoutMs: 10_000 }] } },
    defaultRoute: 'callers',
  });
});

afterAll(async () => {
  await tracing?.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
  await appClient?.connection.close();
  await receiver?.close();
  await fake?.close();
  await temporal?.close();
});

beforeEach(() => fake.reset());

/** A Switchyard worker on a queue of its own, traced by this process's tracer (the one installed above). */
async function switchyardWorker(taskQueue: string) {
  return createSwitchyardWorker({
    config,
    connection: temporal.nativeConnection,
    taskQueue,
    workflowBundle: switchyardBundle,
    providers: createProviderRegistry(config, { ...TEST_API_KEYS }),
  });
}

/** Runs `body` inside a new active span of the application's own tracer; returns its result and the span's ids. */
async function inCallerSpan<T>(
  name: string,
  body: () => Promise<T>,
): Promise<{ result: T; caller: SpanContext }> {
  return trace.getTracer('app').startActiveSpan(name, async (span) => {
    try {
      return { result: await body(), caller: span.spanContext() };
    } finally {
      span.end();
    }
  });
}

/** The spans of `traceId` once `ready` holds for them; the workflow spans leave the sandbox through a sink. */
async function traceSpans(
  traceId: string,
  ready: (spans: readonly ReceivedSpan[]) => boolean,
): Promise<readonly ReceivedSpan[]> {
  await tracing.forceFlush();
  return eventually(
    `the spans of trace ${traceId} arrived`,
    async () => receiver.spans().filter((span) => span.traceId === traceId),
    ready,
    { timeoutMs: 15_000, intervalMs: 100 },
  );
}

const CALL_SPAN = `RunWorkflow:${ROUTED_CALL_WORKFLOW_TYPE}`;

/** The call's attempt reached the receiver: the workflow's span of it and the worker's. */
function hasAttempt(spans: readonly ReceivedSpan[]): boolean {
  return ['StartActivity:attemptTarget', 'RunActivity:attemptTarget'].every((name) =>
    spans.some((span) => span.name === name),
  );
}

/** The attempt's spans hang below the call's span: the workflow's StartActivity, the worker's RunActivity in it. */
function expectAttemptBelowCall(spans: readonly ReceivedSpan[], call: ReceivedSpan): void {
  const attempt = onlySpanNamed(spans, 'StartActivity:attemptTarget');
  expect(attempt.parentSpanId).toBe(call.spanId);
  expect(attempt.attributes).toMatchObject({
    'gen_ai.request.model': model,
    'switchyard.route': 'callers',
    'switchyard.outcome': 'succeeded',
  });
  const execution = onlySpanNamed(spans, 'RunActivity:attemptTarget');
  expect(execution.parentSpanId).toBe(attempt.spanId);
  expect(execution.attributes['gen_ai.request.model']).toBe(model);
}

test('a SwitchyardClient call inside the application span is in its trace, the workflow start its child', async () => {
  fake.script(model, { kind: 'answer', text: 'Hello from the client call.' });
  const taskQueue = uniqueName('switchyard-callers');
  const worker = await switchyardWorker(taskQueue);
  const switchyard = new SwitchyardClient({ client: appClient, taskQueue, config });

  const { result, caller } = await worker.runUntil(
    inCallerSpan('app.answer-question', () => switchyard.generate({ route: 'callers', request })),
  );
  expect(result.answer.text).toBe('Hello from the client call.');
  expect(fake.requestsFor(model)).toHaveLength(1);

  const spans = await traceSpans(
    caller.traceId,
    (found) => found.some((span) => span.name === CALL_SPAN) && hasAttempt(found),
  );
  const index = spansById(spans);
  const application = index.get(caller.spanId);
  expect(application?.name).toBe('app.answer-question');
  expect(application?.parentSpanId).toBeUndefined();

  const start = onlySpanNamed(spans, `StartWorkflow:${ROUTED_CALL_WORKFLOW_TYPE}`);
  expect(start.parentSpanId).toBe(caller.spanId);
  const call = onlySpanNamed(spans, CALL_SPAN);
  expect(call.parentSpanId).toBe(start.spanId);
  expect(call.attributes).toMatchObject({
    temporalWorkflowId: result.record.workflowId,
    'switchyard.route': 'callers',
    'switchyard.outcome': 'succeeded',
    'switchyard.served_by': `openai/${model}`,
  });
  expectAttemptBelowCall(spans, call);
  expect(ancestry(onlySpanNamed(spans, 'RunActivity:attemptTarget'), index)).toEqual([
    'RunActivity:attemptTarget',
    'StartActivity:attemptTarget',
    CALL_SPAN,
    start.name,
    'app.answer-question',
  ]);
});

test("routedCall in a user's traced workflow is in the trace of whoever started that workflow", async () => {
  fake.script(model, { kind: 'answer', text: 'Hello from the child call.' });
  const switchyardTaskQueue = uniqueName('switchyard-callers');
  const userTaskQueue = uniqueName('user-traced');
  const switchyard = await switchyardWorker(switchyardTaskQueue);
  // The user's worker: their own bundle with Temporal's workflow interceptors, their spans out through the sink.
  const user = await Worker.create({
    connection: temporal.nativeConnection,
    taskQueue: userTaskQueue,
    workflowBundle: userBundle,
    sinks: workflowSpanSinks(tracing),
  });

  const { result, caller } = await switchyard.runUntil(
    user.runUntil(
      inCallerSpan('app.run-agent', () =>
        appClient.workflow.execute<typeof callsWorkflow>('callsWorkflow', {
          taskQueue: userTaskQueue,
          workflowId: uniqueName('user-traced'),
          args: [{ call: { route: 'callers', request }, switchyardTaskQueue }],
        }),
      ),
    ),
  );
  expect(result.texts).toEqual(['Hello from the child call.']);
  expect(fake.requestsFor(model)).toHaveLength(1);

  const spans = await traceSpans(
    caller.traceId,
    (found) => found.some((span) => span.name === CALL_SPAN) && hasAttempt(found),
  );
  const index = spansById(spans);
  const userRun = onlySpanNamed(spans, 'RunWorkflow:callsWorkflow');
  expect(index.get(userRun.parentSpanId ?? '')?.name).toBe('StartWorkflow:callsWorkflow');
  expect(index.get(userRun.parentSpanId ?? '')?.parentSpanId).toBe(caller.spanId);

  // The user's workflow starts the call as a child: its span of that start is the call's parent.
  const childStart = onlySpanNamed(spans, `StartChildWorkflow:${ROUTED_CALL_WORKFLOW_TYPE}`);
  expect(childStart.parentSpanId).toBe(userRun.spanId);
  const call = onlySpanNamed(spans, CALL_SPAN);
  expect(call.parentSpanId).toBe(childStart.spanId);
  expect(call.attributes).toMatchObject({
    temporalWorkflowId: result.callWorkflowIds[0],
    'switchyard.route': 'callers',
    'switchyard.outcome': 'succeeded',
  });
  expectAttemptBelowCall(spans, call);
});

// One trace per routed call, exported over real OTLP/HTTP to a receiver in this process: a gateway request that
// skips a target and fails over once, from the caller's traceparent through the workflow to each attempt, with the
// GenAI and switchyard attributes, the skip as an event, the breaker's span in the same trace, and no prompt,
// answer or key in any exported byte while capture is off.
import { context, propagation, trace } from '@opentelemetry/api';
import { Client } from '@temporalio/client';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import OpenAI from 'openai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createProviderRegistry } from '../../src/activities/provider-registry';
import { SwitchyardClient } from '../../src/client/switchyard-client';
import type { Config } from '../../src/config/config';
import { parseConfig } from '../../src/config/load-config';
import { startFakeProvider, type FakeProvider } from '../../src/fake-provider';
import { startGateway } from '../../src/gateway/gateway-server';
import { KeyStore } from '../../src/gateway/key-store';
import { installTracing, type TracingHandle } from '../../src/tracing/install-tracing';
import { tracingClientInterceptors } from '../../src/tracing/worker-tracing';
import { createSwitchyardWorker } from '../../src/worker';
import { bundleSwitchyardWorkflows } from '../../src/workflow-bundle';
import { eventually } from '../support/eventually';
import { terminateBreakers } from '../support/gateway-harness';
import { callerTraceparent } from '../support/in-memory-tracing';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver';
import {
  bundleSwitchyardWorkflows as untracedBundle,
  connectForTest,
  uniqueName,
  type TemporalTestContext,
} from '../support/temporal';
import { TEST_API_KEYS, TEST_PRICES } from '../support/test-config';

const PROMPT = 'Tell me about the lighthouse keeper named Oriel Vantablack';
const ANSWER_MARKER = 'Quillfeather';

let temporal: TemporalTestContext;
let fake: FakeProvider;
let receiver: OtlpReceiver;
let tracing: TracingHandle;
let bundle: WorkflowBundleWithSourceMap;
let config: Config;
let keysDirectory: string;
const tinyModel = uniqueName('gpt-tiny');
const failingModel = uniqueName('gpt-down');
const answeringModel = uniqueName('claude-up');

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.endpoint;
  process.env.OTEL_BSP_SCHEDULE_DELAY = '50';
  tracing = installTracing({
    serviceName: 'switchyard-trace-test',
    settings: { exporter: 'otlp', protocol: 'http/json', captureContent: false },
  })!;
  [temporal, fake, bundle] = await Promise.all([
    connectForTest(),
    startFakeProvider(),
    bundleSwitchyardWorkflows({ tracing: true }),
  ]);
  config = parseConfig({
    providers: {
      openai: {
        kind: 'openai',
        apiKeyEnv: 'OPENAI_TEST_KEY',
        baseURL: fake.openaiBaseURL,
        models: { [tinyModel]: { ...TEST_PRICES, contextWindow: 8 }, [failingModel]: TEST_PRICES },
      },
      anthropic: {
        kind: 'anthropic',
        apiKeyEnv: 'ANTHROPIC_TEST_KEY',
        baseURL: fake.anthropicBaseURL,
        models: { [answeringModel]: TEST_PRICES },
      },
    },
    routes: {
      traced: {
        targets: [
          { provider: 'openai', model: tinyModel, timeoutMs: 10_000 },
          { provider: 'openai', model: failingModel, timeoutMs: 10_000 },
          { provider: 'anthropic', model: answeringModel, timeoutMs: 10_000 },
        ],
      },
    },
    defaultRoute: 'traced',
  });
});

afterAll(async () => {
  await tracing?.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
  await receiver?.close();
  await fake?.close();
  await temporal?.close();
  if (keysDirectory) rmSync(keysDirectory, { recursive: true, force: true });
});

function byId(spans: readonly ReceivedSpan[]): Map<string, ReceivedSpan> {
  return new Map(spans.map((span) => [span.spanId, span]));
}

/** The chain of span names from `span` up to the trace's root. */
function ancestry(span: ReceivedSpan, spans: Map<string, ReceivedSpan>): string[] {
  const names: string[] = [];
  for (
    let at: ReceivedSpan | undefined = span;
    at;
    at = at.parentSpanId ? spans.get(at.parentSpanId) : undefined
  ) {
    names.push(at.name);
  }
  return names;
}

test('a gateway request that skips a target and fails over once is one trace from the caller to each attempt', async () => {
  await terminateBreakers(temporal, config);
  fake.script(failingModel, { kind: 'error', error: 'service_unavailable' });
  fake.scriptAlways(answeringModel, { kind: 'answer', text: `The keeper was ${ANSWER_MARKER}.` });
  const taskQueue = uniqueName('switchyard-traced');
  keysDirectory = mkdtempSync(path.join(tmpdir(), 'switchyard-trace-keys-'));
  const keys = new KeyStore({ file: path.join(keysDirectory, 'keys.json'), recheckMs: 0 });
  const worker = await createSwitchyardWorker({
    config,
    connection: temporal.nativeConnection,
    taskQueue,
    workflowBundle: bundle,
    providers: createProviderRegistry(config, { ...TEST_API_KEYS }),
  });
  const client = new Client({
    connection: temporal.client.connection,
    interceptors: { workflow: tracingClientInterceptors() },
  });
  const gateway = await startGateway({
    switchyard: new SwitchyardClient({ client, taskQueue, config }),
    config,
    keys,
    port: 0,
  });
  const caller = callerTraceparent();
  const key = keys.create({ routes: ['*'] }).key;
  try {
    // The worker runs until the call has ended, not only until its answer came (which is ahead of the record).
    const answer = await worker.runUntil(
      (async () => {
        const { data, response } = await new OpenAI({
          apiKey: key,
          baseURL: `${gateway.url}/v1`,
          maxRetries: 0,
        }).chat.completions
          .create(
            { model: 'traced', messages: [{ role: 'user', content: PROMPT }], max_tokens: 64 },
            { headers: { traceparent: caller.traceparent } },
          )
          .withResponse();
        await client.workflow.getHandle(response.headers.get('x-switchyard-workflow-id')!).result();
        return data;
      })(),
    );
    expect(answer.choices[0]?.message.content).toContain(ANSWER_MARKER);
  } finally {
    await gateway.close();
  }
  await tracing.forceFlush();

  const spans = await eventually(
    'the call span and both attempt spans arrived',
    async () => receiver.spans().filter((span) => span.traceId === caller.traceId),
    (found) =>
      found.some((span) => span.name.startsWith('RunWorkflow:')) &&
      found.filter((span) => span.name === 'StartActivity:attemptTarget').length === 2,
    { timeoutMs: 15_000, intervalMs: 100 },
  );
  const index = byId(spans);

  // The gateway's span continues the caller's span; the workflow's spans hang below it.
  const server = spans.find((span) => span.kind === 2)!;
  expect(server.parentSpanId).toBe(caller.spanId);
  const call = spans.find((span) => span.name.startsWith('RunWorkflow:'))!;
  expect(ancestry(call, index)).toEqual(expect.arrayContaining([server.name]));
  expect(call.attributes).toMatchObject({
    'switchyard.route': 'traced',
    'switchyard.outcome': 'succeeded',
    'switchyard.fallbacks': 1,
    'switchyard.attempts': 3,
    'switchyard.served_by': `anthropic/${answeringModel}`,
    'switchyard.target.index': 2,
    'gen_ai.response.model': answeringModel,
  });
  const skip = call.events.find((event) => event.name === 'switchyard.target_skipped');
  expect(skip?.attributes).toMatchObject({
    'switchyard.target.index': 0,
    'gen_ai.request.model': tinyModel,
    'switchyard.skip_reason': 'context_window',
  });

  // One span per attempt sent, each below the call's span, with the GenAI conventions' attributes.
  const attempts = spans
    .filter((span) => span.name === 'StartActivity:attemptTarget')
    .sort((a, b) => Number(a.attributes['switchyard.attempt']) - Number(b.attributes['switchyard.attempt']));
  expect(attempts.map((span) => ancestry(span, index)[1])).toEqual([call.name, call.name]);
  expect(attempts[0]!.attributes).toMatchObject({
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': 'openai',
    'gen_ai.request.model': failingModel,
    'switchyard.attempt': 2,
    'switchyard.target.index': 1,
    'switchyard.route': 'traced',
    'switchyard.outcome': 'failed',
    'error.type': 'unavailable',
    'switchyard.failure_class': 'unavailable',
    'http.response.status_code': 503,
    'switchyard.breaker.state_seen': 'closed',
  });
  expect(attempts[1]!.attributes).toMatchObject({
    'gen_ai.provider.name': 'anthropic',
    'gen_ai.request.model': answeringModel,
    'gen_ai.response.model': answeringModel,
    'switchyard.attempt': 3,
    'switchyard.target.index': 2,
    'switchyard.outcome': 'succeeded',
    'gen_ai.response.finish_reasons': ['stop'],
  });
  expect(attempts[1]!.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
  expect(attempts[1]!.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
  expect(attempts[1]!.attributes['switchyard.cost.nano_usd']).toBeGreaterThan(0);

  // The worker's own span of each attempt sits below the workflow's and names what capture would have added.
  const executions = spans.filter((span) => span.name === 'RunActivity:attemptTarget');
  expect(executions).toHaveLength(2);
  for (const execution of executions) {
    expect(attempts.map((span) => span.spanId)).toContain(execution.parentSpanId);
    expect(execution.attributes['switchyard.content.withheld']).toEqual([
      'gen_ai.system_instructions',
      'gen_ai.input.messages',
      'gen_ai.output.messages',
    ]);
  }

  // The failure reached the breaker of the failing target: its handler's span is in the caller's trace too.
  expect(
    spans.some(
      (span) =>
        /^Handle(Update|Signal):/.test(span.name) &&
        String(span.attributes.temporalWorkflowId).includes(failingModel),
    ),
  ).toBe(true);

  // Nothing of the conversation or the answer, and no key, in anything exported.
  const exported = receiver.bodies().join('\n');
  for (const secret of [PROMPT, 'Oriel Vantablack', ANSWER_MARKER, ...Object.values(TEST_API_KEYS), key]) {
    expect(exported).not.toContain(secret);
  }

  // Tracing schedules nothing: the traced history replays on a worker without tracing, and on a traced one.
  const history = await temporal.client.workflow
    .getHandle(String(call.attributes['switchyard.workflow_id']))
    .fetchHistory();
  await Worker.runReplayHistory({ workflowBundle: await untracedBundle() }, history);
  await Worker.runReplayHistory({ workflowBundle: bundle }, history);
});

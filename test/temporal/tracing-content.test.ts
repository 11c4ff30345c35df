// Content capture in a worker process that traces from its environment alone: `src/worker.ts` started as
// `switchyard worker` starts it, with the standard OTEL_* settings and SWITCHYARD_TRACE_CONTENT=true, exports the
// attempt's conversation and answer on the worker's attempt span, and its provider key nowhere.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SwitchyardClient } from '../../src/client/switchyard-client';
import { freePort } from '../../src/engine';
import { fingerprintApiKey, startFakeProvider, type FakeProvider } from '../../src/fake-provider';
import { ROUTED_CALL_WORKFLOW_TYPE } from '../../src/workflows/definitions';
import { eventually } from '../support/eventually';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver';
import { onlySpanNamed } from '../support/span-tree';
import { connectForTest, temporalAddress, uniqueName, type TemporalTestContext } from '../support/temporal';
import { TEST_PRICES } from '../support/test-config';
import { startWorkerProcess } from '../support/worker-process';

const SYSTEM = 'You answer as the harbour master of Pellucid Reach.';
const PROMPT = 'Which ship is moored at berth nine, the Saltmarrow?';
const ANSWER = 'The Saltmarrow left at dawn; berth nine holds the Wrenlight.';
/** The worker's provider key: given to the worker process only, through its environment. */
const PROVIDER_KEY = 'sk-content-capture-3e91a7c2-never-export';
// Breakers are shared by (provider, model) across the whole server: a model of its own keeps this file apart.
const model = uniqueName('gpt-content');

let temporal: TemporalTestContext;
let fake: FakeProvider;
let receiver: OtlpReceiver;
let directory: string;
let worker: ChildProcess | undefined;
let taskQueue: string;

function writeConfig(): string {
  const file = path.join(directory, 'switchyard.config.json');
  const config = {
    providers: {
      openai: {
        kind: 'openai',
        apiKeyEnv: 'CONTENT_TEST_OPENAI_KEY',
        baseURL: fake.openaiBaseURL,
        models: { [model]: TEST_PRICES },
      },
    },
    routes: { captured: { targets: [{ provider: 'openai', model, timeoutMs: 10_000 }] } },
    defaultRoute: 'captured',
  };
  writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}

beforeAll(async () => {
  [temporal, fake, receiver] = await Promise.all([
    connectForTest(),
    startFakeProvider(),
    startOtlpReceiver(),
  ]);
  directory = mkdtempSync(path.join(tmpdir(), 'switchyard-trace-content-'));
  taskQueue = uniqueName('switchyard-content');
  // Nothing but the environment turns tracing on: `runWorker` installs it from these settings.
  worker = await startWorkerProcess({
    script: 'src/worker.ts',
    environment: {
      TEMPORAL_ADDRESS: temporalAddress(),
      SWITCHYARD_CONFIG: writeConfig(),
      SWITCHYARD_TASK_QUEUE: taskQueue,
      SWITCHYARD_METRICS_PORT: String(await freePort()),
      CONTENT_TEST_OPENAI_KEY: PROVIDER_KEY,
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_BSP_SCHEDULE_DELAY: '50',
      SWITCHYARD_TRACE_CONTENT: 'true',
    },
    readyText: 'switchyard worker polling',
  });
});

afterAll(async () => {
  if (worker && worker.exitCode === null) {
    const exited = once(worker, 'exit');
    worker.kill('SIGINT');
    // A graceful shutdown first; a worker that hangs on it is killed.
    const killer = setTimeout(() => worker?.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(killer);
  }
  await receiver?.close();
  await fake?.close();
  await temporal?.close();
  if (directory) rmSync(directory, { recursive: true, force: true });
});

test('with capture on, the attempt span carries the conversation and the answer, and the key is nowhere', async () => {
  fake.script(model, { kind: 'answer', text: ANSWER });
  const switchyard = new SwitchyardClient({ client: temporal.client, taskQueue });
  const { answer, record } = await switchyard.generate({
    route: 'captured',
    request: { system: SYSTEM, messages: [{ role: 'user', content: PROMPT }], maxOutputTokens: 64 },
  });
  expect(answer.text).toBe(ANSWER);
  // The worker sent the key it was given: its absence below is not for want of using it.
  const [sent] = fake.requestsFor(model);
  expect(sent?.apiKeyFingerprint).toBe(fingerprintApiKey(PROVIDER_KEY));

  // The call started with no caller context: its trace is the one the call's workflow span opened.
  const callSpanName = `RunWorkflow:${ROUTED_CALL_WORKFLOW_TYPE}`;
  const spans = await eventually(
    "the call's span and its attempt's worker span arrived",
    async () => {
      const received = receiver.spans();
      const call = received.find(
        (span) => span.name === callSpanName && span.attributes.temporalWorkflowId === record.workflowId,
      );
      return call ? received.filter((span) => span.traceId === call.traceId) : [];
    },
    (found) => found.some((span) => span.name === 'RunActivity:attemptTarget'),
    { timeoutMs: 20_000, intervalMs: 100 },
  );
  const execution = onlySpanNamed(spans, 'RunActivity:attemptTarget');
  expect(execution.serviceName).toBe('switchyard-worker');
  expect(execution.parentSpanId).toBe(onlySpanNamed(spans, 'StartActivity:attemptTarget').spanId);
  expect(execution.attributes).toMatchObject({
    'gen_ai.request.model': model,
    'gen_ai.response.model': model,
    'switchyard.outcome': 'succeeded',
  });
  expect(execution.attributes).not.toHaveProperty('switchyard.content.withheld');

  // The conventions' content attributes are JSON: the messages as sent, the answer as one assistant message.
  const input = JSON.parse(String(execution.attributes['gen_ai.input.messages'])) as unknown;
  expect(input).toEqual([{ role: 'user', content: PROMPT }]);
  expect(JSON.parse(String(execution.attributes['gen_ai.system_instructions']))).toBe(SYSTEM);
  const output = JSON.parse(String(execution.attributes['gen_ai.output.messages'])) as {
    role: string;
    text: string;
  }[];
  expect(output).toEqual([expect.objectContaining({ role: 'assistant', text: ANSWER })]);

  // The content is on the worker's attempt span alone; the workflow's spans never carry it.
  for (const span of spans.filter((candidate) => candidate !== execution)) {
    expect(span.raw).not.toContain(PROMPT);
    expect(span.raw).not.toContain(ANSWER);
  }
  // Capture never reaches the key: not in any exported byte.
  expect(receiver.bodies().join('\n')).not.toContain(PROVIDER_KEY);
});

// A traced call whose worker process is SIGKILLed mid-attempt: the worker that takes the call over replays it and
// the call is still one trace, exported over real OTLP/HTTP by the real worker entry point (src/worker.ts): the lost
// attempt's span ends as a timeout, the next attempt's runs in the surviving process, and no span arrives twice.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { trace } from '@opentelemetry/api';
import { Client } from '@temporalio/client';
import { SwitchyardClient } from '../../src/client/switchyard-client';
import type { Config } from '../../src/config/config';
import { parseConfig } from '../../src/config/load-config';
import { startFakeProvider, type FakeProvider } from '../../src/fake-provider';
import { tracingClientInterceptors } from '../../src/tracing/worker-tracing';
import { eventually } from '../support/eventually';
import { installInMemoryTracing, type InMemoryTracing } from '../support/in-memory-tracing';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver';
import { connectForTest, uniqueName, type TemporalTestContext } from '../support/temporal';
import { fakeProviders, TEST_API_KEYS } from '../support/test-config';
import { startWorkerProcess } from '../support/worker-process';

/** Heartbeat timeout of the test's route, in milliseconds: what notices the killed worker. */
const HEARTBEAT_TIMEOUT_MS = 2_000;
/** A call that has not ended after this long, in milliseconds, did not hold. */
const CALL_TIMEOUT_MS = 120_000;

const request = { messages: [{ role: 'user' as const, content: 'Say hello' }], maxOutputTokens: 64 };
// Models of this file only: their breakers start fresh on this file's queue, never on a queue a dead worker left.
const hangingModel = uniqueName('gpt-hangs');
const answeringModel = uniqueName('claude-answers');
const ROUTE = 'traced-kill';

let temporal: TemporalTestContext;
let fake: FakeProvider;
let receiver: OtlpReceiver;
let callerTracing: InMemoryTracing;
let config: Config;
let configDirectory: string;
let configFile: string;
const children = new Set<ChildProcess>();

beforeAll(async () => {
  [temporal, fake, receiver] = await Promise.all([
    connectForTest(),
    startFakeProvider(),
    startOtlpReceiver(),
  ]);
  // The caller's side keeps its spans in memory: the receiver then holds only what the worker processes export.
  callerTracing = installInMemoryTracing();
  const raw = {
    providers: fakeProviders(fake, { openai: [hangingModel], anthropic: [answeringModel] }),
    routes: {
      [ROUTE]: {
        targets: [
          // Far longer than the heartbeat timeout: only the heartbeat timeout can end the lost attempt.
          { provider: 'openai', model: hangingModel, timeoutMs: 60_000 },
          { provider: 'anthropic', model: answeringModel, timeoutMs: 10_000 },
        ],
        heartbeatTimeoutMs: HEARTBEAT_TIMEOUT_MS,
      },
    },
    defaultRoute: ROUTE,
  };
  config = parseConfig(raw);
  configDirectory = mkdtempSync(path.join(tmpdir(), 'switchyard-traced-kill-'));
  configFile = path.join(configDirectory, 'switchyard.config.json');
  writeFileSync(configFile, JSON.stringify(raw));
});

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await callerTracing?.close();
  await receiver?.close();
  await fake?.close();
  await temporal?.close();
  if (configDirectory) rmSync(configDirectory, { recursive: true, force: true });
});

/** The real worker entry point in its own process, tracing to the receiver; resolves once it polls. */
function startTracedWorker(taskQueue: string, serviceName: string): Promise<ChildProcess> {
  return startWorkerProcess({
    script: 'src/worker.ts',
    environment: {
      ...TEST_API_KEYS,
      SWITCHYARD_CONFIG: configFile,
      SWITCHYARD_TASK_QUEUE: taskQueue,
      // Two workers on one machine: no Prometheus port to fight over.
      SWITCHYARD_METRICS_PORT: 'off',
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_BSP_SCHEDULE_DELAY: '50',
      OTEL_SERVICE_NAME: serviceName,
    },
    readyText: 'switchyard worker polling',
    onSpawn: (spawned) => children.add(spawned),
  });
}

async function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  const exited = once(child, 'exit');
  child.kill(signal);
  await exited;
  children.delete(child);
}

function within<T>(timeoutMs: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

function attemptNumber(span: ReceivedSpan): number {
  return Number(span.attributes['switchyard.attempt']);
}

test('a call whose worker is SIGKILLed mid-attempt is still one trace, with no span exported twice', async () => {
  const taskQueue = uniqueName('traced-kill');
  fake.script(hangingModel, { kind: 'hang' });
  fake.script(answeringModel, { kind: 'answer', text: 'served after the kill' });

  // Until the kill, the doomed process is the only worker on the queue: the call, its first attempt and the
  // workflow's cached state are all in it, so the survivor must replay the call from its history.
  const doomed = await startTracedWorker(taskQueue, 'switchyard-worker-doomed');
  const doomedPid = doomed.pid!;
  const client = new Client({
    connection: temporal.client.connection,
    interceptors: { workflow: tracingClientInterceptors() },
  });
  const calls = new SwitchyardClient({ client, taskQueue, config });
  const { handle, traceId } = await trace.getTracer('test').startActiveSpan('caller', async (span) => {
    try {
      return { handle: await calls.start({ route: ROUTE, request }), traceId: span.spanContext().traceId };
    } finally {
      span.end();
    }
  });

  await eventually(
    'the first attempt to reach the provider',
    async () => fake.requestsFor(hangingModel).length,
    (count) => count === 1,
    { intervalMs: 50 },
  );
  // The server's view of who runs the attempt: the worker identity is `<pid>@<host>`.
  const description = await temporal.client.workflow.getHandle(handle.workflowId).describe();
  const pending = description.raw.pendingActivities ?? [];
  expect(pending.map((activity) => activity.lastWorkerIdentity)).toEqual([
    expect.stringMatching(new RegExp(`^${doomedPid}@`)),
  ]);
  // The doomed process exports the workflow's first spans (the route's resolution) before it dies: the survivor's
  // replay rebuilds them with the same ids, so a re-export during that replay would show as a repeated id below.
  const exportedByDoomed = await eventually(
    'the doomed worker to export the first workflow spans of the call',
    async () =>
      receiver
        .spans()
        .filter(
          (span) =>
            span.attributes.temporalWorkflowId === handle.workflowId &&
            span.resource['process.pid'] === doomedPid &&
            span.name.startsWith('StartActivity:'),
        ),
    (found) => found.length > 0,
    { intervalMs: 50 },
  );
  await stop(doomed, 'SIGKILL');

  const survivor = await startTracedWorker(taskQueue, 'switchyard-worker-survivor');
  const survivorPid = survivor.pid!;
  const { record } = await within(CALL_TIMEOUT_MS, 'the call to end', handle.result());
  expect(
    record.attempts.map((attempt) => [attempt.model, attempt.outcome, attempt.failureClass, attempt.message]),
  ).toEqual([
    [hangingModel, 'failed', 'timeout', 'attempt lost: no heartbeat from its worker'],
    [answeringModel, 'succeeded', undefined, undefined],
  ]);
  // SIGTERM: the worker stops and its tracer flushes what is batched, so everything it would export is in.
  await stop(survivor, 'SIGTERM');

  const received = receiver.spans();
  // No span of any trace arrived twice: the survivor's replay of the call exported nothing the doomed one had.
  const spanIds = received.map((span) => span.spanId);
  const repeated = received.filter((span, index) => spanIds.indexOf(span.spanId) !== index);
  expect(repeated.map((span) => `${span.name} ${span.spanId}`)).toEqual([]);

  // Every span of the call's workflow, from either process, is in the caller's trace.
  const ofCall = received.filter((span) => span.attributes.temporalWorkflowId === handle.workflowId);
  expect(ofCall.map((span) => span.traceId)).toEqual(ofCall.map(() => traceId));
  const spans = received.filter((span) => span.traceId === traceId);
  const pidOf = (span: ReceivedSpan) => span.resource['process.pid'];

  // One span for the call: started in the doomed process, ended (and exported) by the survivor after its replay.
  const runs = received.filter((span) => span.name.startsWith('RunWorkflow:'));
  const callRuns = runs.filter((span) => span.attributes.temporalWorkflowId === handle.workflowId);
  expect(callRuns).toHaveLength(1);
  const call = callRuns[0]!;
  expect(call.traceId).toBe(traceId);
  expect(pidOf(call)).toBe(survivorPid);
  expect(call.attributes).toMatchObject({
    'switchyard.route': ROUTE,
    'switchyard.outcome': 'succeeded',
    'switchyard.fallbacks': 1,
    'switchyard.attempts': 2,
    'switchyard.served_by': `anthropic/${answeringModel}`,
  });
  // What the doomed process exported hangs below the call's span: it came from inside the workflow.
  expect(exportedByDoomed.map((span) => [span.parentSpanId, span.serviceName])).toEqual(
    exportedByDoomed.map(() => [call.spanId, 'switchyard-worker-doomed']),
  );
  const started = callerTracing.ended().find((span) => span.name.startsWith('StartWorkflow:'));
  expect(started?.spanContext().traceId).toBe(traceId);
  expect(call.parentSpanId).toBe(started?.spanContext().spanId);

  // One workflow-side span per attempt, below the call's span.
  const attempts = spans
    .filter((span) => span.name === 'StartActivity:attemptTarget')
    .sort((a, b) => attemptNumber(a) - attemptNumber(b));
  expect(attempts.map((span) => [attemptNumber(span), span.parentSpanId])).toEqual([
    [1, call.spanId],
    [2, call.spanId],
  ]);
  // The lost attempt ended when the server timed its heartbeat out (the record says so above), which the
  // workflow classes as `timeout`; the survivor ended and exported this span after replaying the call.
  expect(attempts[0]!.attributes).toMatchObject({
    'gen_ai.request.model': hangingModel,
    'switchyard.target.index': 0,
    'switchyard.outcome': 'failed',
    'switchyard.failure_class': 'timeout',
    'error.type': 'timeout',
  });
  expect(pidOf(attempts[0]!)).toBe(survivorPid);
  expect(attempts[1]!.attributes).toMatchObject({
    'gen_ai.request.model': answeringModel,
    'switchyard.target.index': 1,
    'switchyard.outcome': 'succeeded',
  });
  expect(attempts[1]!.attributes['error.type']).toBeUndefined();

  // The worker-side span of the next attempt ran in the survivor; the lost one's died unexported with its process.
  const executions = spans.filter((span) => span.name === 'RunActivity:attemptTarget');
  expect(executions.map((span) => [span.parentSpanId, pidOf(span), span.serviceName])).toEqual([
    [attempts[1]!.spanId, survivorPid, 'switchyard-worker-survivor'],
  ]);
  expect(survivorPid).not.toBe(doomedPid);
});

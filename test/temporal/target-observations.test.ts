// A worker's target measurements on a real dev server: real attempts feed them, beginCall hands them out.
import { Client, WorkflowNotFoundError } from '@temporalio/client';
import type { temporal as proto } from '@temporalio/proto';
import { Worker, type WorkflowBundlePath } from '@temporalio/worker';
import type { BeginCallResult } from '../../src/activities';
import { createActivities } from '../../src/activities';
import { createProviderRegistry } from '../../src/activities/provider-registry';
import { TargetObservations } from '../../src/activities/target-observations';
import { SwitchyardClient } from '../../src/client/switchyard-client';
import type { Config } from '../../src/config/config';
import { startFakeProvider, type FakeProvider } from '../../src/fake-provider';
import { breakerWorkflowId } from '../../src/workflows/breaker/definitions';
import {
  bundleSwitchyardWorkflows,
  connectForTest,
  uniqueName,
  type TemporalTestContext,
} from '../support/temporal';
import { TEST_API_KEYS, testConfig } from '../support/test-config';

const request = { messages: [{ role: 'user' as const, content: 'Say hello' }], maxOutputTokens: 64 };
/** The slow model waits this long before it answers, in milliseconds: a floor under its measured latency. */
const SLOW_DELAY_MS = 1_000;
const only = (provider: string, model: string) => ({ targets: [{ provider, model, timeoutMs: 10_000 }] });

let temporal: TemporalTestContext;
let fake: FakeProvider;
let bundle: WorkflowBundlePath;
let config: Config;
beforeAll(async () => {
  [temporal, fake, bundle] = await Promise.all([
    connectForTest(),
    startFakeProvider(),
    bundleSwitchyardWorkflows(),
  ]);
  config = testConfig(fake);
});
afterAll(async () => {
  await fake?.close();
  await temporal?.close();
});

/** Breakers are shared by the whole server: start from fresh ones, so none left open skips a target here. */
async function terminateBreakers(): Promise<void> {
  const ids = Object.entries(config.providers).flatMap(([provider, { models }]) =>
    Object.keys(models).map((model) => breakerWorkflowId(provider, model)),
  );
  for (const workflowId of ids) {
    try {
      await temporal.client.workflow.getHandle(workflowId).terminate('test isolation');
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
    }
  }
}

beforeEach(async () => {
  fake.reset();
  await terminateBreakers();
});

/** A worker on a fresh task queue whose activities measure into their own store (entities on the same queue). */
async function observingWorker() {
  const taskQueue = uniqueName('observations');
  const store = new TargetObservations();
  const activities = createActivities({
    config,
    client: new Client({ connection: temporal.client.connection }),
    taskQueue,
    providers: createProviderRegistry(config, { ...TEST_API_KEYS }),
    targetObservations: store,
  });
  const worker = await Worker.create({
    connection: temporal.nativeConnection,
    taskQueue,
    workflowBundle: bundle,
    activities,
  });
  const switchyard = new SwitchyardClient({ client: temporal.client, taskQueue, config });
  return { worker, activities, switchyard };
}

test("a worker's attempts feed its measurements: beginCall shows the slow model slower and the failing one failing", async () => {
  fake.scriptAlways('gpt-secondary', { kind: 'answer', delayMs: SLOW_DELAY_MS });
  fake.scriptAlways('claude-secondary', { kind: 'error', error: 'server_error' });
  const { worker, activities, switchyard } = await observingWorker();
  const route = {
    strategy: 'fastest' as const,
    targets: [
      { provider: 'openai', model: 'gpt-secondary', timeoutMs: 10_000 },
      { provider: 'openai', model: 'gpt-primary', timeoutMs: 10_000 },
      { provider: 'anthropic', model: 'claude-secondary', timeoutMs: 10_000 },
      { provider: 'anthropic', model: 'claude-primary', timeoutMs: 10_000 },
    ],
  };

  const [begun, plain] = await worker.runUntil(async () => {
    for (let index = 0; index < 3; index += 1) {
      await switchyard.generate({ route: only('openai', 'gpt-secondary'), request });
      await switchyard.generate({ route: only('openai', 'gpt-primary'), request });
    }
    // Fails on claude-secondary (a 500 counts on the breaker), answered by claude-primary.
    const failedOver = await switchyard.generate({
      route: {
        targets: [
          { provider: 'anthropic', model: 'claude-secondary', timeoutMs: 10_000 },
          { provider: 'anthropic', model: 'claude-primary', timeoutMs: 10_000 },
        ],
      },
      request,
    });
    expect(failedOver.record.servedBy?.model).toBe('claude-primary');
    return Promise.all([
      activities.beginCall({ route, hasBudget: false, firstCaller: 'observations#1', observe: true }),
      // The same targets as a plain ordered route, without observe: the result carries nothing new.
      activities.beginCall({ route: { targets: route.targets }, hasBudget: false, firstCaller: 'plain#1' }),
    ]);
  });

  // The fake saw every request the measurements count.
  expect(fake.requestsFor('gpt-secondary')).toHaveLength(3);
  expect(fake.requestsFor('gpt-primary')).toHaveLength(3);
  expect(fake.requestsFor('claude-secondary')).toHaveLength(1);
  const [slow, fast, failing, answeredOnce] = begun.observations ?? [];
  expect(begun.observations).toHaveLength(4);
  expect(slow!.latencyMs).toBeGreaterThanOrEqual(SLOW_DELAY_MS);
  expect(fast!.latencyMs).toBeLessThan(slow!.latencyMs!);
  expect(slow!.recentFailures).toBe(0);
  expect(failing).toEqual({ recentFailures: 1 });
  // claude-primary answered once: it has a latency and no failures.
  expect(answeredOnce!.recentFailures).toBe(0);
  expect(answeredOnce!.latencyMs).toBeDefined();
  expect(begun.draw).toBeGreaterThanOrEqual(0);
  expect(begun.draw).toBeLessThan(1);
  expect(plain).not.toHaveProperty('observations');
  expect(plain).not.toHaveProperty('draw');
});

/** The result of the `beginCall` marker in a call's history. */
function recordedBeginCall(events: readonly proto.api.history.v1.IHistoryEvent[]): BeginCallResult {
  for (const event of events) {
    const details = event.markerRecordedEventAttributes?.details;
    const data = details?.data?.payloads?.[0]?.data;
    const result = details?.result?.payloads?.[0]?.data;
    if (data && result && JSON.parse(Buffer.from(data).toString('utf8')).activity_type === 'beginCall') {
      return JSON.parse(Buffer.from(result).toString('utf8')) as BeginCallResult;
    }
  }
  throw new Error('no beginCall marker in the history');
}

test('a fastest call records the measurements it ordered by, and its history replays on a worker that measured nothing', async () => {
  fake.scriptAlways('gpt-secondary', { kind: 'answer', delayMs: SLOW_DELAY_MS });
  const { worker, switchyard } = await observingWorker();
  const route = {
    strategy: 'fastest' as const,
    targets: [
      { provider: 'openai', model: 'gpt-secondary', timeoutMs: 10_000 },
      { provider: 'openai', model: 'gpt-primary', timeoutMs: 10_000 },
    ],
  };
  const { record } = await worker.runUntil(async () => {
    await switchyard.generate({ route: only('openai', 'gpt-secondary'), request });
    await switchyard.generate({ route: only('openai', 'gpt-primary'), request });
    return switchyard.generate({ route, request });
  });
  expect(record.servedBy?.model).toBe('gpt-primary');

  const history = await temporal.client.workflow.getHandle(record.workflowId).fetchHistory();
  const begun = recordedBeginCall(history.events ?? []);
  expect(begun.observations?.[0]?.latencyMs).toBeGreaterThanOrEqual(SLOW_DELAY_MS);
  expect(begun.observations?.[1]?.latencyMs).toBeLessThan(begun.observations![0]!.latencyMs!);
  expect(begun.draw).toBeGreaterThanOrEqual(0);
  // Replay runs no activity: the order comes from the recorded numbers, so the same commands follow.
  await expect(
    Worker.runReplayHistory({ workflowBundle: bundle }, history, record.workflowId),
  ).resolves.toBeUndefined();
});

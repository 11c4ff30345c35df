// A worker's target measurements on a real dev server: real attempts feed them, beginCall hands them out.
import { Client, WorkflowNotFoundError } from '@temporalio/client';
import { Worker, type WorkflowBundlePath } from '@temporalio/worker';
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

test("a worker's attempts feed its measurements: beginCall shows the slow model slower and the failing one failing", async () => {
  await terminateBreakers();
  fake.scriptAlways('gpt-secondary', { kind: 'answer', delayMs: SLOW_DELAY_MS });
  fake.scriptAlways('claude-secondary', { kind: 'error', error: 'server_error' });
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
    expect(failedOver.record.servedBy.model).toBe('claude-primary');
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

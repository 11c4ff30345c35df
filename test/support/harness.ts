// Per-file harness for routed-call tests: dev server connection, fake provider, workflow bundle, workers.
import { Client, WorkflowNotFoundError } from '@temporalio/client';
import type { WorkerOptions, WorkflowBundlePath } from '@temporalio/worker';
import { breakerWorkflowId } from '../../src/workflows/breaker/definitions';
import { createProviderRegistry } from '../../src/activities/provider-registry';
import { SwitchyardClient } from '../../src/client/switchyard-client';
import type { Config } from '../../src/config/config';
import { startFakeProvider, type FakeProvider } from '../../src/fake-provider';
import { createSwitchyardWorker } from '../../src/worker';
import { bundleSwitchyardWorkflows, connectForTest, uniqueName, type TemporalTestContext } from './temporal';
import { TEST_API_KEYS, testConfig } from './test-config';

export interface Harness {
  readonly temporal: TemporalTestContext;
  readonly fake: FakeProvider;
  readonly config: Config;
  /**
   * Starts a worker on a fresh task queue (or `options.taskQueue`), runs `body` with a client bound to it, then
   * stops the worker.
   */
  withWorker<T>(
    body: (switchyard: SwitchyardClient, taskQueue: string) => Promise<T>,
    options?: {
      readonly taskQueue?: string;
      /** The worker's `cancellationWatchAfterMs`. @default the worker's default */
      readonly cancellationWatchAfterMs?: number | false;
      /** Temporal worker options (interceptors, say). */
      readonly workerOptions?: Partial<WorkerOptions>;
      /** The client on the worker's own connection, asking for eager start. @default false */
      readonly eagerStart?: boolean;
    },
  ): Promise<T>;
  close(): Promise<void>;
}

/** @param configure changes the test config before workers use it (e.g. a model's context window) */
export async function startHarness(
  configure: (config: Config) => Config = (config) => config,
): Promise<Harness> {
  const [temporal, fake, bundle] = await Promise.all([
    connectForTest(),
    startFakeProvider(),
    bundleSwitchyardWorkflows(),
  ]);
  const config = configure(testConfig(fake));
  return {
    temporal,
    fake,
    config,
    withWorker: (body, options) => runWithWorker(temporal, config, bundle, body, options),
    close: async () => {
      await fake.close();
      await temporal.close();
    },
  };
}

/**
 * Breakers are shared by every call on one server, and each test's worker polls its own task queue, so a
 * breaker left by an earlier test would belong to a queue nobody polls. Each test starts from fresh ones.
 */
async function terminateBreakers(temporal: TemporalTestContext, config: Config): Promise<void> {
  const keys = Object.entries(config.providers).flatMap(([provider, { models }]) =>
    Object.keys(models).map((model) => breakerWorkflowId(provider, model)),
  );
  await Promise.all(
    keys.map(async (workflowId) => {
      try {
        await temporal.client.workflow.getHandle(workflowId).terminate('test isolation');
      } catch (error) {
        if (!(error instanceof WorkflowNotFoundError)) throw error;
      }
    }),
  );
}

async function runWithWorker<T>(
  temporal: TemporalTestContext,
  config: Config,
  bundle: WorkflowBundlePath,
  body: (switchyard: SwitchyardClient, taskQueue: string) => Promise<T>,
  options: Parameters<Harness['withWorker']>[1] = {},
): Promise<T> {
  const taskQueue = options.taskQueue ?? uniqueName('switchyard-test');
  await terminateBreakers(temporal, config);
  const worker = await createSwitchyardWorker({
    config,
    connection: temporal.nativeConnection,
    taskQueue,
    workflowBundle: bundle,
    providers: createProviderRegistry(config, { ...TEST_API_KEYS }),
    ...(options.cancellationWatchAfterMs !== undefined
      ? { cancellationWatchAfterMs: options.cancellationWatchAfterMs }
      : {}),
    ...(options.workerOptions ? { workerOptions: options.workerOptions } : {}),
  });
  const switchyard = options.eagerStart
    ? new SwitchyardClient({
        client: new Client({ connection: temporal.nativeConnection }),
        taskQueue,
        config,
        eagerStart: true,
      })
    : new SwitchyardClient({ client: temporal.client, taskQueue, config });
  return worker.runUntil(body(switchyard, taskQueue));
}

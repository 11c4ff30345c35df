// A Switchyard worker in its own process for breaker tests (two processes share a breaker; a killed
// worker's probe). Run with `node --require tsx/cjs`; settings come from the environment; prints "ready".
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createActivities } from '../../src/activities';
import { createProviderRegistry } from '../../src/activities/provider-registry';
import type { FakeProvider } from '../../src/fake-provider';
import { TEST_API_KEYS, testConfig } from './test-config';
import { requiredEnvironment } from './worker-process';

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const address = requiredEnvironment('TEMPORAL_ADDRESS');
  const taskQueue = requiredEnvironment('BREAKER_TEST_TASK_QUEUE');
  const entityTaskQueue = process.env.BREAKER_TEST_ENTITY_TASK_QUEUE ?? taskQueue;
  const fakeUrl = requiredEnvironment('BREAKER_TEST_FAKE_URL');
  const config = testConfig({ openaiBaseURL: `${fakeUrl}/v1`, anthropicBaseURL: fakeUrl } as FakeProvider);
  const client = new Client({ connection: await Connection.connect({ address }) });
  const worker = await Worker.create({
    connection: await NativeConnection.connect({ address }),
    taskQueue,
    // The run's shared bundle (test/support/shared-bundles.ts): webpack in every process would cost seconds.
    workflowBundle: { codePath: requiredEnvironment('BREAKER_TEST_BUNDLE_PATH') },
    activities: createActivities({
      config,
      client,
      taskQueue: entityTaskQueue,
      providers: createProviderRegistry(config, { ...TEST_API_KEYS }),
    }),
  });
  const running = worker.run();
  process.stdout.write('ready\n');
  await running;
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});

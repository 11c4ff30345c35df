// A real Switchyard worker (createSwitchyardWorker) in its own process, for tests that SIGKILL it. Run with
// `node --require tsx/cjs`; settings come from the environment; prints "ready" once it polls.
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { createProviderRegistry } from '../../src/activities/provider-registry';
import { createSwitchyardWorker } from '../../src/worker';
import { reliabilityConfig } from './reliability-config';
import { TEST_API_KEYS } from './test-config';
import { requiredEnvironment } from './worker-process';

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const fakeUrl = requiredEnvironment('RELIABILITY_FAKE_URL');
  const config = reliabilityConfig({ openaiBaseURL: `${fakeUrl}/v1`, anthropicBaseURL: fakeUrl });
  const stickyTimeoutMs = Number(process.env.RELIABILITY_STICKY_TIMEOUT_MS ?? 10_000);
  const worker = await createSwitchyardWorker({
    config,
    connection: await NativeConnection.connect({ address: requiredEnvironment('TEMPORAL_ADDRESS') }),
    taskQueue: requiredEnvironment('RELIABILITY_TASK_QUEUE'),
    // The parent bundles once and shares the file: webpack in every child would cost seconds per run.
    workflowBundle: { codePath: requiredEnvironment('RELIABILITY_BUNDLE_PATH') },
    providers: createProviderRegistry(config, { ...TEST_API_KEYS }),
    // How long a workflow task waits on this worker's sticky queue before any worker may take it.
    workerOptions: { stickyQueueScheduleToStartTimeout: stickyTimeoutMs },
  });
  const running = worker.run();
  process.stdout.write('ready\n');
  await running;
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});

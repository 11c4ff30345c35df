// A Switchyard worker in its own process for the gateway's relay tests (two of them, one SIGKILLed mid-stream).
// Run with `node --require tsx/cjs`; settings come from the environment; prints "ready" once it polls.
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { createProviderRegistry } from '../../src/activities/provider-registry';
import { createSwitchyardWorker } from '../../src/worker';
import { gatewayConfig } from './gateway-harness';
import { TEST_API_KEYS } from './test-config';
import { requiredEnvironment } from './worker-process';

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const fakeUrl = requiredEnvironment('GATEWAY_FAKE_URL');
  const config = gatewayConfig({ openaiBaseURL: `${fakeUrl}/v1`, anthropicBaseURL: fakeUrl });
  const worker = await createSwitchyardWorker({
    config,
    connection: await NativeConnection.connect({ address: requiredEnvironment('TEMPORAL_ADDRESS') }),
    taskQueue: requiredEnvironment('GATEWAY_TASK_QUEUE'),
    workflowBundle: { codePath: requiredEnvironment('GATEWAY_BUNDLE_PATH') },
    providers: createProviderRegistry(config, { ...TEST_API_KEYS }),
    workerOptions: {
      // Few attempt slots per worker, so concurrent streams must spread over both workers.
      maxConcurrentActivityTaskExecutions: Number(process.env.GATEWAY_ACTIVITY_SLOTS ?? 100),
      // After a kill, the call's next task waits this long on the dead worker's sticky queue (default 10 s).
      stickyQueueScheduleToStartTimeout: 1_000,
    },
  });
  const running = worker.run();
  process.stdout.write(`ready ${process.pid}\n`);
  await running;
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});

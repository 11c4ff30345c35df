// The worker's composition root: config → activities, workflows, connection. Node side; runnable as a script.
import { Client } from '@temporalio/client';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities } from './activities';
import type { ProviderRegistry } from './activities/provider-registry';
import { connectWorker, type ConnectionSettings } from './client/connection';
import type { Config } from './config/config';
import { loadConfig } from './config/load-config';
import { DEFAULT_TASK_QUEUE } from './workflows/definitions';

export interface SwitchyardWorkerOptions {
  readonly config: Config;
  readonly connection: NativeConnection;
  /** @default 'default' */
  readonly namespace?: string;
  /** @default `SWITCHYARD_TASK_QUEUE`, else 'switchyard' */
  readonly taskQueue?: string;
  /** Provider clients; @default built from the config with keys from the environment */
  readonly providers?: ProviderRegistry;
  /** A prebuilt workflow bundle (tests build it once per file). @default bundled from `src/workflows` */
  readonly workflowBundle?: WorkerOptions['workflowBundle'];
  /** Extra worker options (concurrency, pollers, cache size). */
  readonly workerOptions?: Partial<WorkerOptions>;
}

export function taskQueueFromEnvironment(): string {
  return process.env.SWITCHYARD_TASK_QUEUE ?? DEFAULT_TASK_QUEUE;
}

export async function createSwitchyardWorker(options: SwitchyardWorkerOptions): Promise<Worker> {
  const namespace = options.namespace ?? 'default';
  const taskQueue = options.taskQueue ?? taskQueueFromEnvironment();
  const client = new Client({ connection: options.connection, namespace });
  return Worker.create({
    connection: options.connection,
    namespace,
    taskQueue,
    ...(options.workflowBundle
      ? { workflowBundle: options.workflowBundle }
      : { workflowsPath: require.resolve('./workflows') }),
    activities: createActivities({
      config: options.config,
      client,
      taskQueue,
      ...(options.providers ? { providers: options.providers } : {}),
    }),
    ...options.workerOptions,
  });
}

/** Runs a worker until SIGINT/SIGTERM, with config from `SWITCHYARD_CONFIG` and Temporal's env settings. */
export async function runWorker(
  settings: ConnectionSettings & { configFile?: string; taskQueue?: string } = {},
): Promise<void> {
  const config = loadConfig(settings.configFile);
  const { connection, namespace } = await connectWorker(settings);
  try {
    const worker = await createSwitchyardWorker({
      config,
      connection,
      namespace,
      ...(settings.taskQueue ? { taskQueue: settings.taskQueue } : {}),
    });
    process.stderr.write(
      `switchyard worker polling task queue "${worker.options.taskQueue}" in namespace "${namespace}"\n`,
    );
    await worker.run();
  } finally {
    await connection.close();
  }
}

if (require.main === module) {
  runWorker().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}

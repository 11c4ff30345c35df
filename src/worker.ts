// The worker's composition root: config → activities, workflows, connection. Node side; runnable as a script.
import { Client } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities, createEntityActivities } from './activities';
import type { ProviderRegistry } from './activities/provider-registry';
import type { BudgetAllowanceOptions } from './activities/budget-allowances';
import { connectWorker, type ConnectionSettings } from './client/connection';
import { dataConverterFromEnvironment, resolveDataConverter } from './codec/data-converter';
import type { Config } from './config/config';
import { loadConfig } from './config/load-config';
import { installWorkerRuntime, type MetricsSettings } from './metrics/worker-runtime';
import { relayOriginsFromEnvironment } from './activities/relay-origins';
import {
  createRouteRegistryReader,
  registryQuery,
  routeRefreshMsFromEnvironment,
} from './activities/route-registry-reader';
import { routeRegistryWorkflowId } from './workflows/route-registry/definitions';
import { bundleSwitchyardWorkflowsApart } from './workflow-bundle';
import { installedTracing, installTracing, type TracingHandle } from './tracing/install-tracing';
import {
  tracingClientInterceptors,
  tracingWorkerInterceptors,
  workflowSpanSinks,
} from './tracing/worker-tracing';
import { DEFAULT_TASK_QUEUE, entityTaskQueue } from './workflows/definitions';

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
  /** Extra options of the routed-call worker (concurrency, pollers, cache size). */
  readonly workerOptions?: Partial<WorkerOptions>;
  /** Extra options of the entity worker (breakers and ledgers). @default none */
  readonly entityWorkerOptions?: Partial<WorkerOptions>;
  /**
   * How payloads are converted and encoded, for both workers and the client the activities reach the entities
   * with; clients of these workers need the same one.
   * @default from SWITCHYARD_CODEC_KEY: AES-256-GCM payload encryption when it is set, else the SDK's default
   */
  readonly dataConverter?: DataConverter;
  /**
   * Gateway origins (`http(s)://host[:port]`) streamed attempts may push their output to.
   * @default `SWITCHYARD_RELAY_ORIGINS` (comma-separated), else any origin
   */
  readonly relayOrigins?: readonly string[];
  /**
   * How long the worker uses its copy of the routes changed at runtime before reading the registry again, in
   * milliseconds: a change reaches every call that starts this long after it, without a restart.
   * @default `SWITCHYARD_ROUTE_REFRESH_MS`, else 2000
   */
  readonly routeRefreshMs?: number;
  /**
   * Where the workers' spans go: a call's workflow, attempts and entity updates become spans of the caller's trace.
   * A prebuilt `workflowBundle` must then be built with `tracing: true`. `false` turns tracing off.
   * @default the tracer this process installed with `installTracing` (none: no spans)
   */
  readonly tracing?: TracingHandle | false;
  /**
   * How long an attempt's request is out before the attempt asks its call to tell it of a cancellation at once
   * (rather than with a heartbeat's answer, up to a heartbeat interval later), in milliseconds. Each watch costs
   * a long call one workflow task and two history events; `false` leaves cancellation to heartbeats alone.
   * @default 250
   */
  readonly cancellationWatchAfterMs?: number | false;
  /**
   * Budgeted calls reserve from small allowances this worker leases from each budget ledger (a claim recorded
   * in the ledger's history before the request is sent) rather than with a ledger update each; `false`: an update
   * each, as before. See docs/budgets.md. @default on, with a 2 s claim window
   */
  readonly budgetAllowances?: BudgetAllowanceOptions | false;
}

/**
 * How long a workflow task waits on the sticky queue of the worker that ran the workflow last before any worker
 * may take it, in milliseconds. The SDK's default is 10 s, which is how long a call stood still after its
 * worker died; with 1 s the call resumes on another worker within a second or two of noticing the death. A
 * busy worker that cannot take its own task within a second loses only its cache entry (the next worker replays).
 */
export const STICKY_QUEUE_SCHEDULE_TO_START_TIMEOUT_MS = 1_000;
/**
 * The longest the worker holds an activity's heartbeat back, in milliseconds. A cancellation reaches an attempt
 * only with a heartbeat's answer, and Temporal's default holds beats for 0.8 × the heartbeat timeout: a cancelled
 * call's provider request ran on, paid for, up to 1.6 s at the default 2 s timeout. An attempt beats every third
 * of its heartbeat timeout and on every streamed piece; this lets those beats out at most every half second, so a
 * cancellation arrives within about that (a gateway stream's caller who leaves is heard sooner, through the
 * relay), for at most two heartbeats a second per attempt at the provider.
 */
export const MAX_HEARTBEAT_THROTTLE_MS = 500;

export function taskQueueFromEnvironment(): string {
  return process.env.SWITCHYARD_TASK_QUEUE ?? DEFAULT_TASK_QUEUE;
}

/**
 * A Switchyard worker: one Temporal worker for routed calls and their attempts on the task queue, and one
 * for the breaker and ledger entities on {@link entityTaskQueue}. Run, stop and await them together.
 */
export interface SwitchyardWorker {
  readonly taskQueue: string;
  readonly entityTaskQueue: string;
  readonly workers: readonly Worker[];
  /** Runs until `shutdown()` or a shutdown signal (SIGINT, SIGTERM). */
  run(): Promise<void>;
  /** Runs while `promise` is pending, then shuts down and returns its result. */
  runUntil<T>(promise: Promise<T>): Promise<T>;
  shutdown(): void;
}

export async function createSwitchyardWorker(options: SwitchyardWorkerOptions): Promise<SwitchyardWorker> {
  const namespace = options.namespace ?? 'default';
  const taskQueue = options.taskQueue ?? taskQueueFromEnvironment();
  const entities = entityTaskQueue(taskQueue);
  const dataConverter = resolveDataConverter(options.dataConverter);
  // Read before anything connects, so a malformed list stops the worker at start.
  const relayOrigins = options.relayOrigins ?? relayOriginsFromEnvironment();
  const routeRefreshMs = options.routeRefreshMs ?? routeRefreshMsFromEnvironment();
  // The activities' client starts and updates entity workflows: it must encode payloads as the workers do.
  const converter = dataConverter ? { dataConverter } : {};
  const tracing = options.tracing === false ? undefined : (options.tracing ?? installedTracing());
  const client = new Client({
    connection: options.connection,
    namespace,
    ...converter,
    // Entity updates and signals carry the call's trace, so the breaker and ledger spans join it.
    ...(tracing ? { interceptors: { workflow: tracingClientInterceptors() } } : {}),
  });
  const workflowSource = options.workflowBundle
    ? { workflowBundle: options.workflowBundle }
    : {
        // Workflow failures use the same failure converter as the activities (encrypted messages, see codec/).
        workflowBundle: {
          code: (
            await bundleSwitchyardWorkflowsApart({
              ...(dataConverter?.failureConverterPath
                ? { failureConverterPath: dataConverter.failureConverterPath }
                : {}),
              tracing: tracing !== undefined,
            })
          ).code,
        },
      };
  const defaults: Partial<WorkerOptions> = {
    stickyQueueScheduleToStartTimeout: STICKY_QUEUE_SCHEDULE_TO_START_TIMEOUT_MS,
    maxHeartbeatThrottleInterval: MAX_HEARTBEAT_THROTTLE_MS,
    ...(tracing
      ? { interceptors: tracingWorkerInterceptors(tracing), sinks: workflowSpanSinks(tracing) }
      : {}),
  };
  const calls = await Worker.create({
    connection: options.connection,
    namespace,
    taskQueue,
    ...workflowSource,
    ...converter,
    ...defaults,
    activities: createActivities({
      config: options.config,
      client,
      taskQueue: entities,
      ...(options.providers ? { providers: options.providers } : {}),
      ...(relayOrigins ? { relayOrigins } : {}),
      ...(options.cancellationWatchAfterMs !== undefined
        ? { cancellationWatchAfterMs: options.cancellationWatchAfterMs }
        : {}),
      ...(options.budgetAllowances !== undefined ? { budgetAllowances: options.budgetAllowances } : {}),
      // One registry per calls' queue; its entity runs on the entities' queue like the breakers and ledgers.
      routeRegistry: createRouteRegistryReader({
        read: registryQuery(client, routeRegistryWorkflowId(taskQueue)),
        refreshMs: routeRefreshMs,
      }),
    }),
    ...options.workerOptions,
  });
  const entityWorker = await Worker.create({
    connection: options.connection,
    namespace,
    taskQueue: entities,
    ...workflowSource,
    ...converter,
    activities: createEntityActivities({ client }),
    ...defaults,
    ...options.entityWorkerOptions,
  });
  const workers = [calls, entityWorker];
  return {
    taskQueue,
    entityTaskQueue: entities,
    workers,
    run: async () => {
      await Promise.all(workers.map((worker) => worker.run()));
    },
    runUntil: async <T>(promise: Promise<T>): Promise<T> => {
      // Both workers stop when the promise settles, and both are awaited even when it rejects.
      const settled = promise.then(
        () => undefined,
        () => undefined,
      );
      const [outcome] = await Promise.allSettled([calls.runUntil(promise), entityWorker.runUntil(settled)]);
      if (outcome.status === 'rejected') throw outcome.reason;
      return outcome.value;
    },
    shutdown: () => workers.forEach((worker) => worker.shutdown()),
  };
}

export interface RunWorkerSettings extends ConnectionSettings {
  /** @default `SWITCHYARD_CONFIG`, else './switchyard.config.json' */
  readonly configFile?: string;
  /** @default `SWITCHYARD_TASK_QUEUE`, else 'switchyard' */
  readonly taskQueue?: string;
  /**
   * The Prometheus endpoint; `false` leaves the process's Temporal runtime alone (the caller installed one).
   * @default `SWITCHYARD_METRICS_PORT` / `SWITCHYARD_METRICS_HOST`, else 127.0.0.1:9464
   */
  readonly metrics?: MetricsSettings | false;
}

/**
 * Runs a worker until SIGINT/SIGTERM, with config from `SWITCHYARD_CONFIG` and Temporal's env settings. It
 * installs the process's Temporal runtime first, with the Prometheus endpoint (see `installWorkerRuntime`).
 */
export async function runWorker(settings: RunWorkerSettings = {}): Promise<void> {
  const config = loadConfig(settings.configFile);
  // A key that cannot be used is reported before anything starts, not after connecting.
  const dataConverter = dataConverterFromEnvironment();
  const relayOrigins = relayOriginsFromEnvironment();
  // Installed before anything connects, so the worker's first span already has its exporter.
  const tracing = installTracing({ serviceName: 'switchyard-worker' });
  const runtime =
    settings.metrics === false
      ? { metricsUrl: undefined }
      : installWorkerRuntime({ metrics: settings.metrics ?? {} });
  const { connection, namespace } = await connectWorker(settings);
  try {
    const worker = await createSwitchyardWorker({
      config,
      connection,
      namespace,
      ...(settings.taskQueue ? { taskQueue: settings.taskQueue } : {}),
      ...(dataConverter ? { dataConverter } : {}),
      ...(relayOrigins ? { relayOrigins } : {}),
    });
    process.stderr.write(
      `switchyard worker polling task queues "${worker.taskQueue}" and "${worker.entityTaskQueue}" in namespace "${namespace}"\n`,
    );
    if (runtime.metricsUrl) process.stderr.write(`switchyard worker metrics at ${runtime.metricsUrl}\n`);
    await worker.run();
  } finally {
    await connection.close();
    // What is batched still goes out when the worker stops on a signal.
    await tracing?.shutdown();
  }
}

if (require.main === module) {
  runWorker().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}

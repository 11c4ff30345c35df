// Per-file harness of the cluster suite: the fake provider, a config file, and real Switchyard worker processes
// (`src/worker.ts`, as deployed) on the cluster; calls go through the client API, or through a gateway process
// (`switchyard serve`) on request. Test side.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { connectClient } from '../../src/client/connection';
import { SwitchyardClient } from '../../src/client/switchyard-client';
import type { Config } from '../../src/config/config';
import { parseConfig } from '../../src/config/load-config';
import { startGatewayProcess, type GatewayProcess } from '../../src/engine/gateway-process';
import { startFakeProvider, type FakeProvider } from '../../src/fake-provider';
import { KeyStore } from '../../src/gateway/key-store';
import { quietRuntime, uniqueName } from './temporal';
import { TEST_API_KEYS } from './test-config';
import { startWorkerProcess } from './worker-process';

/** A Switchyard worker process; Temporal names it `<pid>@<host>` in the histories it writes. */
export interface ClusterWorker {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Everything it printed so far. */
  output(): string;
}

/** A `switchyard serve` process on the cluster, in front of the harness's workers. */
export interface ClusterGateway {
  /** Base URL, e.g. `http://127.0.0.1:43121` (OpenAI SDKs: add `/v1`). */
  readonly url: string;
  /** A key for every route, from the gateway's keys file. */
  readonly key: string;
  /** Everything it printed so far (the start banner, one line per request). */
  output(): string;
}

export interface ClusterHarnessOptions {
  /** Names the task queue, so a history shows which file ran it. */
  readonly label: string;
  /** The raw config (JSON) the workers load from a file, built around the fake provider. */
  readonly config: (fake: FakeProvider) => unknown;
  /** Worker processes started at once. @default 2 */
  readonly workers?: number;
}

export interface ClusterHarness {
  readonly client: Client;
  readonly fake: FakeProvider;
  readonly config: Config;
  readonly taskQueue: string;
  readonly switchyard: SwitchyardClient;
  /** The running worker processes, oldest first. */
  readonly workers: readonly ClusterWorker[];
  startWorker(): Promise<ClusterWorker>;
  /** Starts a gateway process with the workers' config and task queue; it stops with the harness. */
  startGateway(): Promise<ClusterGateway>;
  /** SIGKILLs a worker process and waits for it to be gone. */
  killWorker(worker: ClusterWorker): Promise<void>;
  /** The worker process a history `identity` belongs to (started by this harness), if any. */
  workerOf(identity: string | null | undefined): ClusterWorker | undefined;
  close(): Promise<void>;
}

export async function startClusterHarness(options: ClusterHarnessOptions): Promise<ClusterHarness> {
  quietRuntime();
  const [client, fake] = await Promise.all([connectClient(), startFakeProvider()]);
  const rawConfig = options.config(fake);
  const config = parseConfig(rawConfig);
  const directory = mkdtempSync(path.join(tmpdir(), 'switchyard-cluster-test-'));
  const configFile = path.join(directory, 'switchyard.config.json');
  writeFileSync(configFile, JSON.stringify(rawConfig, null, 2));
  const taskQueue = uniqueName(`cluster-${options.label}`);
  const workers: ClusterWorker[] = [];
  const everyWorker: ClusterWorker[] = [];
  const everyChild = new Set<ChildProcess>();
  const gateways: GatewayProcess[] = [];

  const startWorker = async (): Promise<ClusterWorker> => {
    let printed = '';
    const child = await startWorkerProcess({
      script: 'src/worker.ts',
      environment: {
        ...TEST_API_KEYS,
        SWITCHYARD_CONFIG: configFile,
        SWITCHYARD_TASK_QUEUE: taskQueue,
        SWITCHYARD_METRICS_PORT: 'off',
      },
      readyText: 'switchyard worker polling',
      onOutput: (text) => (printed += text),
      onSpawn: (spawned) => everyChild.add(spawned),
    });
    const worker = { child, pid: child.pid!, output: () => printed };
    workers.push(worker);
    everyWorker.push(worker);
    return worker;
  };

  const startGateway = async (): Promise<ClusterGateway> => {
    const keysFile = path.join(directory, 'switchyard.keys.json');
    const { key } = new KeyStore({ file: keysFile }).create({ routes: ['*'], label: options.label });
    let printed = '';
    const gateway = await startGatewayProcess({
      configFile,
      keysFile,
      // The cluster's address and namespace come from this process's environment, as the workers' do.
      taskQueue,
      onOutput: (text) => (printed += text),
    });
    gateways.push(gateway);
    return { url: gateway.url, key, output: () => printed };
  };

  const killWorker = async (worker: ClusterWorker): Promise<void> => {
    if (worker.child.exitCode === null && worker.child.signalCode === null) {
      const exited = once(worker.child, 'exit');
      worker.child.kill('SIGKILL');
      await exited;
    }
    workers.splice(workers.indexOf(worker), 1);
  };

  const close = async (): Promise<void> => {
    // Gateways first: their open requests end before the workers serving them go.
    await Promise.all(gateways.map((gateway) => gateway.stop()));
    await Promise.all(
      [...everyChild].map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = once(child, 'exit');
        // A clean stop lets the worker finish its tasks and leave the queues (SIGKILL after 15 s).
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(timer);
      }),
    );
    await fake.close();
    await client.connection.close();
    rmSync(directory, { recursive: true, force: true });
  };

  try {
    // Each process bundles the workflows itself, as a deployed worker does; start them side by side.
    await Promise.all(Array.from({ length: options.workers ?? 2 }, () => startWorker()));
  } catch (error) {
    await close();
    throw error;
  }
  return {
    client,
    fake,
    config,
    taskQueue,
    switchyard: new SwitchyardClient({ client, taskQueue, config }),
    workers,
    startWorker,
    startGateway,
    killWorker,
    workerOf: (identity) => everyWorker.find((worker) => identity?.startsWith(`${worker.pid}@`)),
    close,
  };
}

/** The identities that completed workflow tasks of `workflowId`: the worker processes that ran its code. */
export async function workflowTaskIdentities(client: Client, workflowId: string): Promise<string[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? [])
    .map((event) => event.workflowTaskCompletedEventAttributes?.identity)
    .filter((identity): identity is string => Boolean(identity));
}

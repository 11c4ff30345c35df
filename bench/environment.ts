// One bench environment: dev server, the two fake endpoints, the worker process, and the orchestrator's client.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { Breakers, Ledgers } from 'switchyard';
import { startDevServer, startFakeProvider, type DevServer, type FakeProvider } from 'switchyard/testing';
import { entityTaskQueue } from 'switchyard/worker';
import type { BundlePaths } from './bundles';
import { newestSource } from './cli-startup';
import { LATENCY_MODES, MODE_LATENCY_MS, type LatencyMode } from './bench-config';
import { queuePollRates } from './queue-limits';
import type { WorkerSettings } from './protocol';
import { COMPILED_WORKER_ENTRY, WorkerLink } from './worker-link';

/** What a run varies: the server's dynamic config and the worker's settings. */
export interface BenchSetup {
  /** Dynamic config given to the dev server on top of Switchyard's defaults. */
  readonly dynamicConfig: Readonly<Record<string, unknown>>;
  readonly worker: WorkerSettings;
}

/** The bare workflow's floor on a dev server at the engine's defaults, beside the tuned one. */
export interface DefaultsEnvironment {
  readonly server: DevServer;
  /** A driver process on that server (its bare worker is the one measured). */
  readonly link: WorkerLink;
}

export interface BenchEnvironment {
  readonly server: DevServer;
  /** Present when asked for: the same floor on the engine's default settings. */
  readonly defaults?: DefaultsEnvironment;
  readonly fakes: Record<LatencyMode, FakeProvider>;
  /** The driver process: its own worker (eager start works there), the bare worker and the load driver. */
  readonly link: WorkerLink;
  /** A plain Switchyard worker process on {@link loadTaskQueue}: the throughput bench's worker, memory measured. */
  readonly loadWorker: WorkerLink;
  readonly loadTaskQueue: string;
  /** The orchestrator's own client (its own gRPC connection), for reading entities and histories. */
  readonly client: Client;
  readonly breakers: Breakers;
  readonly ledgers: Ledgers;
  readonly taskQueue: string;
  stop(): Promise<void>;
}

/**
 * Dynamic config that puts the queue poll-rate limits the embedded engine lifts back to the server's defaults
 * (20 per second).
 */
export const SERVER_DEFAULT_QUEUE_CONFIG: Readonly<Record<string, unknown>> = queuePollRates();

/**
 * The plain worker runs compiled, as a deployed worker does (tsx adds about 25-30 MB to its RSS); this builds it
 * when dist/ is missing or older than src/ or bench/. BENCH_WORKER_LAUNCH=tsx runs it through tsx instead.
 */
function ensureCompiledWorker(): void {
  const root = path.join(__dirname, '..');
  const builtAt = existsSync(COMPILED_WORKER_ENTRY) ? statSync(COMPILED_WORKER_ENTRY).mtimeMs : 0;
  if (builtAt >= Math.max(newestSource(path.join(root, 'src')), newestSource(__dirname))) return;
  process.stderr.write('[bench] compiling the plain worker (npm run build, bench/tsconfig.worker.json)\n');
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  const tsc = require.resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', path.join(__dirname, 'tsconfig.worker.json')], {
    stdio: 'inherit',
  });
}

export async function startEnvironment(
  setup: BenchSetup,
  bundles: BundlePaths,
  options: { readonly withDefaults?: boolean } = {},
): Promise<BenchEnvironment> {
  const stack: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const step of stack.reverse()) await step().catch(() => undefined);
    stack.length = 0;
  };
  try {
    const server = await startDevServer({ headless: true, dynamicConfig: setup.dynamicConfig });
    stack.push(() => server.stop());
    const fakes = {} as Record<LatencyMode, FakeProvider>;
    for (const mode of LATENCY_MODES) {
      const fake = await startFakeProvider({ latencyMs: MODE_LATENCY_MS[mode] });
      fakes[mode] = fake;
      stack.push(() => fake.close());
    }
    const taskQueue = `bench-${randomUUID().slice(0, 8)}`;
    const loadTaskQueue = `${taskQueue}-load`;
    const common = {
      address: server.address,
      fakeUrls: { '0ms': fakes['0ms'].openaiBaseURL, '50ms': fakes['50ms'].openaiBaseURL },
      settings: setup.worker,
      bundles,
    };
    const compiled = process.env.BENCH_WORKER_LAUNCH !== 'tsx';
    if (compiled) ensureCompiledWorker();
    const [link, loadWorker] = await Promise.all([
      WorkerLink.start({ ...common, taskQueue, role: 'driver' }),
      WorkerLink.start({ ...common, taskQueue: loadTaskQueue, role: 'worker', compiled }),
    ]);
    stack.push(
      () => link.stop(),
      () => loadWorker.stop(),
    );
    let defaults: DefaultsEnvironment | undefined;
    if (options.withDefaults) {
      const defaultServer = await startDevServer({
        headless: true,
        dynamicConfig: SERVER_DEFAULT_QUEUE_CONFIG,
      });
      stack.push(() => defaultServer.stop());
      const defaultLink = await WorkerLink.start({
        ...common,
        address: defaultServer.address,
        taskQueue: `${taskQueue}-defaults`,
        role: 'driver',
      });
      stack.push(() => defaultLink.stop());
      defaults = { server: defaultServer, link: defaultLink };
    }
    const connection = await Connection.connect({ address: server.address });
    stack.push(() => connection.close());
    const client = new Client({ connection });
    return {
      server,
      ...(defaults ? { defaults } : {}),
      fakes,
      link,
      loadWorker,
      loadTaskQueue,
      client,
      breakers: new Breakers(client),
      ledgers: new Ledgers({ client, taskQueue: entityTaskQueue(taskQueue) }),
      taskQueue,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

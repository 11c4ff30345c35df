// The cluster column: routed p50 and calls/s on the cluster shape (PostgreSQL, four Temporal services) beside the
// dev server, each with one and two Switchyard worker processes, in the same interleaved rounds. Bench side;
// `npm run bench:cluster [-- --quick]`, or `measureClusterColumn` from bench/run.ts.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { startDevServer, startFakeProvider, startLocalCluster, type FakeProvider } from 'switchyard/testing';
import { LATENCY_MODES, MODE_LATENCY_MS, type LatencyMode } from './bench-config';
import { buildBundles, type BundlePaths } from './bundles';
import { processCpuMs } from './cpu-account';
import type { BenchSetup } from './environment';
import { describeMachine } from './machine';
import { FULL_SIZES, QUICK_SIZES, type BenchSizes } from './options';
import { TUNED_SETUP } from './run';
import { round, summarize, type Summary } from './stats';
import { THROUGHPUT_P99_BOUND_MS } from './throughput';
import { WorkerLink } from './worker-link';

export const CLUSTER_ENGINES = ['dev-server', 'cluster'] as const;
export type ClusterEngine = (typeof CLUSTER_ENGINES)[number];
/** Switchyard worker processes per lane. */
export const WORKER_COUNTS = [1, 2] as const;
/** The fake provider's latency the calls/s are measured at: the main bench's throughput mode. */
const THROUGHPUT_MODE: LatencyMode = '50ms';

/** One engine, one worker count: a task queue polled by that many worker processes, driven from another. */
interface Lane {
  readonly engine: ClusterEngine;
  readonly workers: number;
  readonly taskQueue: string;
  /** Its own budget scope, so that its ledger entity runs on its own workers. */
  readonly budget: string;
  readonly driver: WorkerLink;
}

interface Engine {
  readonly name: ClusterEngine;
  readonly address: string;
  /** The engine's processes now (PostgreSQL backends come and go), for CPU accounting. */
  processes(): number[];
  stop(): Promise<void>;
}

export interface LaneResult {
  readonly engine: ClusterEngine;
  readonly workers: number;
  /** Routed calls one after another, driven from a process that is not the worker (no eager start). */
  readonly routed: Record<LatencyMode, Summary>;
  readonly routedErrors: number;
  /** The engine's CPU per routed call (all its processes), in milliseconds, from the latency samples. */
  readonly engineCpuPerCallMs: number;
  readonly throughput: {
    readonly mode: LatencyMode;
    readonly levels: readonly {
      readonly concurrency: number;
      readonly callsPerS: number;
      readonly latency: Summary;
      readonly errors: number;
    }[];
    /** The level with the most calls/s whose p99 met the bound and had no errors (else the fastest). */
    readonly best: { readonly concurrency: number; readonly callsPerS: number; readonly p99: number };
    readonly bestMeetsBound: boolean;
  };
}

export interface ClusterColumn {
  readonly generatedAt: string;
  readonly quick: boolean;
  readonly durationS: number;
  readonly machine: ReturnType<typeof describeMachine>;
  readonly clusterShape: string;
  readonly sizes: Pick<
    BenchSizes,
    'warmupCalls' | 'rounds' | 'samplesPerRound' | 'throughputConcurrency' | 'throughputDurationMs'
  >;
  readonly lanes: readonly LaneResult[];
}

/** Every descendant of `pid` (Linux /proc), for the PostgreSQL backends under the postmaster. */
function withDescendants(pid: number): number[] {
  const parents = new Map<number, number[]>();
  try {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        parents.set(parent, [...(parents.get(parent) ?? []), Number(entry)]);
      } catch {
        // The process ended while the list was read.
      }
    }
  } catch {
    return [pid];
  }
  const found = [pid];
  for (let index = 0; index < found.length; index += 1) found.push(...(parents.get(found[index]!) ?? []));
  return found;
}

const cpuOf = (pids: readonly number[]) => pids.reduce((sum, pid) => sum + (processCpuMs(pid) ?? 0), 0);

async function startEngines(setup: BenchSetup, log: (text: string) => void): Promise<Engine[]> {
  const engines: Engine[] = [];
  try {
    const devServer = await startDevServer({ headless: true, dynamicConfig: setup.dynamicConfig });
    engines.push({
      name: 'dev-server',
      address: devServer.address,
      processes: () => [devServer.process.pid!],
      stop: () => devServer.stop(),
    });
    const cluster = await startLocalCluster({ log: (line) => log(`  cluster: ${line}`) });
    engines.push({
      name: 'cluster',
      address: cluster.address,
      processes: () => [
        ...Object.values(cluster.processes).map((child) => child.pid!),
        ...withDescendants(cluster.postgres.process.pid!),
      ],
      stop: () => cluster.stop(),
    });
    return engines;
  } catch (error) {
    for (const engine of engines) await engine.stop().catch(() => undefined);
    throw error;
  }
}

/** Closed loops of routed calls on `lane` at each concurrency, summarized like the main bench's throughput. */
async function laneThroughputLevel(lane: Lane, concurrency: number, durationMs: number) {
  const result = await lane.driver.send({
    kind: 'closedLoop',
    call: { variant: 'routed', mode: THROUGHPUT_MODE, taskQueue: lane.taskQueue, budget: lane.budget },
    concurrency,
    durationMs,
  });
  return {
    concurrency,
    callsPerS: round(result.completed / (result.elapsedMs / 1000)),
    latency: summarize(result.latenciesMs),
    errors: Object.values(result.errorKinds).reduce((sum, count) => sum + count, result.unfinished),
  };
}

/**
 * Starts the dev server and the local cluster side by side, two fake endpoints, and per engine one driver
 * process and 1 + 2 worker processes (one lane per worker count); then measures every lane in interleaved
 * rounds, so that a busy moment of the machine spreads over all of them.
 */
export async function measureClusterColumn(
  sizes: BenchSizes,
  setup: BenchSetup,
  bundles: BundlePaths,
  options: { readonly quick: boolean; readonly log?: (text: string) => void },
): Promise<ClusterColumn> {
  const log = options.log ?? (() => undefined);
  const startedAt = new Date();
  const stack: (() => Promise<void>)[] = [];
  try {
    log('starting the dev server and the cluster');
    const engines = await startEngines(setup, log);
    stack.push(...engines.map((engine) => () => engine.stop()));
    const fakes = {} as Record<LatencyMode, FakeProvider>;
    for (const mode of LATENCY_MODES) {
      fakes[mode] = await startFakeProvider({ latencyMs: MODE_LATENCY_MS[mode] });
      stack.push(() => fakes[mode].close());
    }
    const fakeUrls = { '0ms': fakes['0ms'].openaiBaseURL, '50ms': fakes['50ms'].openaiBaseURL };
    const tag = startedAt.getTime().toString(36);

    const lanes: Lane[] = [];
    for (const engine of engines) {
      const common = { address: engine.address, fakeUrls, settings: setup.worker, bundles };
      log(
        `starting ${1 + WORKER_COUNTS.reduce((sum, count) => sum + count, 0)} processes on the ${engine.name}`,
      );
      const driver = await WorkerLink.start({
        ...common,
        taskQueue: `cluster-bench-${tag}-driver`,
        role: 'driver',
      });
      stack.push(() => driver.stop());
      for (const workers of WORKER_COUNTS) {
        const taskQueue = `cluster-bench-${tag}-${workers}w`;
        const links = await Promise.all(
          Array.from({ length: workers }, () => WorkerLink.start({ ...common, taskQueue, role: 'worker' })),
        );
        stack.push(...links.map((link) => () => link.stop()));
        lanes.push({
          engine: engine.name,
          workers,
          taskQueue,
          budget: `cluster-bench-${tag}-${workers}w`,
          driver,
        });
      }
    }
    const engineOf = (lane: Lane) => engines.find((engine) => engine.name === lane.engine)!;
    const laneName = (lane: Lane) => `${lane.engine} × ${lane.workers}`;

    log(`warm-up: ${sizes.warmupCalls} routed calls per lane and mode`);
    for (const lane of lanes) {
      for (const mode of LATENCY_MODES) {
        await lane.driver.send({
          kind: 'sequential',
          call: { variant: 'routed', mode, taskQueue: lane.taskQueue, budget: lane.budget },
          count: sizes.warmupCalls,
          maxDurationMs: sizes.batchMaxMs * 2,
        });
      }
    }

    log(
      `latency: ${sizes.rounds} rounds × ${sizes.samplesPerRound} samples × ${lanes.length} lanes × 2 modes`,
    );
    const samples = lanes.map(() => ({ '0ms': [] as number[], '50ms': [] as number[], errors: 0, cpuMs: 0 }));
    for (let index = 0; index < sizes.rounds; index += 1) {
      // Rotated each round, so no lane always runs first or last.
      const order = lanes.map((_, position) => (position + index) % lanes.length);
      for (const laneIndex of order) {
        const lane = lanes[laneIndex]!;
        for (const mode of index % 2 === 0 ? LATENCY_MODES : [...LATENCY_MODES].reverse()) {
          const pids = engineOf(lane).processes();
          const cpuBefore = cpuOf(pids);
          const result = await lane.driver.send({
            kind: 'sequential',
            call: { variant: 'routed', mode, taskQueue: lane.taskQueue, budget: lane.budget },
            count: sizes.samplesPerRound,
            maxDurationMs: sizes.batchMaxMs,
          });
          samples[laneIndex]!.cpuMs += cpuOf(pids) - cpuBefore;
          samples[laneIndex]![mode].push(...result.latenciesMs);
          samples[laneIndex]!.errors += result.errors.length;
        }
      }
      log(`  round ${index + 1}/${sizes.rounds}`);
    }

    log(
      `throughput: concurrency ${sizes.throughputConcurrency.join(', ')} × ${sizes.throughputDurationMs / 1000} s per lane`,
    );
    const levels = lanes.map(() => [] as Awaited<ReturnType<typeof laneThroughputLevel>>[]);
    for (const [levelIndex, concurrency] of sizes.throughputConcurrency.entries()) {
      const order = lanes.map((_, position) => (position + levelIndex) % lanes.length);
      for (const laneIndex of order) {
        const level = await laneThroughputLevel(lanes[laneIndex]!, concurrency, sizes.throughputDurationMs);
        levels[laneIndex]!.push(level);
        log(
          `  ${laneName(lanes[laneIndex]!)} at ${concurrency}: ${level.callsPerS}/s, p99 ${level.latency.p99} ms`,
        );
      }
    }

    const results: LaneResult[] = lanes.map((lane, laneIndex) => {
      const laneSamples = samples[laneIndex]!;
      const calls = laneSamples['0ms'].length + laneSamples['50ms'].length;
      const laneLevels = levels[laneIndex]!;
      const meeting = laneLevels.filter(
        (level) => level.latency.p99 < THROUGHPUT_P99_BOUND_MS && level.errors === 0,
      );
      const best = (meeting.length ? meeting : laneLevels).reduce((a, b) =>
        b.callsPerS > a.callsPerS ? b : a,
      );
      return {
        engine: lane.engine,
        workers: lane.workers,
        routed: { '0ms': summarize(laneSamples['0ms']), '50ms': summarize(laneSamples['50ms']) },
        routedErrors: laneSamples.errors,
        engineCpuPerCallMs: calls ? round(laneSamples.cpuMs / calls) : Number.NaN,
        throughput: {
          mode: THROUGHPUT_MODE,
          levels: laneLevels,
          best: { concurrency: best.concurrency, callsPerS: best.callsPerS, p99: best.latency.p99 },
          bestMeetsBound: meeting.length > 0,
        },
      };
    });
    return {
      generatedAt: startedAt.toISOString(),
      quick: options.quick,
      durationS: Math.round((Date.now() - startedAt.getTime()) / 1000),
      machine: describeMachine(),
      clusterShape:
        'PostgreSQL (Debian package) + temporal-server 1.30.1 frontend, history, matching and worker as four ' +
        'processes, 4 history shards, deploy/temporal/dynamicconfig/production-sql.yaml',
      sizes: {
        warmupCalls: sizes.warmupCalls,
        rounds: sizes.rounds,
        samplesPerRound: sizes.samplesPerRound,
        throughputConcurrency: sizes.throughputConcurrency,
        throughputDurationMs: sizes.throughputDurationMs,
      },
      lanes: results,
    };
  } finally {
    for (const step of stack.reverse()) await step().catch(() => undefined);
  }
}

/** The column as a Markdown table, for docs/performance.md. */
export function renderClusterTable(column: ClusterColumn): string {
  const rows = column.lanes.map(
    (lane) =>
      `| ${lane.engine} | ${lane.workers} | ${lane.routed['0ms'].p50} | ${lane.routed['0ms'].p99} | ` +
      `${lane.routed['50ms'].p50} | ${lane.throughput.best.callsPerS} (c=${lane.throughput.best.concurrency}, ` +
      `p99 ${lane.throughput.best.p99} ms${lane.throughput.bestMeetsBound ? '' : ', over the bound'}) | ` +
      `${lane.engineCpuPerCallMs} |`,
  );
  return [
    '| engine | worker processes | routed p50, 0 ms fake (ms) | p99 (ms) | routed p50, 50 ms fake (ms) | routed calls/s, 50 ms fake | engine CPU per call (ms) |',
    '|---|---:|---:|---:|---:|---|---:|',
    ...rows,
  ].join('\n');
}

const USAGE = `usage: npm run bench:cluster [-- --quick] [-- --out <file.json>]
  --quick   a smoke run of a few minutes (its JSON goes to bench/results/cluster-quick.tmp.json)
  --out     write the JSON to this file instead (default bench/results/cluster.json)`;

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  let quick = false;
  let outFile: string | undefined;
  for (let index = 0; index < argv.length; index += 1) {
    if (argv[index] === '--quick') quick = true;
    else if (argv[index] === '--out' && argv[index + 1]) outFile = argv[++index];
    else {
      process.stdout.write(`${USAGE}\n`);
      process.exit(argv[index] === '--help' || argv[index] === '-h' ? 0 : 2);
    }
  }
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const log = (text: string) => process.stderr.write(`[bench:cluster] ${text}\n`);
  const out = path.resolve(
    outFile ?? path.join(__dirname, 'results', quick ? 'cluster-quick.tmp.json' : 'cluster.json'),
  );
  mkdirSync(path.dirname(out), { recursive: true });
  log('bundling the workflows');
  const bundles = await buildBundles();
  try {
    const column = await measureClusterColumn(quick ? QUICK_SIZES : FULL_SIZES, TUNED_SETUP, bundles, {
      quick,
      log,
    });
    writeFileSync(out, `${JSON.stringify(column, null, 2)}\n`);
    process.stdout.write(`${renderClusterTable(column)}\n`);
    log(`wrote ${path.relative(process.cwd(), out)}`);
  } finally {
    bundles.remove();
  }
}

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(
        `bench:cluster failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exit(1);
    },
  );
}

// `npm run bench -- --tune`: the engine settings on and off, each in a fresh environment, A/B over passes.
import type { BundlePaths } from './bundles';
import { startEnvironment, type BenchSetup } from './environment';
import { measureLatency } from './latency';
import { describeMachine, type MachineDescription } from './machine';
import type { BenchSizes } from './options';
import { round, type Summary } from './stats';
import { measureThroughput } from './throughput';

const EAGER_ACTIVITY = 'system.enableActivityEagerExecution';
const ONE_PARTITION = {
  'matching.numTaskqueueReadPartitions': 1,
  'matching.numTaskqueueWritePartitions': 1,
};

/** The matrix: a plain baseline, each setting alone on top of it, and the combination the bench uses. */
export const TUNING_VARIANTS: readonly { readonly name: string; readonly setup: BenchSetup }[] = [
  {
    name: 'baseline (no eager, defaults)',
    setup: { dynamicConfig: { [EAGER_ACTIVITY]: false }, worker: { eagerStart: false, workerOptions: {} } },
  },
  {
    name: '+ eager activity dispatch',
    setup: { dynamicConfig: { [EAGER_ACTIVITY]: true }, worker: { eagerStart: false, workerOptions: {} } },
  },
  {
    name: '+ eager workflow start',
    setup: { dynamicConfig: { [EAGER_ACTIVITY]: false }, worker: { eagerStart: true, workerOptions: {} } },
  },
  {
    name: 'both eager (bench default)',
    setup: { dynamicConfig: { [EAGER_ACTIVITY]: true }, worker: { eagerStart: true, workerOptions: {} } },
  },
  {
    name: 'both eager + 1 task-queue partition',
    setup: {
      dynamicConfig: { [EAGER_ACTIVITY]: true, ...ONE_PARTITION },
      worker: { eagerStart: true, workerOptions: {} },
    },
  },
  {
    name: 'both eager + no workflow cache',
    setup: {
      dynamicConfig: { [EAGER_ACTIVITY]: true },
      worker: { eagerStart: true, workerOptions: { maxCachedWorkflows: 0 } },
    },
  },
  {
    name: 'both eager + a fresh V8 context per workflow',
    setup: {
      dynamicConfig: { [EAGER_ACTIVITY]: true },
      worker: { eagerStart: true, workerOptions: { reuseV8Context: false } },
    },
  },
  {
    name: 'both eager + more pollers and slots',
    setup: {
      dynamicConfig: { [EAGER_ACTIVITY]: true },
      worker: {
        eagerStart: true,
        workerOptions: {
          maxConcurrentWorkflowTaskExecutions: 100,
          maxConcurrentWorkflowTaskPolls: 40,
          maxConcurrentActivityTaskPolls: 40,
        },
      },
    },
  },
];

export interface TuningMeasurement {
  readonly routed: Summary;
  readonly bare: Summary;
  readonly routedOverhead: Summary;
  readonly eagerStartShare: number;
  /** CPU per routed call of the worker process and the dev server, in milliseconds. */
  readonly routedCpuMs: { readonly worker: number; readonly server: number };
  readonly throughputCallsPerS: number;
  readonly throughputP99Ms: number;
  readonly throughputErrors: number;
  readonly peakRssMb: number;
}

export interface TuningRow {
  readonly name: string;
  readonly setup: BenchSetup;
  /** One measurement per pass (passes alternate the order of the variants). */
  readonly passes: TuningMeasurement[];
  /** Mean over passes of the routed p50 / p99, overhead p50, bare p50 and throughput. */
  readonly mean: Record<string, number>;
}

async function measureSetup(
  setup: BenchSetup,
  bundles: BundlePaths,
  sizes: BenchSizes,
  concurrency: number,
): Promise<TuningMeasurement> {
  const environment = await startEnvironment(setup, bundles);
  try {
    const latency = await measureLatency(environment.link, {
      warmupCalls: sizes.warmupCalls,
      rounds: Math.max(2, Math.round(sizes.rounds / 2)),
      samplesPerRound: sizes.samplesPerRound,
      batchMaxMs: sizes.batchMaxMs,
      cpuPids: { worker: environment.link.pid, server: environment.server.process.pid! },
      modes: ['0ms'],
    });
    const throughput = await measureThroughput(environment.link, environment.loadWorker, {
      taskQueue: environment.loadTaskQueue,
      mode: '50ms',
      concurrency: [concurrency],
      durationMs: Math.max(3_000, Math.round(sizes.throughputDurationMs * 0.75)),
    });
    const fast = latency.byMode['0ms'];
    const level = throughput.levels[0]!;
    return {
      routed: fast.routed,
      bare: fast.bare,
      routedOverhead: fast.overhead.routed,
      eagerStartShare: fast.eagerStartShare,
      routedCpuMs: fast.cpuPerCallMs.routed,
      throughputCallsPerS: level.callsPerS,
      throughputP99Ms: level.latency.p99,
      throughputErrors: level.errors,
      peakRssMb: level.peakRssMb,
    };
  } finally {
    await environment.stop();
  }
}

const mean = (values: readonly number[]) =>
  round(values.reduce((sum, value) => sum + value, 0) / values.length);

export async function runTuning(
  sizes: BenchSizes,
  bundles: BundlePaths,
  quick: boolean,
  log: (text: string) => void,
): Promise<{ machine: MachineDescription; generatedAt: string; concurrency: number; rows: TuningRow[] }> {
  const machine = describeMachine();
  const generatedAt = new Date().toISOString();
  const passes = quick ? 1 : 2;
  const concurrency = 20;
  const results = new Map<string, TuningMeasurement[]>();
  for (let pass = 0; pass < passes; pass += 1) {
    const order = pass % 2 === 0 ? TUNING_VARIANTS : [...TUNING_VARIANTS].reverse();
    for (const variant of order) {
      log(`tuning pass ${pass + 1}/${passes}: ${variant.name}`);
      const measurement = await measureSetup(variant.setup, bundles, sizes, concurrency);
      log(
        `  routed p50 ${measurement.routed.p50} ms, p99 ${measurement.routed.p99} ms; bare p50 ${measurement.bare.p50} ms; ` +
          `${measurement.throughputCallsPerS}/s (p99 ${measurement.throughputP99Ms} ms)`,
      );
      results.set(variant.name, [...(results.get(variant.name) ?? []), measurement]);
    }
  }
  const rows = TUNING_VARIANTS.map(({ name, setup }) => {
    const measured = results.get(name) ?? [];
    return {
      name,
      setup,
      passes: measured,
      mean: {
        routedP50: mean(measured.map((m) => m.routed.p50)),
        routedP99: mean(measured.map((m) => m.routed.p99)),
        routedOverheadP50: mean(measured.map((m) => m.routedOverhead.p50)),
        bareP50: mean(measured.map((m) => m.bare.p50)),
        routedWorkerCpuMs: mean(measured.map((m) => m.routedCpuMs.worker)),
        routedServerCpuMs: mean(measured.map((m) => m.routedCpuMs.server)),
        throughputCallsPerS: mean(measured.map((m) => m.throughputCallsPerS)),
        throughputP99Ms: mean(measured.map((m) => m.throughputP99Ms)),
        peakRssMb: mean(measured.map((m) => m.peakRssMb)),
      },
    };
  });
  const table = [
    `| setting | routed p50 / p99 ms | routed overhead p50 ms | bare p50 ms | CPU per routed call ms (worker / server) | routed calls/s (p99 ms) at ${concurrency} | worker RSS MB |`,
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (row) =>
        `| ${row.name} | ${row.mean.routedP50} / ${row.mean.routedP99} | ${row.mean.routedOverheadP50} | ${row.mean.bareP50} | ` +
        `${row.mean.routedWorkerCpuMs} / ${row.mean.routedServerCpuMs} | ` +
        `${row.mean.throughputCallsPerS} (${row.mean.throughputP99Ms}) | ${row.mean.peakRssMb} |`,
    ),
  ];
  process.stdout.write(`${table.join('\n')}\n`);
  return { machine, generatedAt, concurrency, rows };
}

// `npm run bench -- --tune`: the engine settings on and off, each in a fresh environment, A/B over passes.
import type { BundlePaths } from './bundles';
import { startEnvironment, type BenchSetup } from './environment';
import { measureLatency } from './latency';
import { describeMachine, type MachineDescription } from './machine';
import type { BenchSizes } from './options';
import { queuePollRates } from './queue-limits';
import { round, type Summary } from './stats';
import { measureThroughput } from './throughput';

/** Every task queue in one partition (the server's default is four). */
const ONE_PARTITION = {
  'matching.numTaskqueueReadPartitions': 1,
  'matching.numTaskqueueWritePartitions': 1,
};

const EAGER = { eagerStart: true, workerOptions: {} };

/**
 * The matrix: the server's defaults, each queue's poll-rate limit lifted alone on top of them, all of them (the
 * embedded engine's setting), and the two settings the earlier matrix found (eager dispatch off, one partition).
 */
export const TUNING_VARIANTS: readonly { readonly name: string; readonly setup: BenchSetup }[] = [
  {
    name: 'server defaults (every queue polled 20×/s)',
    setup: { dynamicConfig: queuePollRates(), worker: EAGER },
  },
  { name: '+ transfer queue 1000×/s', setup: { dynamicConfig: queuePollRates('transfer'), worker: EAGER } },
  { name: '+ timer queue 1000×/s', setup: { dynamicConfig: queuePollRates('timer'), worker: EAGER } },
  {
    name: '+ visibility queue 1000×/s',
    setup: { dynamicConfig: queuePollRates('visibility'), worker: EAGER },
  },
  { name: '+ outbound queue 1000×/s', setup: { dynamicConfig: queuePollRates('outbound'), worker: EAGER } },
  {
    name: 'every queue 1000×/s (the embedded engine)',
    setup: { dynamicConfig: queuePollRates('transfer', 'timer', 'visibility', 'outbound'), worker: EAGER },
  },
  {
    name: 'every queue 1000×/s + 1 task-queue partition',
    setup: {
      dynamicConfig: { ...queuePollRates('transfer', 'timer', 'visibility', 'outbound'), ...ONE_PARTITION },
      worker: EAGER,
    },
  },
  {
    name: 'every queue 1000×/s, eager activity dispatch off',
    setup: {
      dynamicConfig: {
        ...queuePollRates('transfer', 'timer', 'visibility', 'outbound'),
        'system.enableActivityEagerExecution': false,
      },
      worker: EAGER,
    },
  },
];

export interface TuningMeasurement {
  readonly routed: Summary;
  readonly budgeted: Summary;
  readonly bare: Summary;
  readonly routedOverhead: Summary;
  readonly eagerStartShare: number;
  /** CPU per routed call (budget scope on) of the worker process and the dev server, in milliseconds. */
  readonly routedCpuMs: { readonly worker: number; readonly server: number };
  /** CPU per bare workflow, in milliseconds. */
  readonly bareCpuMs: { readonly worker: number; readonly server: number };
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
    const cpu = (lane: 'bare' | 'budgeted') => {
      const { worker, server } = fast.cpuPerCallMs[lane] ?? { worker: 0, server: 0 };
      return { worker, server };
    };
    return {
      routed: fast.routed,
      budgeted: fast.budgeted,
      bare: fast.bare,
      routedOverhead: fast.overhead.routed,
      eagerStartShare: fast.eagerStartShare,
      routedCpuMs: cpu('budgeted'),
      bareCpuMs: cpu('bare'),
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
        budgetedP50: mean(measured.map((m) => m.budgeted.p50)),
        bareCpuMs: mean(measured.map((m) => m.bareCpuMs.worker + m.bareCpuMs.server)),
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
    `| setting | bare p50 ms | routed p50 / p99 ms | with budget p50 ms | CPU per call ms: bare / with budget (worker + server) | with budget calls/s (p99 ms) at ${concurrency} |`,
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (row) =>
        `| ${row.name} | ${row.mean.bareP50} | ${row.mean.routedP50} / ${row.mean.routedP99} | ${row.mean.budgetedP50} | ` +
        `${row.mean.bareCpuMs} / ${round(row.mean.routedWorkerCpuMs! + row.mean.routedServerCpuMs!)} | ` +
        `${row.mean.throughputCallsPerS} (${row.mean.throughputP99Ms}) |`,
    ),
  ];
  process.stdout.write(`${table.join('\n')}\n`);
  return { machine, generatedAt, concurrency, rows };
}

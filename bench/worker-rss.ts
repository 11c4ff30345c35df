// The plain worker's memory under the throughput load, for one configuration: idle RSS, peak RSS and calls/s at
// each concurrency, and the worker process's own account of its memory. Bench side.
//
//   npx tsx bench/worker-rss.ts [--concurrency 45] [--duration-ms 10000]
//     [--worker-options '{"maxCachedWorkflows":100}'] [--entity-worker-options '{...}']
//
// The plain worker runs compiled (BENCH_WORKER_LAUNCH=tsx: through tsx, see environment.ts);
// BENCH_WORKER_NODE_FLAGS gives the worker processes Node flags, e.g. `--max-semi-space-size=4`.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { buildBundles } from './bundles';
import { startEnvironment } from './environment';
import { TUNED_SETUP } from './run';
import { measureThroughput } from './throughput';
import type { WorkerLink } from './worker-link';

const MB = 2 ** 20;

/** What the worker process says of its memory, and /proc's split of its RSS, in MB. */
async function memoryOf(link: WorkerLink): Promise<Record<string, number>> {
  const usage = await link.send({ kind: 'memory', threadHeaps: true });
  const status = readFileSync(`/proc/${link.pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  const mb = (bytes: number) => Math.round((bytes / MB) * 10) / 10;
  return {
    rss: mb(usage.rssBytes),
    rssAnon: mb(kb('RssAnon') * 1024),
    rssFile: mb(kb('RssFile') * 1024),
    heapTotal: mb(usage.heapTotalBytes),
    heapUsed: mb(usage.heapUsedBytes),
    external: mb(usage.externalBytes),
    arrayBuffers: mb(usage.arrayBuffersBytes),
    ...Object.fromEntries(
      (usage.threadHeaps ?? []).flatMap((heap, index) => [
        [`thread${index}HeapTotal`, mb(heap.totalBytes)],
        [`thread${index}HeapUsed`, mb(heap.usedBytes)],
        [`thread${index}HeapLive`, mb(heap.liveBytes)],
      ]),
    ),
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      concurrency: { type: 'string', default: '45' },
      'duration-ms': { type: 'string', default: '10000' },
      'worker-options': { type: 'string', default: '{}' },
      'entity-worker-options': { type: 'string' },
    },
  });
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const bundles = await buildBundles();
  const environment = await startEnvironment(
    {
      ...TUNED_SETUP,
      worker: {
        ...TUNED_SETUP.worker,
        workerOptions: JSON.parse(values['worker-options']) as Record<string, number | boolean>,
        ...(values['entity-worker-options']
          ? {
              entityWorkerOptions: JSON.parse(values['entity-worker-options']) as Record<
                string,
                number | boolean
              >,
            }
          : {}),
      },
    },
    bundles,
  );
  try {
    const worker = environment.loadWorker;
    const idle = await memoryOf(worker);
    const throughput = await measureThroughput(environment.link, worker, {
      taskQueue: environment.loadTaskQueue,
      mode: '50ms',
      concurrency: values.concurrency.split(',').map(Number),
      durationMs: Number(values['duration-ms']),
    });
    const loaded = await memoryOf(worker);
    const report = {
      launch: process.env.BENCH_WORKER_LAUNCH === 'tsx' ? 'tsx' : 'compiled',
      nodeFlags: process.env.BENCH_WORKER_NODE_FLAGS ?? '',
      workerOptions: values['worker-options'],
      entityWorkerOptions: values['entity-worker-options'] ?? '',
      idle,
      levels: throughput.levels.map((level) => ({
        concurrency: level.concurrency,
        callsPerS: level.callsPerS,
        p99Ms: level.latency.p99,
        errors: level.errors,
        peakRssMb: level.peakRssMb,
      })),
      afterLoad: loaded,
    };
    process.stdout.write(`${JSON.stringify(report)}\n`);
  } finally {
    await environment.stop();
    bundles.remove();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`worker-rss failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);

// Memory samples for the soak: heap after a forced GC and RSS of the test process, which runs the worker.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export interface MemorySample {
  /** Calls completed when the sample was taken. */
  readonly calls: number;
  /** Main-isolate heap in use right after a full GC, in MB. */
  readonly heapAfterGcMb: number;
  /** Resident set size of the whole process (workflow threads included), in MB. */
  readonly rssMb: number;
}

/** `global.gc` when node runs with `--expose-gc`; otherwise exposed at runtime through V8's flags. */
export function forcedGc(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  setFlagsFromString('--expose-gc');
  // A fresh context reads the flag when it is created, so its `gc` exists even though this one's does not.
  return runInNewContext('gc') as () => void;
}

const MB = 1024 * 1024;

export function sampleMemory(calls: number, gc: () => void): MemorySample {
  gc();
  const usage = process.memoryUsage();
  return {
    calls,
    heapAfterGcMb: Math.round((usage.heapUsed / MB) * 10) / 10,
    rssMb: Math.round((usage.rss / MB) * 10) / 10,
  };
}

export interface QuarterComparison {
  readonly secondQuarterMb: number;
  readonly lastQuarterMb: number;
  /** Last-quarter average over second-quarter average. */
  readonly ratio: number;
}

/**
 * Averages a measure over the samples taken in the second and in the last quarter of the run (by calls
 * completed): the first quarter is warm-up (caches, JIT, connection pools), so growth is judged after it.
 */
export function compareQuarters(
  samples: readonly MemorySample[],
  totalCalls: number,
  measure: (sample: MemorySample) => number,
): QuarterComparison {
  const average = (from: number, to: number) => {
    const inRange = samples.filter((sample) => sample.calls > from && sample.calls <= to).map(measure);
    if (inRange.length === 0) throw new Error(`no memory sample between ${from} and ${to} calls`);
    return inRange.reduce((sum, value) => sum + value, 0) / inRange.length;
  };
  const secondQuarterMb = average(totalCalls / 4, totalCalls / 2);
  const lastQuarterMb = average((totalCalls * 3) / 4, totalCalls);
  return {
    secondQuarterMb: Math.round(secondQuarterMb * 10) / 10,
    lastQuarterMb: Math.round(lastQuarterMb * 10) / 10,
    ratio: Math.round((lastQuarterMb / secondQuarterMb) * 1000) / 1000,
  };
}

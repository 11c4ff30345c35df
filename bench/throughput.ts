// Routed-call throughput: closed loops at rising concurrency, with the worker's RSS sampled meanwhile.
import { THROUGHPUT_BUDGET_SCOPE, type LatencyMode } from './bench-config';
import { round, summarize, type Summary } from './stats';
import { withRssSampling, type WorkerLink } from './worker-link';

/** The p99 bound a throughput level must meet to count, in milliseconds. */
export const THROUGHPUT_P99_BOUND_MS = 1_000;

export interface ThroughputLevel {
  readonly concurrency: number;
  readonly callsPerS: number;
  readonly latency: Summary;
  readonly errors: number;
  readonly errorKinds: Record<string, number>;
  readonly peakRssMb: number;
  readonly meanRssMb: number;
}

export interface ThroughputResult {
  readonly mode: LatencyMode;
  readonly levels: ThroughputLevel[];
  /** The level with the most calls per second whose p99 met the bound (else the fastest level). */
  readonly best: ThroughputLevel;
  readonly bestMeetsBound: boolean;
  /** Routed calls completed, all healthy. */
  readonly routedCalls: number;
}

const MB = 2 ** 20;

/**
 * Closed loops of routed calls started by the driver process and served by the plain worker process (`worker`),
 * whose RSS is sampled: the worker's own memory, as in production where applications start calls elsewhere.
 */
export async function measureThroughput(
  driver: WorkerLink,
  worker: WorkerLink,
  options: {
    readonly taskQueue: string;
    readonly mode: LatencyMode;
    readonly concurrency: readonly number[];
    readonly durationMs: number;
    readonly onLevel?: (level: ThroughputLevel) => void;
  },
): Promise<ThroughputResult> {
  const levels: ThroughputLevel[] = [];
  let routedCalls = 0;
  for (const concurrency of options.concurrency) {
    const { result, peakRssBytes, meanRssBytes } = await withRssSampling(
      worker,
      driver.send({
        kind: 'closedLoop',
        call: {
          variant: 'routed',
          mode: options.mode,
          taskQueue: options.taskQueue,
          budget: THROUGHPUT_BUDGET_SCOPE,
        },
        concurrency,
        durationMs: options.durationMs,
      }),
    );
    routedCalls += result.completed;
    const level: ThroughputLevel = {
      concurrency,
      callsPerS: round(result.completed / (result.elapsedMs / 1000)),
      latency: summarize(result.latenciesMs),
      // A call still running when the loop gave up counts as an error: it missed every bound.
      errors: Object.values(result.errorKinds).reduce((sum, count) => sum + count, result.unfinished),
      errorKinds: result.errorKinds,
      peakRssMb: round(peakRssBytes / MB),
      meanRssMb: round(meanRssBytes / MB),
    };
    levels.push(level);
    options.onLevel?.(level);
  }
  const meeting = levels.filter((level) => level.latency.p99 < THROUGHPUT_P99_BOUND_MS && level.errors === 0);
  const pool = meeting.length ? meeting : levels;
  const best = pool.reduce((a, b) => (b.callsPerS > a.callsPerS ? b : a));
  return { mode: options.mode, levels, best, bestMeetsBound: meeting.length > 0, routedCalls };
}

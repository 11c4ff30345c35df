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
          variant: 'budgeted',
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

export interface SideBySideLevel {
  readonly variant: 'bare' | 'routed' | 'budgeted';
  readonly callsPerS: number;
  readonly latency: Summary;
  readonly errors: number;
}

export interface SideBySideResult {
  readonly mode: LatencyMode;
  readonly concurrency: number;
  readonly levels: SideBySideLevel[];
  /** Routed (no budget) calls/s over bare workflows/s, and routed with a budget over bare. */
  readonly ratio: { readonly routed: number; readonly budgeted: number };
}

/**
 * Bare workflows and routed calls at the same concurrency, each in closed loops from the driver process and
 * served by its own workers (eager start on), in two passes of opposite order so neither always runs second.
 */
export async function measureSideBySide(
  driver: WorkerLink,
  options: { readonly mode: LatencyMode; readonly concurrency: number; readonly durationMs: number },
): Promise<SideBySideResult> {
  const variants = ['bare', 'routed', 'budgeted'] as const;
  const totals = new Map<
    string,
    { completed: number; elapsedMs: number; latencies: number[]; errors: number }
  >();
  for (const pass of [variants, [...variants].reverse()]) {
    for (const variant of pass) {
      const result = await driver.send({
        kind: 'closedLoop',
        call: { variant, mode: options.mode },
        concurrency: options.concurrency,
        durationMs: options.durationMs / 2,
      });
      const total = totals.get(variant) ?? { completed: 0, elapsedMs: 0, latencies: [], errors: 0 };
      total.completed += result.completed;
      total.elapsedMs += result.elapsedMs;
      total.latencies.push(...result.latenciesMs);
      total.errors += Object.values(result.errorKinds).reduce((sum, count) => sum + count, result.unfinished);
      totals.set(variant, total);
    }
  }
  const levels = variants.map((variant) => {
    const total = totals.get(variant)!;
    return {
      variant,
      callsPerS: round(total.completed / (total.elapsedMs / 1000)),
      latency: summarize(total.latencies),
      errors: total.errors,
    };
  });
  const rate = (variant: string) => levels.find((level) => level.variant === variant)!.callsPerS;
  return {
    mode: options.mode,
    concurrency: options.concurrency,
    levels,
    ratio: {
      routed: rate('bare') ? round(rate('routed') / rate('bare'), 2) : 0,
      budgeted: rate('bare') ? round(rate('budgeted') / rate('bare'), 2) : 0,
    },
  };
}

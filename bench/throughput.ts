// Routed-call throughput: closed loops at rising concurrency, with the worker's RSS sampled meanwhile.
import { THROUGHPUT_BUDGET_SCOPE, type LatencyMode } from './bench-config';
import { processCpuMs } from './cpu-account';
import type { LitellmProxy } from './litellm';
import type { ClosedLoopResult, Variant } from './protocol';
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
  readonly variant: Variant;
  readonly callsPerS: number;
  readonly latency: Summary;
  readonly errors: number;
  /** `litellm` only: the proxy process's peak RSS during its passes, in MB. */
  readonly peakRssMb?: number;
  /** `litellm` only: CPU per call of the driver process (its SDK client) and of the proxy, in milliseconds. */
  readonly cpuPerCallMs?: { readonly driver: number; readonly proxy: number };
}

export interface SideBySideResult {
  readonly mode: LatencyMode;
  readonly concurrency: number;
  readonly levels: SideBySideLevel[];
  /** Routed (no budget) calls/s over bare workflows/s, and routed with a budget over bare. */
  readonly ratio: {
    readonly routed: number;
    readonly budgeted: number;
    /** LiteLLM calls/s over bare workflows/s and over direct calls/s, when that lane ran. */
    readonly litellm?: { readonly toBare: number; readonly toDirect: number };
  };
}

/** The side-by-side lanes the peer adds: the direct call (the ceiling) and the call through LiteLLM. */
const PEER_VARIANTS: readonly Variant[] = ['direct', 'litellm'];

/**
 * Bare workflows and routed calls at the same concurrency, each in closed loops from the driver process and
 * served by its own workers (eager start on), in two passes of opposite order so neither always runs second.
 * With `litellm`, direct calls and calls through the proxy join them, the proxy's RSS and CPU measured.
 */
export async function measureSideBySide(
  driver: WorkerLink,
  options: {
    readonly mode: LatencyMode;
    readonly concurrency: number;
    readonly durationMs: number;
    /** LiteLLM's proxy, for the peer columns. @default none */
    readonly litellm?: LitellmProxy;
  },
): Promise<SideBySideResult> {
  const { litellm } = options;
  const variants: readonly Variant[] = ['bare', 'routed', 'budgeted', ...(litellm ? PEER_VARIANTS : [])];
  const totals = new Map<
    string,
    { completed: number; elapsedMs: number; latencies: number[]; errors: number }
  >();
  const peer = { peakRssBytes: 0, driverCpuMs: 0, proxyCpuMs: 0 };
  for (const pass of [variants, [...variants].reverse()]) {
    for (const variant of pass) {
      const work = (): Promise<ClosedLoopResult> =>
        driver.send({
          kind: 'closedLoop',
          call: {
            variant,
            mode: options.mode,
            ...(variant === 'litellm' && litellm ? { peer: litellm.endpoint } : {}),
          },
          concurrency: options.concurrency,
          durationMs: options.durationMs / 2,
        });
      let result: ClosedLoopResult;
      if (variant === 'litellm' && litellm) {
        const cpuBefore = [processCpuMs(driver.pid) ?? 0, processCpuMs(litellm.pid) ?? 0];
        const sampled = await withRssSampling({ rssBytes: async () => litellm.rssBytes() ?? 0 }, work());
        peer.driverCpuMs += (processCpuMs(driver.pid) ?? 0) - cpuBefore[0]!;
        peer.proxyCpuMs += (processCpuMs(litellm.pid) ?? 0) - cpuBefore[1]!;
        peer.peakRssBytes = Math.max(peer.peakRssBytes, sampled.peakRssBytes);
        result = sampled.result;
      } else {
        result = await work();
      }
      const total = totals.get(variant) ?? { completed: 0, elapsedMs: 0, latencies: [], errors: 0 };
      total.completed += result.completed;
      total.elapsedMs += result.elapsedMs;
      total.latencies.push(...result.latenciesMs);
      total.errors += Object.values(result.errorKinds).reduce((sum, count) => sum + count, result.unfinished);
      totals.set(variant, total);
    }
  }
  const levels = variants.map((variant): SideBySideLevel => {
    const total = totals.get(variant)!;
    const perCall = (ms: number) => (total.completed ? round(ms / total.completed, 2) : 0);
    return {
      variant,
      callsPerS: round(total.completed / (total.elapsedMs / 1000)),
      latency: summarize(total.latencies),
      errors: total.errors,
      ...(variant === 'litellm'
        ? {
            peakRssMb: round(peer.peakRssBytes / MB),
            cpuPerCallMs: { driver: perCall(peer.driverCpuMs), proxy: perCall(peer.proxyCpuMs) },
          }
        : {}),
    };
  });
  const rate = (variant: string) => levels.find((level) => level.variant === variant)?.callsPerS ?? 0;
  const ratioOf = (variant: string, to: string) => (rate(to) ? round(rate(variant) / rate(to), 2) : 0);
  return {
    mode: options.mode,
    concurrency: options.concurrency,
    levels,
    ratio: {
      routed: ratioOf('routed', 'bare'),
      budgeted: ratioOf('budgeted', 'bare'),
      ...(litellm
        ? { litellm: { toBare: ratioOf('litellm', 'bare'), toDirect: ratioOf('litellm', 'direct') } }
        : {}),
    },
  };
}

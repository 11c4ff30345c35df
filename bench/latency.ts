// Latency of direct, bare and routed calls, interleaved in rounds; overhead = sample − the round's direct p50.
import { LATENCY_MODES, type LatencyMode } from './bench-config';
import { processCpuMs } from './cpu-account';
import type { Variant } from './protocol';
import { median, round, summarize, type Summary } from './stats';
import type { WorkerLink } from './worker-link';

const VARIANTS: readonly Variant[] = ['direct', 'bare', 'routed'];

export interface LatencyOptions {
  readonly warmupCalls: number;
  readonly rounds: number;
  readonly samplesPerRound: number;
  /** Most time one variant's samples of one round may take, in milliseconds. */
  readonly batchMaxMs: number;
  /** Processes whose CPU time is charged to the calls: the worker process and the dev server. */
  readonly cpuPids: { readonly worker: number; readonly server: number };
  /** @default both latency modes */
  readonly modes?: readonly LatencyMode[];
  /** Called after each round, for progress output. */
  readonly onRound?: (round: number) => void;
}

export interface ModeLatency {
  readonly direct: Summary;
  readonly bare: Summary;
  readonly routed: Summary;
  /** Each bare / routed sample minus the p50 of the direct samples of its own round. */
  readonly overhead: { readonly bare: Summary; readonly routed: Summary };
  readonly ratioRoutedToBareP50: number;
  readonly errors: Record<Variant, number>;
  /** Share of workflow starts the server started eagerly (0 when eager start is off). */
  readonly eagerStartShare: number;
  /**
   * CPU time per call of the worker process (client, workers and activities) and of the dev server, in
   * milliseconds: what each path costs the machine, less sensitive to other load than latency is.
   */
  readonly cpuPerCallMs: Record<Variant, { readonly worker: number; readonly server: number }>;
}

export interface LatencyResult {
  /** Every measured mode (both unless `modes` said otherwise). */
  readonly byMode: Record<LatencyMode, ModeLatency>;
  /** Workflow ids and client-side latencies of the last round's samples, for the history profile. */
  readonly lastRound: Record<
    LatencyMode,
    Record<'bare' | 'routed', { ids: string[]; latenciesMs: number[] }>
  >;
  /** Routed calls made (warm-up included): every one was healthy. */
  readonly routedCalls: number;
}

type Samples = Record<Variant, number[]>;

const emptySamples = (): Samples => ({ direct: [], bare: [], routed: [] });

/** The variant order of round `index`: rotated each round so no variant always runs first or last. */
function order(index: number): Variant[] {
  return VARIANTS.map((_, position) => VARIANTS[(position + index) % VARIANTS.length]!);
}

export async function measureLatency(link: WorkerLink, options: LatencyOptions): Promise<LatencyResult> {
  const measured = options.modes ?? LATENCY_MODES;
  let routedCalls = 0;
  for (const mode of measured) {
    for (const variant of VARIANTS) {
      const warmup = await link.send({
        kind: 'sequential',
        call: { variant, mode },
        count: options.warmupCalls,
        maxDurationMs: options.batchMaxMs * 2,
      });
      if (variant === 'routed') routedCalls += warmup.latenciesMs.length;
    }
  }

  const latency = { '0ms': emptySamples(), '50ms': emptySamples() } satisfies Record<LatencyMode, Samples>;
  const overhead = { '0ms': emptySamples(), '50ms': emptySamples() } satisfies Record<LatencyMode, Samples>;
  const errors = { '0ms': { direct: 0, bare: 0, routed: 0 }, '50ms': { direct: 0, bare: 0, routed: 0 } };
  const starts = { '0ms': { workflows: 0, eager: 0 }, '50ms': { workflows: 0, eager: 0 } };
  const cpu = {
    '0ms': { direct: [0, 0, 0], bare: [0, 0, 0], routed: [0, 0, 0] },
    '50ms': { direct: [0, 0, 0], bare: [0, 0, 0], routed: [0, 0, 0] },
  } satisfies Record<LatencyMode, Record<Variant, [worker: number, server: number, calls: number]>>;
  const cpuNow = () => [processCpuMs(options.cpuPids.worker) ?? 0, processCpuMs(options.cpuPids.server) ?? 0];
  const lastRound = {} as LatencyResult['lastRound'];

  for (let index = 0; index < options.rounds; index += 1) {
    const modes = index % 2 === 0 ? measured : [...measured].reverse();
    for (const mode of modes) {
      const roundSamples = emptySamples();
      const roundIds: Record<Variant, string[]> = emptySamples() as unknown as Record<Variant, string[]>;
      for (const variant of order(index)) {
        const cpuBefore = cpuNow();
        const result = await link.send({
          kind: 'sequential',
          call: { variant, mode },
          count: options.samplesPerRound,
          maxDurationMs: options.batchMaxMs,
        });
        const cpuAfter = cpuNow();
        const charged = cpu[mode][variant];
        charged[0] += cpuAfter[0]! - cpuBefore[0]!;
        charged[1] += cpuAfter[1]! - cpuBefore[1]!;
        charged[2] += result.latenciesMs.length;
        roundSamples[variant] = result.latenciesMs;
        roundIds[variant] = result.workflowIds;
        errors[mode][variant] += result.errors.length;
        if (variant !== 'direct') {
          starts[mode].workflows += result.workflowIds.length;
          starts[mode].eager += result.eagerStarts;
        }
        if (variant === 'routed') routedCalls += result.latenciesMs.length;
      }
      const directP50 = median(roundSamples.direct);
      for (const variant of VARIANTS) {
        latency[mode][variant].push(...roundSamples[variant]);
        overhead[mode][variant].push(...roundSamples[variant].map((sample) => sample - directP50));
      }
      lastRound[mode] = {
        bare: { ids: roundIds.bare, latenciesMs: roundSamples.bare },
        routed: { ids: roundIds.routed, latenciesMs: roundSamples.routed },
      };
    }
    options.onRound?.(index + 1);
  }

  const byMode = {} as Record<LatencyMode, ModeLatency>;
  for (const mode of measured) {
    const bare = summarize(latency[mode].bare);
    const routed = summarize(latency[mode].routed);
    byMode[mode] = {
      direct: summarize(latency[mode].direct),
      bare,
      routed,
      overhead: { bare: summarize(overhead[mode].bare), routed: summarize(overhead[mode].routed) },
      ratioRoutedToBareP50: round(routed.p50 / bare.p50, 2),
      errors: errors[mode],
      eagerStartShare: starts[mode].workflows ? round(starts[mode].eager / starts[mode].workflows, 2) : 0,
      cpuPerCallMs: Object.fromEntries(
        VARIANTS.map((variant) => {
          const [worker, server, calls] = cpu[mode][variant];
          return [variant, { worker: round(worker / calls), server: round(server / calls) }];
        }),
      ) as ModeLatency['cpuPerCallMs'],
    };
  }
  return { byMode, lastRound, routedCalls };
}

// Latency of direct, bare and routed calls, interleaved in rounds; overhead = sample − the round's direct p50.
import { LATENCY_MODES, type LatencyMode } from './bench-config';
import { processCpuMs } from './cpu-account';
import type { LitellmEndpoint } from './litellm';
import type { CallSpec, Variant } from './protocol';
import { median, round, summarize, type Summary } from './stats';
import type { WorkerLink } from './worker-link';

/**
 * What a latency sample measures: a call variant on the tuned engine, or (`bareDefault`) the bare workflow on
 * a second dev server left at the engine's default settings, which shows what the settings buy.
 */
export type Lane = Variant | 'bareDefault';

const TUNED_LANES: readonly Lane[] = ['direct', 'bare', 'routed', 'answered', 'budgeted'];

export interface LatencyOptions {
  readonly warmupCalls: number;
  readonly rounds: number;
  readonly samplesPerRound: number;
  /** Most time one variant's samples of one round may take, in milliseconds. */
  readonly batchMaxMs: number;
  /** Processes whose CPU time is charged to the calls: the worker process and the dev server. */
  readonly cpuPids: { readonly worker: number; readonly server: number };
  /** The driver process and dev server at default settings, for the `bareDefault` lane. @default none */
  readonly defaults?: { readonly link: WorkerLink; readonly cpuPids: { worker: number; server: number } };
  /**
   * LiteLLM's proxy, for the `litellm` lane: the driver process calls it with the `openai` SDK, and the
   * proxy process's CPU is charged where the dev server's is for the other lanes. @default no such lane
   */
  readonly litellm?: { readonly peer: LitellmEndpoint; readonly pid: number };
  /** @default both latency modes */
  readonly modes?: readonly LatencyMode[];
  /** Called after each round, for progress output. */
  readonly onRound?: (round: number) => void;
}

export interface CpuPerCall {
  readonly worker: number;
  /** The dev server's; for the `litellm` lane, the proxy process's. */
  readonly server: number;
  readonly total: number;
}

/** The `litellm` lane beside the direct call and the bare workflow of the same rounds. */
export interface PeerLatency {
  /** Each sample minus the p50 of the direct samples of its own round. */
  readonly overhead: Summary;
  /** LiteLLM p50 / direct p50. */
  readonly ratioToDirectP50: number;
  /** LiteLLM p50 / bare workflow p50. */
  readonly ratioToBareP50: number;
  /** LiteLLM / bare workflow, by total CPU per call (driver + proxy against worker + dev server). */
  readonly cpuRatioToBare: number;
}

export interface ModeLatency {
  readonly lanes: Partial<Record<Lane, Summary>>;
  readonly direct: Summary;
  readonly bare: Summary;
  readonly routed: Summary;
  readonly budgeted: Summary;
  /** Each bare / routed sample minus the p50 of the direct samples of its own round. */
  readonly overhead: {
    readonly bare: Summary;
    readonly routed: Summary;
    /** The routed call through the client's `answer`: its caller waits for the answer, not the record. */
    readonly answered: Summary;
    readonly budgeted: Summary;
  };
  /** Routed (no budget) p50 / bare p50. */
  readonly ratioRoutedToBareP50: number;
  /** Routed with a budget scope p50 / bare p50. */
  readonly ratioBudgetedToBareP50: number;
  readonly errors: Partial<Record<Lane, number>>;
  /** Share of workflow starts the server started eagerly (0 when eager start is off). */
  readonly eagerStartShare: number;
  /**
   * CPU time per call of the worker process (client, workers and activities) and of the dev server, in
   * milliseconds: what each path costs the machine, less sensitive to other load than latency is.
   */
  readonly cpuPerCallMs: Partial<Record<Lane, CpuPerCall>>;
  /** Routed / bare and budgeted / bare, by total CPU per call. */
  readonly cpuRatio: { readonly routed: number; readonly budgeted: number };
  /** Present when the `litellm` lane ran. */
  readonly litellm?: PeerLatency;
}

export interface LatencyResult {
  /** Every measured mode (both unless `modes` said otherwise). */
  readonly byMode: Record<LatencyMode, ModeLatency>;
  /** Workflow ids and client-side latencies of the last round's samples, for the history profile. */
  readonly lastRound: Record<
    LatencyMode,
    Record<'bare' | 'routed' | 'budgeted', { ids: string[]; latenciesMs: number[] }>
  >;
  /** Routed calls made (warm-up included): every one was healthy. */
  readonly routedCalls: number;
}

/** The lane order of round `index`: rotated each round so no lane always runs first or last. */
function order(lanes: readonly Lane[], index: number): Lane[] {
  return lanes.map((_, position) => lanes[(position + index) % lanes.length]!);
}

export async function measureLatency(link: WorkerLink, options: LatencyOptions): Promise<LatencyResult> {
  const measured = options.modes ?? LATENCY_MODES;
  const lanes: readonly Lane[] = [
    ...TUNED_LANES,
    ...(options.defaults ? (['bareDefault'] as const) : []),
    ...(options.litellm ? (['litellm'] as const) : []),
  ];
  const linkOf = (lane: Lane) => (lane === 'bareDefault' ? options.defaults!.link : link);
  const variantOf = (lane: Lane): Variant => (lane === 'bareDefault' ? 'bare' : lane);
  const callOf = (lane: Lane, mode: LatencyMode): CallSpec => ({
    variant: variantOf(lane),
    mode,
    ...(lane === 'litellm' ? { peer: options.litellm!.peer } : {}),
  });
  const pidsOf = (lane: Lane) =>
    lane === 'bareDefault'
      ? options.defaults!.cpuPids
      : lane === 'litellm'
        ? { worker: options.cpuPids.worker, server: options.litellm!.pid }
        : options.cpuPids;
  const isRouted = (lane: Lane) => lane === 'routed' || lane === 'answered' || lane === 'budgeted';
  let routedCalls = 0;

  for (const mode of measured) {
    for (const lane of lanes) {
      const warmup = await linkOf(lane).send({
        kind: 'sequential',
        call: callOf(lane, mode),
        count: options.warmupCalls,
        maxDurationMs: options.batchMaxMs * 2,
      });
      if (isRouted(lane)) routedCalls += warmup.latenciesMs.length;
    }
  }

  type PerLane<T> = Partial<Record<Lane, T>>;
  const perMode = <T>(make: () => T) =>
    Object.fromEntries(measured.map((mode) => [mode, make()])) as Record<LatencyMode, T>;
  const latency = perMode<PerLane<number[]>>(() => ({}));
  const overhead = perMode<PerLane<number[]>>(() => ({}));
  const errors = perMode<PerLane<number>>(() => ({}));
  const cpu = perMode<PerLane<[worker: number, server: number, calls: number]>>(() => ({}));
  const starts = perMode(() => ({ workflows: 0, eager: 0 }));
  const lastRound = {} as LatencyResult['lastRound'];

  for (let index = 0; index < options.rounds; index += 1) {
    const modes = index % 2 === 0 ? measured : [...measured].reverse();
    for (const mode of modes) {
      const roundSamples: PerLane<number[]> = {};
      const roundIds: PerLane<string[]> = {};
      for (const lane of order(lanes, index)) {
        const pids = pidsOf(lane);
        const cpuNow = () => [processCpuMs(pids.worker) ?? 0, processCpuMs(pids.server) ?? 0];
        const cpuBefore = cpuNow();
        const result = await linkOf(lane).send({
          kind: 'sequential',
          call: callOf(lane, mode),
          count: options.samplesPerRound,
          maxDurationMs: options.batchMaxMs,
        });
        const cpuAfter = cpuNow();
        const charged = (cpu[mode][lane] ??= [0, 0, 0]);
        charged[0] += cpuAfter[0]! - cpuBefore[0]!;
        charged[1] += cpuAfter[1]! - cpuBefore[1]!;
        charged[2] += result.latenciesMs.length;
        roundSamples[lane] = result.latenciesMs;
        roundIds[lane] = result.workflowIds;
        errors[mode][lane] = (errors[mode][lane] ?? 0) + result.errors.length;
        if (lane !== 'direct' && lane !== 'litellm') {
          starts[mode].workflows += result.workflowIds.length;
          starts[mode].eager += result.eagerStarts;
        }
        if (isRouted(lane)) routedCalls += result.latenciesMs.length;
      }
      const directP50 = median(roundSamples.direct ?? []);
      for (const lane of lanes) {
        (latency[mode][lane] ??= []).push(...(roundSamples[lane] ?? []));
        (overhead[mode][lane] ??= []).push(...(roundSamples[lane] ?? []).map((sample) => sample - directP50));
      }
      lastRound[mode] = {
        bare: { ids: roundIds.bare ?? [], latenciesMs: roundSamples.bare ?? [] },
        routed: { ids: roundIds.routed ?? [], latenciesMs: roundSamples.routed ?? [] },
        budgeted: { ids: roundIds.budgeted ?? [], latenciesMs: roundSamples.budgeted ?? [] },
      };
    }
    options.onRound?.(index + 1);
  }

  const byMode = {} as Record<LatencyMode, ModeLatency>;
  for (const mode of measured) {
    const summaries = Object.fromEntries(
      lanes.map((lane) => [lane, summarize(latency[mode][lane] ?? [])]),
    ) as PerLane<Summary>;
    const cpuPerCallMs = Object.fromEntries(
      lanes.map((lane) => {
        const [worker, server, calls] = cpu[mode][lane] ?? [0, 0, 0];
        const perCall = (ms: number) => (calls ? round(ms / calls) : 0);
        return [lane, { worker: perCall(worker), server: perCall(server), total: perCall(worker + server) }];
      }),
    ) as PerLane<CpuPerCall>;
    const bare = summaries.bare!;
    const cpuOf = (lane: Lane) => cpuPerCallMs[lane]?.total ?? 0;
    const peer = summaries.litellm;
    byMode[mode] = {
      lanes: summaries,
      direct: summaries.direct!,
      bare,
      routed: summaries.routed!,
      budgeted: summaries.budgeted!,
      overhead: {
        bare: summarize(overhead[mode].bare ?? []),
        routed: summarize(overhead[mode].routed ?? []),
        answered: summarize(overhead[mode].answered ?? []),
        budgeted: summarize(overhead[mode].budgeted ?? []),
      },
      ratioRoutedToBareP50: round(summaries.routed!.p50 / bare.p50, 2),
      ratioBudgetedToBareP50: round(summaries.budgeted!.p50 / bare.p50, 2),
      errors: errors[mode],
      eagerStartShare: starts[mode].workflows ? round(starts[mode].eager / starts[mode].workflows, 2) : 0,
      cpuPerCallMs,
      cpuRatio: {
        routed: cpuOf('bare') ? round(cpuOf('routed') / cpuOf('bare'), 2) : 0,
        budgeted: cpuOf('bare') ? round(cpuOf('budgeted') / cpuOf('bare'), 2) : 0,
      },
      ...(peer
        ? {
            litellm: {
              overhead: summarize(overhead[mode].litellm ?? []),
              ratioToDirectP50: round(peer.p50 / summaries.direct!.p50, 2),
              ratioToBareP50: round(peer.p50 / bare.p50, 2),
              cpuRatioToBare: cpuOf('bare') ? round(cpuOf('litellm') / cpuOf('bare'), 2) : 0,
            },
          }
        : {}),
    };
  }
  return { byMode, lastRound, routedCalls };
}

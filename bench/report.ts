// The bench's results: the JSON written to bench/results and the table printed (Markdown, for docs/performance.md).
import type { MachineDescription } from './machine';
import type { CpuShare } from './cpu-account';
import type { LatencyResult } from './latency';
import type { SideBySideResult, ThroughputResult } from './throughput';
import type { HealthyBreakerResult, OutageResult } from './breaker';
import type { LedgerLevelResult } from './ledger';
import type { FailoverResult } from './failover';
import { cancellationGoal, cancellationRow, type CancellationResult } from './cancellation';
import { killResumeGoal, killResumeRow, type KillResumeResult } from './kill-resume';
import type { CallProfile } from './profile';
import type { BenchSetup } from './environment';
import type { Summary } from './stats';

/** The mode the headline fields report: with a 0 ms provider, latency is all engine and client. */
export const PRIMARY_MODE = '0ms';

export interface Goal {
  readonly goal: string;
  readonly measured: string;
  readonly met: boolean;
}

export interface BenchInputs {
  readonly quick: boolean;
  readonly startedAt: Date;
  readonly durationS: number;
  readonly machine: MachineDescription;
  readonly cpu: CpuShare | undefined;
  readonly setup: BenchSetup;
  readonly latency: LatencyResult;
  readonly sideBySide: SideBySideResult;
  readonly throughput: ThroughputResult;
  readonly healthyBreaker: HealthyBreakerResult;
  readonly outage: OutageResult;
  readonly ledger: Record<'c10' | 'c100', LedgerLevelResult>;
  readonly failover: FailoverResult;
  readonly failoverBudgeted: FailoverResult;
  readonly cancellation: CancellationResult;
  /** The plain worker process's RSS after start, before any call, in MB. */
  readonly idleWorkerRssMb: number;
  readonly profile: Record<string, CallProfile>;
  readonly activityTimings: Record<string, Summary>;
  readonly killResume: KillResumeResult;
  /** The LiteLLM peer lane: its version and idle RSS when it ran, why not otherwise. @default not asked for */
  readonly litellm?: LitellmRun;
}

export type LitellmRun =
  | { readonly version: string; readonly idleRssMb: number; readonly skipped?: undefined }
  | { readonly skipped: string };

const p = (summary: Summary) => ({ p50: summary.p50, p99: summary.p99 });

export function buildResults(inputs: BenchInputs) {
  const primary = inputs.latency.byMode[PRIMARY_MODE];
  const results = {
    generatedAt: inputs.startedAt.toISOString(),
    quick: inputs.quick,
    durationS: inputs.durationS,
    machine: {
      ...inputs.machine,
      benchCpuShare: inputs.cpu ? Math.round(inputs.cpu.bench * 100) / 100 : null,
      otherProcessesCpuShare: inputs.cpu ? Math.round(inputs.cpu.others * 100) / 100 : null,
      busy: inputs.cpu ? inputs.cpu.others >= 0.1 : null,
    },
    settings: inputs.setup,
    primaryMode: PRIMARY_MODE,
    direct: p(primary.direct),
    bare: p(primary.bare),
    bare_default_settings: primary.lanes.bareDefault ? p(primary.lanes.bareDefault) : null,
    routed: p(primary.routed),
    routed_with_budget: p(primary.budgeted),
    overhead: {
      routed_p50: primary.overhead.routed.p50,
      routed_p99: primary.overhead.routed.p99,
      answered_p50: primary.overhead.answered.p50,
      answered_p99: primary.overhead.answered.p99,
      budgeted_p50: primary.overhead.budgeted.p50,
      budgeted_p99: primary.overhead.budgeted.p99,
      bare_p50: primary.overhead.bare.p50,
      bare_p99: primary.overhead.bare.p99,
      ratio_routed_to_bare_p50: primary.ratioRoutedToBareP50,
      ratio_budgeted_to_bare_p50: primary.ratioBudgetedToBareP50,
      cpu_ratio_routed_to_bare: primary.cpuRatio.routed,
      cpu_ratio_budgeted_to_bare: primary.cpuRatio.budgeted,
    },
    side_by_side: inputs.sideBySide,
    throughput: {
      routed_calls_per_s: inputs.throughput.best.callsPerS,
      p99_ms: inputs.throughput.best.latency.p99,
      concurrency: inputs.throughput.best.concurrency,
      mode: inputs.throughput.mode,
      meets_p99_bound: inputs.throughput.bestMeetsBound,
      levels: inputs.throughput.levels,
    },
    breaker: {
      events_per_healthy_call: inputs.healthyBreaker.eventsPerHealthyCall,
      outage_entity_events_per_s: inputs.outage.entityEventsPerS,
      healthy: inputs.healthyBreaker,
      outage: inputs.outage,
    },
    ledger: {
      c10: ledgerFields(inputs.ledger.c10),
      c100: ledgerFields(inputs.ledger.c100),
    },
    failover: {
      p50: inputs.failover.failover.p50,
      p99: inputs.failover.failover.p99,
      gap: inputs.failover.failover,
      call: inputs.failover.call,
      errors: inputs.failover.errors,
      with_budget: {
        p50: inputs.failoverBudgeted.failover.p50,
        p99: inputs.failoverBudgeted.failover.p99,
        errors: inputs.failoverBudgeted.errors,
      },
      floor_ms: failoverFloor(inputs.profile),
    },
    worker_rss_mb_at_load: inputs.throughput.best.peakRssMb,
    worker_rss_mb_at_45:
      inputs.throughput.levels.find((level) => level.concurrency === 45)?.peakRssMb ?? null,
    worker_rss_mb_idle: inputs.idleWorkerRssMb,
    modes: inputs.latency.byMode,
    profile: inputs.profile,
    activityTimings: inputs.activityTimings,
    cancellation: inputs.cancellation,
    killResume: inputs.killResume,
    litellm: litellmFields(inputs),
    goals: [] as Goal[],
  };
  results.goals = goals(results, inputs);
  return results;
}

export type BenchResults = ReturnType<typeof buildResults>;

/** The peer lane's headline numbers (fake at 0 ms, side by side at its concurrency), or why it did not run. */
function litellmFields(inputs: BenchInputs) {
  const run = inputs.litellm;
  if (!run) return null;
  if (run.skipped !== undefined) return { skipped: run.skipped };
  const primary = inputs.latency.byMode[PRIMARY_MODE];
  const lane = primary.lanes.litellm;
  const level = inputs.sideBySide.levels.find((each) => each.variant === 'litellm');
  return {
    version: run.version,
    p50: lane ? lane.p50 : null,
    p99: lane ? lane.p99 : null,
    ratio_to_direct_p50: primary.litellm?.ratioToDirectP50 ?? null,
    ratio_to_bare_p50: primary.litellm?.ratioToBareP50 ?? null,
    /** What a caller waits beyond a direct call, through the client's `answer`, against the proxy's. */
    answered_overhead_ratio_p50:
      primary.litellm && primary.litellm.overhead.p50 > 0
        ? Math.round((primary.overhead.answered.p50 / primary.litellm.overhead.p50) * 100) / 100
        : null,
    cpu_ms_per_call: primary.cpuPerCallMs.litellm ?? null,
    cpu_ratio_to_bare: primary.litellm?.cpuRatioToBare ?? null,
    calls_per_s: level?.callsPerS ?? null,
    calls_per_s_ratio: inputs.sideBySide.ratio.litellm ?? null,
    rss_mb_idle: run.idleRssMb,
    rss_mb_peak: level?.peakRssMb ?? null,
  };
}

function ledgerFields(level: LedgerLevelResult) {
  const { reservesPerS, p99Ms, overGrant, ...rest } = level;
  return { reserves_per_s: reservesPerS, p99_ms: p99Ms, over_grant: overGrant, ...rest };
}

/**
 * The bare workflow's dispatch of one workflow task plus one task's run (history segments, per task): what a
 * failover may cost at best, when target 2's attempt needs one workflow task after target 1's failure.
 */
function failoverFloor(profile: Record<string, CallProfile>): number | null {
  const bare = profile[`bare (fake at ${PRIMARY_MODE})`];
  const segment = (between: string) => bare?.segments.find((each) => each.between === between);
  const dispatch = segment('WorkflowTaskScheduled → WorkflowTaskStarted');
  const run = segment('WorkflowTaskStarted → WorkflowTaskCompleted');
  if (!dispatch || !run) return null;
  return Math.round((dispatch.p50Ms / dispatch.perCall + run.p50Ms / run.perCall) * 100) / 100;
}

function goals(results: Omit<BenchResults, 'goals'>, inputs: BenchInputs): Goal[] {
  const slow = inputs.latency.byMode['50ms'];
  const c100 = results.ledger.c100;
  const o = results.overhead;
  const rate = (variant: string) =>
    results.side_by_side.levels.find((level) => level.variant === variant)?.callsPerS ?? 0;
  const floor = results.failover.floor_ms;
  const rss45 = results.worker_rss_mb_at_45;
  const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
  const budgetedToRouted = {
    p50: ratio(results.routed_with_budget.p50, results.routed.p50),
    cpu: ratio(o.cpu_ratio_budgeted_to_bare, o.cpu_ratio_routed_to_bare),
  };
  return [
    {
      goal: 'routed call with breaker and budget: p50 ≤ 1.25 × the bare workflow’s',
      measured: `${o.ratio_budgeted_to_bare_p50} × (50 ms fake: ${slow.ratioBudgetedToBareP50} ×)`,
      met: o.ratio_budgeted_to_bare_p50 <= 1.25,
    },
    {
      goal: 'routed call with breaker and budget: CPU per call ≤ 1.3 × the bare workflow’s',
      measured: `${o.cpu_ratio_budgeted_to_bare} × (50 ms fake: ${slow.cpuRatio.budgeted} ×)`,
      met: o.cpu_ratio_budgeted_to_bare <= 1.3,
    },
    {
      goal: 'budgeted call: p50 and CPU per call ≤ 1.1 × the same call without a budget scope',
      measured: `p50 ${budgetedToRouted.p50} ×, CPU ${budgetedToRouted.cpu} × (${results.routed_with_budget.p50} vs ${results.routed.p50} ms)`,
      met: budgetedToRouted.p50 <= 1.1 && budgetedToRouted.cpu <= 1.1,
    },
    {
      goal: 'routed call without a budget scope: p50 ≤ 1.1 × the bare workflow’s',
      measured: `${o.ratio_routed_to_bare_p50} × (CPU ${o.cpu_ratio_routed_to_bare} ×; 50 ms fake: ${slow.ratioRoutedToBareP50} ×)`,
      met: o.ratio_routed_to_bare_p50 <= 1.1,
    },
    {
      goal: `routed calls/s at ${results.side_by_side.concurrency} concurrent ≥ 0.8 × bare workflows/s`,
      measured: `${results.side_by_side.ratio.routed} × (${rate('routed')} vs ${rate('bare')}/s; with a budget ${results.side_by_side.ratio.budgeted} ×, ${rate('budgeted')}/s)`,
      met: results.side_by_side.ratio.routed >= 0.8,
    },
    {
      goal: 'failover p50 ≤ the bare workflow’s per-task dispatch plus one workflow task',
      measured: `${results.failover.p50} ms vs ${floor ?? '?'} ms (with a budget scope: ${results.failover.with_budget.p50} ms)`,
      met: floor !== null && results.failover.p50 <= floor,
    },
    {
      goal: 'one ledger scope at 100 concurrent callers: p99 reserve ≤ 100 ms, 0 errors, 0 over-grant',
      measured: `p99 ${c100.p99_ms} ms, ${c100.errors} errors, ${c100.over_grant} over-grant, ${c100.lost} lost`,
      met: c100.errors === 0 && c100.over_grant === 0 && c100.lost === 0 && c100.p99_ms <= 100,
    },
    {
      goal: 'worker RSS at 45 concurrent ≤ 300 MB',
      measured: rss45 === null ? 'not measured (no 45-concurrent level)' : `${rss45} MB`,
      met: rss45 !== null && rss45 <= 300,
    },
    {
      goal: '0 breaker events per healthy call',
      measured: `${results.breaker.events_per_healthy_call} (${inputs.healthyBreaker.eventsAdded} events / ${inputs.healthyBreaker.healthyCalls} calls)`,
      met: inputs.healthyBreaker.eventsAdded === 0 && inputs.healthyBreaker.sameRun,
    },
    cancellationGoal(inputs.cancellation),
    killResumeGoal(inputs.killResume),
  ];
}

const row = (cells: readonly (string | number)[]) => `| ${cells.join(' | ')} |`;

const LANE_NAMES = {
  direct: 'direct SDK call',
  bareDefault: 'bare workflow, server defaults',
  bare: 'bare workflow',
  routed: 'routed call',
  answered: 'routed call, answer first (client `answer`)',
  budgeted: 'routed call with budget',
  litellm: 'LiteLLM proxy (peer)',
} as const;

/** The results as Markdown tables: latency by mode, the other measurements, then the goals. */
export function renderTables(results: BenchResults): string {
  const fast = results.modes['0ms'];
  const slow = results.modes['50ms'];
  const pair = (summary: Summary) => `${summary.p50} / ${summary.p99}`;
  const machine = results.machine;
  const lines = [
    `Machine: ${machine.cpus} × ${machine.cpuModel}, ${machine.memoryGb} GB, ${machine.os} ${machine.kernel}, ` +
      `Node ${machine.node}, ${machine.temporalCli}; ` +
      (machine.calibration
        ? `one core: 200k JSON objects in ${machine.calibration.allocateAndStringifyMs} ms, ` +
          `${machine.calibration.localFetchCpuMs} ms CPU per local fetch; `
        : '') +
      `other processes used ${Math.round((machine.otherProcessesCpuShare ?? 0) * 100)}% of the CPU during the run` +
      (machine.busy ? ' (busy machine: numbers are noisy)' : ''),
    '',
    row(['latency, ms (p50 / p99)', 'fake at 0 ms', 'fake at 50 ms']),
    row(['---', '---:', '---:']),
    row(['direct SDK call', pair(fast.direct), pair(slow.direct)]),
    ...(fast.lanes.bareDefault && slow.lanes.bareDefault
      ? [
          row([
            'bare one-activity workflow, server defaults',
            pair(fast.lanes.bareDefault),
            pair(slow.lanes.bareDefault),
          ]),
        ]
      : []),
    row(['bare one-activity workflow (the floor)', pair(fast.bare), pair(slow.bare)]),
    row(['routed call (breaker)', pair(fast.routed), pair(slow.routed)]),
    ...(fast.lanes.answered && slow.lanes.answered
      ? [
          row([
            'routed call (breaker), the answer through `answer()`',
            pair(fast.lanes.answered),
            pair(slow.lanes.answered),
          ]),
        ]
      : []),
    row(['routed call (breaker + budget)', pair(fast.budgeted), pair(slow.budgeted)]),
    row(['routed p50 / bare p50', `${fast.ratioRoutedToBareP50} ×`, `${slow.ratioRoutedToBareP50} ×`]),
    row([
      'with budget p50 / bare p50',
      `${fast.ratioBudgetedToBareP50} ×`,
      `${slow.ratioBudgetedToBareP50} ×`,
    ]),
    ...(['direct', 'bareDefault', 'bare', 'routed', 'answered', 'budgeted'] as const)
      .filter((lane) => fast.cpuPerCallMs[lane] && slow.cpuPerCallMs[lane])
      .map((lane) =>
        row([
          `CPU per call, ms (worker process + dev server): ${LANE_NAMES[lane]}`,
          `${fast.cpuPerCallMs[lane]!.worker} + ${fast.cpuPerCallMs[lane]!.server}`,
          `${slow.cpuPerCallMs[lane]!.worker} + ${slow.cpuPerCallMs[lane]!.server}`,
        ]),
      ),
    row([
      'CPU per call / bare: routed, with budget',
      `${fast.cpuRatio.routed} ×, ${fast.cpuRatio.budgeted} ×`,
      `${slow.cpuRatio.routed} ×, ${slow.cpuRatio.budgeted} ×`,
    ]),
    ...litellmLatencyRows(results),
    '',
    row(['measurement', 'result']),
    row(['---', '---']),
    ...results.side_by_side.levels.map((level) =>
      row([
        `${LANE_NAMES[level.variant]} at ${results.side_by_side.concurrency} concurrent (fake at ${results.side_by_side.mode})`,
        `${level.callsPerS} calls/s, p50 ${level.latency.p50} ms, p99 ${level.latency.p99} ms, ${level.errors} errors`,
      ]),
    ),
    ...litellmSideBySideRows(results),
    row([
      `throughput with budget, on a worker process of its own (fake at ${results.throughput.mode})`,
      `${results.throughput.routed_calls_per_s} calls/s at ${results.throughput.concurrency} concurrent, p99 ${results.throughput.p99_ms} ms`,
    ]),
    ...results.throughput.levels.map((level) =>
      row([
        `… ${level.concurrency} concurrent`,
        `${level.callsPerS} calls/s, p50 ${level.latency.p50} ms, p99 ${level.latency.p99} ms, ${level.errors} errors, RSS ${level.peakRssMb} MB`,
      ]),
    ),
    row(['breaker events per healthy call', `${results.breaker.events_per_healthy_call}`]),
    row([
      `breaker entity during a full outage (${results.breaker.outage.concurrency} concurrent)`,
      `${results.breaker.outage_entity_events_per_s} events/s while open (${results.breaker.outage.steadyRequestsToDownTarget} probes reached the provider in ${results.breaker.outage.steadyS} s, ${results.breaker.outage.cooldownMs / 1000} s cooldown); ${results.breaker.outage.openingEvents} events while opening`,
    ]),
    ...(['c10', 'c100'] as const).map((key) => {
      const level = results.ledger[key];
      return row([
        `ledger, ${level.callers} callers on one scope`,
        `${level.reserves_per_s} reserves/s, p50 ${level.latency.p50} ms, p99 ${level.p99_ms} ms, ${level.errors} errors, ${level.over_grant} over-grant, ${level.lost} lost`,
      ]);
    }),
    row([
      'failover (target 1 fails → target 2 request)',
      `p50 ${results.failover.p50} ms, p99 ${results.failover.p99} ms; with a budget scope p50 ${results.failover.with_budget.p50} ms, p99 ${results.failover.with_budget.p99} ms`,
    ]),
    row(cancellationRow(results.cancellation)),
    row(killResumeRow(results.killResume)),
    row([
      'worker process RSS at the throughput load',
      `${results.worker_rss_mb_at_load} MB (${results.worker_rss_mb_idle} MB after start, before any call)`,
    ]),
    '',
    row(['goal', 'measured', 'met']),
    row(['---', '---', '---']),
    ...results.goals.map((goal) => row([goal.goal, goal.measured, goal.met ? 'yes' : '**no**'])),
  ];
  return lines.join('\n');
}

/** The peer lane's rows of the latency table: its latency, its ratios, its CPU (or why it did not run). */
function litellmLatencyRows(results: BenchResults): string[] {
  const peer = results.litellm;
  if (!peer) return [];
  if ('skipped' in peer) return [row(['LiteLLM proxy (peer)', `skipped: ${peer.skipped}`, ''])];
  const fast = results.modes['0ms'];
  const slow = results.modes['50ms'];
  const fastPeer = fast.lanes.litellm;
  const slowPeer = slow.lanes.litellm;
  if (!fastPeer || !slowPeer || !fast.litellm || !slow.litellm) return [];
  const cpu = (mode: typeof fast) => mode.cpuPerCallMs.litellm!;
  return [
    row([
      `LiteLLM proxy ${peer.version}, 1 worker (peer)`,
      `${fastPeer.p50} / ${fastPeer.p99}`,
      `${slowPeer.p50} / ${slowPeer.p99}`,
    ]),
    row([
      'LiteLLM p50 / direct p50, / bare p50',
      `${fast.litellm.ratioToDirectP50} ×, ${fast.litellm.ratioToBareP50} ×`,
      `${slow.litellm.ratioToDirectP50} ×, ${slow.litellm.ratioToBareP50} ×`,
    ]),
    row([
      `CPU per call, ms (worker process + LiteLLM proxy): ${LANE_NAMES.litellm}`,
      `${cpu(fast).worker} + ${cpu(fast).server}`,
      `${cpu(slow).worker} + ${cpu(slow).server}`,
    ]),
    row([
      'CPU per call / bare: LiteLLM',
      `${fast.litellm.cpuRatioToBare} ×`,
      `${slow.litellm.cpuRatioToBare} ×`,
    ]),
  ];
}

/** The peer lane's rows of the measurement table: its calls/s beside bare and direct, and the proxy's RSS. */
function litellmSideBySideRows(results: BenchResults): string[] {
  const peer = results.litellm;
  const ratio = results.side_by_side.ratio.litellm;
  const level = results.side_by_side.levels.find((each) => each.variant === 'litellm');
  if (!peer || 'skipped' in peer || !ratio || !level) return [];
  const concurrent = `${results.side_by_side.concurrency} concurrent`;
  return [
    row([
      `LiteLLM calls/s / bare workflows/s, / direct calls/s (${concurrent})`,
      `${ratio.toBare} ×, ${ratio.toDirect} ×`,
    ]),
    row([
      `LiteLLM proxy process at ${concurrent}`,
      `RSS ${level.peakRssMb} MB (${peer.rss_mb_idle} MB after start); CPU per call ${level.cpuPerCallMs?.proxy} ms ` +
        `(+ ${level.cpuPerCallMs?.driver} ms in the calling process)`,
    ]),
  ];
}

/** The history profile as a Markdown table per call kind. */
export function renderProfile(results: BenchResults): string {
  const sections: string[] = [];
  for (const [name, profile] of Object.entries(results.profile)) {
    sections.push(
      `${name}: ${profile.calls} calls, client p50 ${profile.clientMs.p50} ms, engine span p50 ${profile.engineMs.p50} ms, ` +
        `outside the engine p50 ${profile.clientOutsideEngineP50Ms} ms, ${profile.eventsPerCall} events`,
      '',
      row(['segment', 'p50 ms', 'per call']),
      row(['---', '---:', '---:']),
      ...profile.segments.map((segment) => row([segment.between, segment.p50Ms, segment.perCall])),
      '',
    );
  }
  sections.push(
    row(['activity (worker-side execution)', 'p50 ms', 'p99 ms', 'n']),
    row(['---', '---:', '---:', '---:']),
  );
  for (const [label, summary] of Object.entries(results.activityTimings)) {
    sections.push(row([label, summary.p50, summary.p99, summary.n]));
  }
  return sections.join('\n');
}

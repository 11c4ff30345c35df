// The overload lane: does the router turn its own overload into provider failures? C routed calls fired at once
// against a provider that never fails, two worker processes and two clients; every failure that is not the
// budget's is one the router made itself. Run alone: `npx tsx bench/overload.ts [--quick]`.
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import {
  Breakers,
  Ledgers,
  RoutedCallError,
  SwitchyardClient,
  type BreakerState,
  type RoutingRecord,
} from 'switchyard';
import { startDevServer, startFakeProvider } from 'switchyard/testing';
import { entityTaskQueue } from 'switchyard/worker';
import { BENCH_MODELS, BENCH_REQUEST, benchConfig, MODE_PROVIDER, MODE_ROUTE } from './bench-config';
import { buildBundles } from './bundles';
import { startCpuAccount } from './cpu-account';
import { describeMachine } from './machine';
import { TUNED_SETUP } from './run';
import { summarize, type Summary } from './stats';
import { WorkerLink } from './worker-link';

/** Calls fired at once, level by level. */
const LEVELS = { full: [200, 1000], quick: [200] } as const;
/** The scope's limit holds this many calls' worst case: far fewer than are fired, so the budget must refuse. */
const FITS = 20;
/**
 * The healthy route of the 0 ms fake: two targets that always answer, the default breaker (opens after 3
 * counted failures) and the default heartbeat timeout (2 s).
 */
const ROUTE = MODE_ROUTE['0ms'];
const BREAKER_KEYS = [BENCH_MODELS.healthy, BENCH_MODELS.fallback].map((m) => `${MODE_PROVIDER['0ms']}/${m}`);
/** Healthy calls through each client before measuring, so neither worker is cold. */
const WARM_UP_CALLS = 4;
/** Settles are signals: how long to wait for the last ones before reading the ledger, in milliseconds. */
const SETTLE_WAIT_MS = 30_000;
/** An `over_budget` skip whose ledger never answered: the router's overload, not the limit (its own message). */
const LEDGER_UNANSWERED = 'budget ledger did not answer in time';

interface BreakerReading {
  readonly status: string;
  readonly consecutiveFailures: number;
  readonly countedFailures: number;
  readonly openings: number;
}

export interface OverloadLevel {
  readonly concurrency: number;
  readonly wallS: number;
  readonly answered: number;
  /** Failed calls by type (`RoutedCallError.type`, or the error's name when it is not one). */
  readonly failures: Record<string, number>;
  /** Failures the provider did not cause: every one except a `BudgetExceeded` the limit itself refused. */
  readonly notProviderCaused: number;
  /** `BudgetExceeded` calls with a skip whose ledger did not answer in time (counted in notProviderCaused). */
  readonly budgetLedgerUnanswered: number;
  /** Attempts by outcome and class from the records: `failed:<class>`, `skipped:<reason>`, `succeeded`. */
  readonly attempts: Record<string, number>;
  /** Calls whose record asked the same target again after `worker_lost`. */
  readonly callsWithWorkerLost: number;
  readonly answeredLatencyMs: Summary;
  /** Requests the fake provider received during the level. */
  readonly providerRequests: number;
  /** Per breaker key: state after the level; counted failures and openings during it. */
  readonly breakers: Record<string, BreakerReading>;
  readonly ledger: {
    readonly scope: string;
    /** The plan's bound of the call's first attempt: the limit is {@link FITS} of these. */
    readonly callBoundNanoUsd: number;
    readonly limitNanoUsd: number | null;
    readonly spentNanoUsd: number;
    /** Sum of every record's totalCostNanoUsd, answered and failed calls alike. */
    readonly recordsNanoUsd: number;
    readonly reservedNanoUsd: number;
    readonly openReservations: number;
  };
  readonly errorSamples: string[];
}

/** Each target's breaker as the breakers API reads it (closed and all zeros while no entity exists). */
async function readBreakers(breakers: Breakers): Promise<Record<string, BreakerState>> {
  const views = await Promise.all(BREAKER_KEYS.map((key) => breakers.get(key)));
  return Object.fromEntries(views.map((view) => [view.key, view.state]));
}

const bump = (counts: Record<string, number>, key: string) => (counts[key] = (counts[key] ?? 0) + 1);

/** Fires `concurrency` calls at once, alternating between the clients, and reads what each left behind. */
async function measureLevel(
  concurrency: number,
  clients: readonly SwitchyardClient[],
  breakers: Breakers,
  ledgers: Ledgers,
  fake: { readonly requests: readonly unknown[] },
  tag: string,
): Promise<OverloadLevel> {
  // The bound of the call's first attempt: what every call reserves before its request (both targets cost alike).
  const bound = clients[0]!.plan({ route: ROUTE, request: BENCH_REQUEST }).attempts[0]!.boundNanoUsd;
  const scope = `bench-overload-c${concurrency}-${tag}`;
  await ledgers.setLimit(scope, { limitUsd: (bound * FITS) / 1e9 });
  const before = await readBreakers(breakers);
  const requestsBefore = fake.requests.length;

  const records: RoutingRecord[] = [];
  const failures: Record<string, number> = {};
  const attempts: Record<string, number> = {};
  const latencies: number[] = [];
  const errorSamples: string[] = [];
  let notProviderCaused = 0;
  let budgetLedgerUnanswered = 0;
  const began = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, index) => {
      const start = performance.now();
      try {
        const { record } = await clients[index % clients.length]!.generate({
          route: ROUTE,
          request: BENCH_REQUEST,
          budget: scope,
        });
        latencies.push(performance.now() - start);
        records.push(record);
      } catch (error) {
        const type = error instanceof RoutedCallError ? error.type : (error as Error).name;
        bump(failures, type);
        if (error instanceof RoutedCallError && error.record) records.push(error.record);
        const unanswered =
          error instanceof RoutedCallError &&
          (error.record?.attempts ?? []).some((attempt) => attempt.message?.includes(LEDGER_UNANSWERED));
        if (unanswered) budgetLedgerUnanswered += 1;
        if (type !== 'BudgetExceeded' || unanswered) notProviderCaused += 1;
        if (type !== 'BudgetExceeded' && errorSamples.length < 10)
          errorSamples.push(`${type}: ${(error as Error).message.split('\n')[0]}`);
      }
    }),
  );
  const wallS = Math.round(performance.now() - began) / 1000;
  let callsWithWorkerLost = 0;
  for (const record of records) {
    for (const attempt of record.attempts)
      bump(
        attempts,
        attempt.outcome === 'succeeded'
          ? 'succeeded'
          : `${attempt.outcome}:${attempt.failureClass ?? attempt.skipReason}`,
      );
    if (record.attempts.some((attempt) => attempt.failureClass === 'worker_lost')) callsWithWorkerLost += 1;
  }

  let snapshot = await ledgers.get(scope);
  for (const until = Date.now() + SETTLE_WAIT_MS; snapshot?.openReservations.length && Date.now() < until; ) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    snapshot = await ledgers.get(scope);
  }
  const after = await readBreakers(breakers);
  const breakerDeltas = Object.fromEntries(
    Object.entries(after).map(([key, { status, consecutiveFailures, counts }]) => {
      const { countedFailures, openings } = before[key]!.counts;
      const counted = counts.countedFailures - countedFailures;
      return [
        key,
        { status, consecutiveFailures, countedFailures: counted, openings: counts.openings - openings },
      ];
    }),
  );
  return {
    concurrency,
    wallS,
    answered: latencies.length,
    failures,
    notProviderCaused,
    budgetLedgerUnanswered,
    attempts,
    callsWithWorkerLost,
    answeredLatencyMs: summarize(latencies),
    providerRequests: fake.requests.length - requestsBefore,
    breakers: breakerDeltas,
    ledger: {
      scope,
      callBoundNanoUsd: bound,
      limitNanoUsd: snapshot?.limitNanoUsd ?? null,
      spentNanoUsd: snapshot?.spentNanoUsd ?? 0,
      recordsNanoUsd: records.reduce((sum, record) => sum + record.totalCostNanoUsd, 0),
      reservedNanoUsd: snapshot?.reservedNanoUsd ?? 0,
      openReservations: snapshot?.openReservations.length ?? 0,
    },
    errorSamples,
  };
}

const listed = (counts: Record<string, number>) =>
  Object.entries(counts)
    .map(([key, value]) => `${key} ${value}`)
    .join(', ') || '0';

/** The lane's tables: one row per level, then the goals. */
export function renderOverload(levels: readonly OverloadLevel[]): string {
  const row = (cells: readonly (string | number)[]) => `| ${cells.join(' | ')} |`;
  const breakerCells = (level: OverloadLevel) =>
    Object.values(level.breakers)
      .map((reading) => `${reading.countedFailures}/${reading.openings}`)
      .join(', ');
  const lines = [
    '| calls at once | answered | failed by type | attempts | worker_lost / timeout | breaker counted / opens | spent / records (nano-USD) | reserved | wall s |',
    row(['---:', '---:', '---', '---', '---:', '---', '---', '---:', '---:']),
    ...levels.map((level) =>
      row([
        level.concurrency,
        level.answered,
        listed(level.failures),
        listed(level.attempts),
        `${level.attempts['failed:worker_lost'] ?? 0} / ${level.attempts['failed:timeout'] ?? 0}`,
        breakerCells(level),
        `${level.ledger.spentNanoUsd} / ${level.ledger.recordsNanoUsd}`,
        level.ledger.reservedNanoUsd,
        level.wallS,
      ]),
    ),
    '',
    row(['goal', 'measured', 'met']),
    row(['---', '---', '---']),
  ];
  for (const level of levels) {
    const { spentNanoUsd: spent, recordsNanoUsd: records, reservedNanoUsd: reserved } = level.ledger;
    const failed = Object.values(level.failures).reduce((sum, value) => sum + value, 0);
    const circuitOpen = level.failures.CircuitOpen ?? 0;
    const goal = (text: string, measured: string, met: boolean) =>
      lines.push(row([`${level.concurrency} at once: ${text}`, measured, met ? 'yes' : '**no**']));
    goal(
      '0 failures the provider did not cause',
      `${level.notProviderCaused} of ${failed}`,
      !level.notProviderCaused,
    );
    goal('0 CircuitOpen', String(circuitOpen), circuitOpen === 0);
    goal('ledger spent = sum of the records', `${spent} vs ${records}`, spent === records);
    goal('0 left reserved', `${reserved} (${level.ledger.openReservations} open)`, reserved === 0);
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false } } });
  const levels = values.quick ? LEVELS.quick : LEVELS.full;
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const log = (text: string) => process.stderr.write(`[bench:overload] ${text}\n`);
  const startedAt = new Date();
  const machine = describeMachine();
  const cpu = startCpuAccount();
  log('bundling the workflows');
  const bundles = await buildBundles();
  const stack: (() => Promise<unknown>)[] = [async () => bundles.remove()];
  try {
    log('starting the dev server, the fake provider and two worker processes');
    const server = await startDevServer({ headless: true, dynamicConfig: TUNED_SETUP.dynamicConfig });
    stack.push(() => server.stop());
    const fake = await startFakeProvider({ latencyMs: 0 });
    stack.push(() => fake.close());
    const fakeUrls = { '0ms': fake.openaiBaseURL, '50ms': fake.openaiBaseURL };
    const config = benchConfig(fakeUrls);
    const taskQueue = `bench-overload-${randomUUID().slice(0, 8)}`;
    const common = { address: server.address, fakeUrls, settings: TUNED_SETUP.worker, taskQueue, bundles };
    // Two plain Switchyard workers on one queue: calls, attempts, breakers and ledgers land on either.
    const workers = await Promise.all([0, 1].map(() => WorkerLink.start({ ...common, role: 'worker' })));
    stack.push(...workers.map((worker) => () => worker.stop()));
    // Two clients, each on its own connection, as two application processes would call.
    const connections = await Promise.all([0, 1].map(() => Connection.connect({ address: server.address })));
    stack.push(...connections.map((connection) => () => connection.close()));
    const clients = connections.map(
      (connection) => new SwitchyardClient({ client: new Client({ connection }), taskQueue, config }),
    );
    const reader = new Client({ connection: connections[0]! });
    const breakers = new Breakers(reader);
    const ledgers = new Ledgers({ client: reader, taskQueue: entityTaskQueue(taskQueue) });
    for (let call = 0; call < WARM_UP_CALLS; call += 1)
      await Promise.all(clients.map((client) => client.generate({ route: ROUTE, request: BENCH_REQUEST })));

    const results: OverloadLevel[] = [];
    const tag = startedAt.getTime().toString(36);
    for (const concurrency of levels) {
      log(`${concurrency} calls at once, a scope that fits ${FITS}`);
      const level = await measureLevel(concurrency, clients, breakers, ledgers, fake, tag);
      log(`  ${level.answered} answered, failures: ${listed(level.failures)} in ${level.wallS} s`);
      results.push(level);
    }
    const cpuShare = cpu.read([server.process.pid!, ...workers.map((worker) => worker.pid)]);
    const outFile = path.join(
      __dirname,
      'results',
      values.quick ? 'overload-quick.tmp.json' : 'overload.json',
    );
    mkdirSync(path.dirname(outFile), { recursive: true });
    const durationS = Math.round((Date.now() - startedAt.getTime()) / 1000);
    const output = {
      quick: values.quick,
      startedAt,
      durationS,
      machine,
      cpu: cpuShare,
      route: ROUTE,
      fits: FITS,
      levels: results,
    };
    writeFileSync(outFile, `${JSON.stringify(output, null, 2)}\n`);
    process.stdout.write(`${renderOverload(results)}\n`);
    log(`wrote ${path.relative(process.cwd(), outFile)}`);
  } finally {
    for (const step of stack.reverse()) await step().catch(() => undefined);
  }
}

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(
        `bench:overload failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exit(1);
    },
  );
}

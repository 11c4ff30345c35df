// `npm run bench` flags and the size of each measurement in full and quick runs. Bench side.
import path from 'node:path';

export interface BenchSizes {
  /** Calls per variant and mode before measuring (JIT, connections, entities). */
  readonly warmupCalls: number;
  /** Interleaved rounds; each runs every variant in every mode. */
  readonly rounds: number;
  /** Sequential samples per variant, mode and round… */
  readonly samplesPerRound: number;
  /** …or fewer, when they take longer than this, in milliseconds (keeps a slow machine's run bounded). */
  readonly batchMaxMs: number;
  /** Closed-loop concurrency levels of the throughput bench. */
  readonly throughputConcurrency: readonly number[];
  /** Duration of each throughput level, in milliseconds. */
  readonly throughputDurationMs: number;
  /** Concurrent callers and duration of the breaker outage bench. */
  readonly outageConcurrency: number;
  readonly outageDurationMs: number;
  /** How long the calls run first, to open the breaker, before the outage is measured. */
  readonly outageOpeningMs: number;
  /** Grants each ledger scope allows, per caller count; callers stop at the limit or after the time cap. */
  readonly ledgerGrants: Readonly<Record<'c10' | 'c100', number>>;
  readonly ledgerMaxDurationMs: number;
  /** Sequential failover calls, and the most time they may take in milliseconds. */
  readonly failoverCalls: number;
  readonly failoverMaxMs: number;
  /** Calls cancelled mid-request by the cancellation bench, and how many run at once. */
  readonly cancellationCalls: number;
  readonly cancellationConcurrency: number;
  /** Routed and bare calls whose histories are broken down in the profile. */
  readonly profileCalls: number;
  /** Worker processes SIGKILLed mid-attempt by the kill-resume bench (one routed call each). */
  readonly killResumeKills: number;
}

export const FULL_SIZES: BenchSizes = {
  warmupCalls: 20,
  rounds: 8,
  samplesPerRound: 25,
  batchMaxMs: 3_000,
  throughputConcurrency: [5, 20, 45],
  throughputDurationMs: 10_000,
  outageConcurrency: 100,
  outageDurationMs: 15_000,
  outageOpeningMs: 2_000,
  ledgerGrants: { c10: 2_000, c100: 4_000 },
  ledgerMaxDurationMs: 20_000,
  failoverCalls: 200,
  failoverMaxMs: 30_000,
  cancellationCalls: 40,
  cancellationConcurrency: 10,
  profileCalls: 25,
  killResumeKills: 20,
};

export const QUICK_SIZES: BenchSizes = {
  warmupCalls: 5,
  rounds: 2,
  samplesPerRound: 8,
  batchMaxMs: 1_000,
  throughputConcurrency: [20, 45],
  throughputDurationMs: 2_000,
  // A smoke run: fewer callers than the measurement's 100, so their drain stays short on a slow machine.
  outageConcurrency: 20,
  outageDurationMs: 6_000,
  outageOpeningMs: 1_000,
  ledgerGrants: { c10: 150, c100: 300 },
  ledgerMaxDurationMs: 5_000,
  failoverCalls: 15,
  failoverMaxMs: 4_000,
  cancellationCalls: 10,
  cancellationConcurrency: 5,
  profileCalls: 8,
  killResumeKills: 3,
};

export interface BenchOptions {
  readonly quick: boolean;
  /** Run the tuning matrix instead of the standard bench. */
  readonly tune: boolean;
  readonly sizes: BenchSizes;
  /** Where the JSON goes. @default bench/results/latest.json (quick: latest-quick.tmp.json) */
  readonly outFile: string;
}

const USAGE = `usage: npm run bench [-- --quick] [-- --tune] [-- --out <file.json>]
  --quick   a smoke run of a minute or so, small samples (its JSON goes to bench/results/latest-quick.tmp.json)
  --tune    run the tuning matrix (engine settings on and off) and write bench/results/tuning.json
  --out     write the JSON to this file instead`;

export function parseBenchArguments(argv: readonly string[]): BenchOptions {
  let quick = false;
  let tune = false;
  let outFile: string | undefined;
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index];
    if (argument === '--quick') quick = true;
    else if (argument === '--tune') tune = true;
    else if (argument === '--out' && argv[index + 1]) outFile = argv[++index];
    else if (argument === '--help' || argument === '-h') {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    } else {
      process.stderr.write(`unknown argument ${argument}\n${USAGE}\n`);
      process.exit(2);
    }
  }
  const results = path.join(__dirname, 'results');
  const defaultName = tune ? 'tuning.json' : quick ? 'latest-quick.tmp.json' : 'latest.json';
  return {
    quick,
    tune,
    sizes: quick ? QUICK_SIZES : FULL_SIZES,
    outFile: path.resolve(outFile ?? path.join(results, defaultName)),
  };
}

// Ledger entity load: reservations per second and reserve latency on one scope at 10 and 100 callers.
import type { Ledgers } from 'switchyard';
import { round, summarize, type Summary } from './stats';
import type { WorkerLink } from './worker-link';

/** Each reservation's amount: 0.001 USD, so limits in USD stay exact. */
const AMOUNT_NANO_USD = 1_000_000;
const NANO_PER_USD = 1e9;

export interface LedgerLevelResult {
  readonly callers: number;
  readonly reservesPerS: number;
  /** Reserve latency (granted and refused), in milliseconds. */
  readonly latency: Summary;
  readonly p99Ms: number;
  /** Reserves that threw instead of answering (e.g. RESOURCE_EXHAUSTED after the batcher's retries). */
  readonly errors: number;
  /** Grants beyond what the limit allows. */
  readonly overGrant: number;
  /** Grants the limit allowed but nobody got (a lost or stuck reservation). */
  readonly lost: number;
  readonly granted: number;
  readonly allowed: number;
  readonly spentMatches: boolean;
  readonly openReservationsAtEnd: number;
  readonly timedOut: boolean;
  readonly errorSamples: string[];
}

/**
 * `callers` callers share one fresh scope whose limit allows exactly `grants` reservations; each grant is
 * settled at its full amount, so the ledger must grant exactly `grants`, and the snapshot must agree.
 */
export async function measureLedger(
  link: WorkerLink,
  ledgers: Ledgers,
  options: {
    readonly callers: number;
    readonly grants: number;
    readonly maxDurationMs: number;
    readonly tag: string;
  },
): Promise<LedgerLevelResult> {
  const scope = `bench-ledger-c${options.callers}-${options.tag}`;
  await ledgers.setLimit(scope, { limitUsd: (AMOUNT_NANO_USD * options.grants) / NANO_PER_USD });
  const result = await link.send({
    kind: 'ledger',
    scope,
    concurrency: options.callers,
    amountNanoUsd: AMOUNT_NANO_USD,
    maxDurationMs: options.maxDurationMs,
  });
  // Settles are signals: give the last ones a moment to land before reading the snapshot.
  let snapshot = await ledgers.get(scope);
  for (let tries = 0; tries < 50 && snapshot && snapshot.openReservations.length > 0; tries += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    snapshot = await ledgers.get(scope);
  }
  const latency = summarize(result.reserveLatenciesMs);
  const exhausted = result.refused > 0;
  return {
    callers: options.callers,
    reservesPerS: round(result.granted / (result.grantWindowMs / 1000)),
    latency,
    p99Ms: latency.p99,
    errors: result.errors.length,
    overGrant: Math.max(0, result.granted - options.grants),
    lost: exhausted ? Math.max(0, options.grants - result.granted) : 0,
    granted: result.granted,
    allowed: options.grants,
    spentMatches: snapshot?.spentNanoUsd === result.granted * AMOUNT_NANO_USD,
    openReservationsAtEnd: snapshot?.openReservations.length ?? -1,
    timedOut: result.timedOut,
    errorSamples: result.errors.slice(0, 5),
  };
}

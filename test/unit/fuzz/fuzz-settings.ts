// Fuzz run settings shared by the bad-input properties: a fixed seed (SWITCHYARD_FUZZ_SEED overrides) and counters.
import type { Parameters } from 'fast-check';

/** Seed used when SWITCHYARD_FUZZ_SEED is not set, so a failure reproduces run after run. */
export const DEFAULT_FUZZ_SEED = 20_261_129;

/** The seed of this run: SWITCHYARD_FUZZ_SEED (an integer) when set, else {@link DEFAULT_FUZZ_SEED}. */
export function fuzzSeed(): number {
  const text = process.env.SWITCHYARD_FUZZ_SEED;
  if (text === undefined || text.trim() === '') return DEFAULT_FUZZ_SEED;
  const seed = Number(text);
  if (!Number.isSafeInteger(seed)) throw new Error(`SWITCHYARD_FUZZ_SEED must be an integer, got "${text}"`);
  return seed;
}

/**
 * fast-check parameters for one property: the run's seed, `numRuns` inputs, and no shrinking time limit, so a
 * failure is reported with its smallest counterexample and the seed and path that replay it.
 */
export function fuzzParameters<Input>(numRuns: number): Parameters<Input> {
  return { seed: fuzzSeed(), numRuns, verbose: 1 };
}

/** Inputs generated per area, for the summary line. */
export const fuzzCounts = { config: 0, request: 0, cli: 0 };

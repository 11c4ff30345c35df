// The error for a Temporal front end the CLI cannot reach, naming where it looked. Node side.
import { TemporalUnreachableError } from './cli-errors';
import type { GlobalOptions } from './global-options';

/** Where the CLI looked for Temporal, in words: the explicit flag, the variable, or the default. */
export function describeAddress(globals: GlobalOptions): string {
  if (globals.address) return globals.address;
  const fromEnvironment = process.env.TEMPORAL_ADDRESS;
  if (fromEnvironment) return `${fromEnvironment} (from TEMPORAL_ADDRESS)`;
  return 'localhost:7233 (the default; set --address or TEMPORAL_ADDRESS)';
}

export function temporalUnreachable(globals: GlobalOptions, cause: unknown): TemporalUnreachableError {
  const address = describeAddress(globals);
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new TemporalUnreachableError(`cannot reach Temporal at ${address}: ${reason}`, address, cause);
}

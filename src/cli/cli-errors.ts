// Errors the CLI raises itself: bad arguments and an unreachable Temporal service. Node side.
import type { GlobalOptions } from './global-options';

/** A command line the CLI cannot act on; the message names the flag or argument at fault. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Connecting to the Temporal front end failed; `address` is where the CLI looked. */
export class TemporalUnreachableError extends Error {
  override readonly name = 'TemporalUnreachableError';
  constructor(
    message: string,
    readonly address: string,
    override readonly cause: unknown,
  ) {
    super(message);
  }
}

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

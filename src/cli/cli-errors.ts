// Errors the CLI raises itself: bad arguments and an unreachable Temporal service. Node side.
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

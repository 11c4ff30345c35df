// Errors the CLI raises itself: bad arguments and an unreachable Temporal service. Node side.
import { SwitchyardError } from '../config/branded-error';
/** A command line the CLI cannot act on; the message names the flag or argument at fault. */
export class UsageError extends SwitchyardError {
  static override readonly brand: string = 'switchyard.UsageError';

  override readonly name = 'UsageError';
}

/** Connecting to the Temporal front end failed; `address` is where the CLI looked. */
export class TemporalUnreachableError extends SwitchyardError {
  static override readonly brand: string = 'switchyard.TemporalUnreachableError';

  override readonly name = 'TemporalUnreachableError';
  constructor(
    message: string,
    readonly address: string,
    override readonly cause: unknown,
  ) {
    super(message);
  }
}

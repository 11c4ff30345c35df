// Errors the CLI raises itself: bad arguments and an unreachable Temporal service. Node side.
import { brandError, hasErrorBrand } from '../config/branded-error';
/** A command line the CLI cannot act on; the message names the flag or argument at fault. */
export class UsageError extends Error {
  static {
    brandError(this, 'UsageError');
  }

  /** Whether `value` is a {@link UsageError}, made by this copy of Switchyard or by another one loaded beside it. */
  static isInstance(value: unknown): value is UsageError {
    return hasErrorBrand(value, 'UsageError');
  }

  override readonly name = 'UsageError';
}

/** Connecting to the Temporal front end failed; `address` is where the CLI looked. */
export class TemporalUnreachableError extends Error {
  static {
    brandError(this, 'TemporalUnreachableError');
  }

  /** Whether `value` is a {@link TemporalUnreachableError}, made by this copy of Switchyard or by another one loaded beside it. */
  static isInstance(value: unknown): value is TemporalUnreachableError {
    return hasErrorBrand(value, 'TemporalUnreachableError');
  }

  override readonly name = 'TemporalUnreachableError';
  constructor(
    message: string,
    readonly address: string,
    override readonly cause: unknown,
  ) {
    super(message);
  }
}

// The error for a codec setting in the environment that cannot be used (a key, the payload store). Node side.
import { brandError, hasErrorBrand } from '../config/branded-error';

/**
 * A codec-related environment variable holds something unusable. The message names the variable but never its
 * value (a key variable's value is, or is close to, key material). Callers report it as a usage error.
 */
export class CodecSettingsError extends Error {
  static {
    brandError(this, 'CodecSettingsError');
  }

  /** Whether `value` is a {@link CodecSettingsError}, made by this copy of Switchyard or by another one loaded beside it. */
  static isInstance(value: unknown): value is CodecSettingsError {
    return hasErrorBrand(value, 'CodecSettingsError');
  }

  override readonly name: string = 'CodecSettingsError';
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`${variable} ${problem}`);
  }
}

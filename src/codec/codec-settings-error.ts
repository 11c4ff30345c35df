// The error for a codec setting in the environment that cannot be used (a key, the payload store). Node side.
import { SwitchyardError } from '../config/branded-error';

/**
 * A codec-related environment variable holds something unusable. The message names the variable but never its
 * value (a key variable's value is, or is close to, key material). Callers report it as a usage error.
 */
export class CodecSettingsError extends SwitchyardError {
  static override readonly brand: string = 'switchyard.CodecSettingsError';

  override readonly name: string = 'CodecSettingsError';
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`${variable} ${problem}`);
  }
}

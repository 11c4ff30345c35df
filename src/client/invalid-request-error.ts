// InvalidRequestError: a request refused before any workflow started. Node side; depends on nothing.
import { SwitchyardError } from '../config/branded-error';

/** A request refused before any workflow started; `field` is the path of the first bad field. */
export class InvalidRequestError extends SwitchyardError {
  static override readonly brand: string = 'switchyard.InvalidRequestError';

  override readonly name = 'InvalidRequestError';
  constructor(
    message: string,
    readonly field: string,
  ) {
    super(message);
  }
}

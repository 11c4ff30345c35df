// InvalidRequestError: a request refused before any workflow started. Node side; depends on nothing.
import { brandError, hasErrorBrand } from '../config/branded-error';

/** A request refused before any workflow started; `field` is the path of the first bad field. */
export class InvalidRequestError extends Error {
  static {
    brandError(this, 'InvalidRequestError');
  }

  /** Whether `value` is a {@link InvalidRequestError}, made by this copy of Switchyard or by another one loaded beside it. */
  static isInstance(value: unknown): value is InvalidRequestError {
    return hasErrorBrand(value, 'InvalidRequestError');
  }

  override readonly name = 'InvalidRequestError';
  constructor(
    message: string,
    readonly field: string,
  ) {
    super(message);
  }
}

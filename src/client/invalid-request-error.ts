// InvalidRequestError: a request refused before any workflow started. Node side; depends on nothing.

/** A request refused before any workflow started; `field` is the path of the first bad field. */
export class InvalidRequestError extends Error {
  override readonly name = 'InvalidRequestError';
  constructor(
    message: string,
    readonly field: string,
  ) {
    super(message);
  }
}

// The failure converter used with payload encryption: messages and stack traces ride in an encoded payload. Both sides.
import { DefaultFailureConverter } from '@temporalio/common';

/**
 * Moves each failure's message and stack trace into `encodedAttributes`, a payload the codec encrypts, leaving
 * "Encoded failure" in history: a provider's error message may quote the request. Loaded by path
 * (`DataConverter.failureConverterPath`), so the worker's activities and the bundled workflows share it; any
 * failure converter decodes such failures, so readers need only the codec.
 */
export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });

// How large a request body the gateway reads: the default from the payload store, and the 413 that names it. Node side.
import type { CallInputSizeRules } from '../client/call-input-size';
import { PAYLOAD_STORE_VARIABLES } from '../codec/payload-store-settings';
import { GatewayError, GatewayErrorKind } from './gateway-error';

/**
 * With a payload store, what the providers take in one request: Anthropic accepts 32 MB per Messages request and
 * OpenAI 50 MB of images per request (20 MB each), so 32 MiB lets a request with images and PDFs through that
 * either could serve. In bytes.
 */
export const STORED_BODY_LIMIT_BYTES = 32 * 1024 * 1024;

/** The body limit flag of `switchyard serve`, named in the 413's remedy. */
const BODY_LIMIT_FLAG = '--body-limit-bytes';

export interface BodyLimit {
  /** Largest request body read, in bytes. */
  readonly bytes: number;
  /** Whether large call inputs go to a payload store (so the limit is the providers', not Temporal's). */
  readonly storeConfigured: boolean;
}

/**
 * The body limit: `explicit` if given; else, with a payload store, {@link STORED_BODY_LIMIT_BYTES}; else what one
 * Temporal event can carry (`limitBytes`, 2 MiB by default). Without a store a call's input must fit that event,
 * and the input is about as large as the body (a data URL becomes base64 and a media type; field names change),
 * so a larger body would only be read and parsed to be refused by the client's size check.
 */
export function bodyLimitOf(rules: CallInputSizeRules, explicit: number | undefined): BodyLimit {
  const bytes = explicit ?? (rules.storeConfigured ? STORED_BODY_LIMIT_BYTES : rules.limitBytes);
  return { bytes, storeConfigured: rules.storeConfigured };
}

/** The 413 for a body over the limit: the limit in bytes, and how to raise it. */
export function bodyTooLarge(limit: BodyLimit): GatewayError {
  const remedy = limit.storeConfigured
    ? `Raise it with ${BODY_LIMIT_FLAG} (the providers take at most about 32 MB per request)`
    : 'Without a payload store a call must fit in one Temporal event. To accept larger requests (images, PDFs), ' +
      `turn the payload store on: set ${PAYLOAD_STORE_VARIABLES.directory} for the gateway and the workers to ` +
      `a directory they share (docs/operations.md, "Large payloads"); the gateway then takes up to ` +
      `${STORED_BODY_LIMIT_BYTES} bytes (${BODY_LIMIT_FLAG} to change it)`;
  return new GatewayError(
    `the request body is over the gateway's limit of ${limit.bytes} bytes. ${remedy}`,
    GatewayErrorKind.requestTooLarge,
    'request_too_large',
  );
}

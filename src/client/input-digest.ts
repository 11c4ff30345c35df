// A digest of a routed call's whole input, kept in its memo to tell a reused idempotency key apart. Node side.
import { createHash } from 'node:crypto';
import { canonicalJson } from '../config/canonical-json';
import type { RoutedCallInput } from '../config/routed-call-input';

/** Memo key of the digest: a hash of the validated input, never the input (nor the prompt) itself. */
export const INPUT_DIGEST_MEMO = 'switchyardInputDigest';

/**
 * SHA-256 (hex) of what the validated input asks for, defaults applied: two calls digest the same exactly when
 * they ask the same, so an omitted default and the default written out are one call. How the answer is
 * delivered (`stream`, a gateway's `relay` for one request) is left out: asking again for a streamed answer
 * with the same key gets the stored answer, streamed or not.
 */
export function callInputDigest(input: RoutedCallInput): string {
  const { stream: _stream, relay: _relay, ...asked } = input;
  return createHash('sha256').update(canonicalJson(asked)).digest('hex');
}

// A digest of a routed call's whole input, kept in its memo to tell a reused idempotency key apart. Node side.
import { createHash } from 'node:crypto';
import type { RoutedCallInput } from '../config/routed-call-input';

/** Memo key of the digest: a hash of the validated input, never the input (nor the prompt) itself. */
export const INPUT_DIGEST_MEMO = 'switchyardInputDigest';

/** JSON with every object's keys in order, so the same input written in another key order digests the same. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, child]) => child !== undefined)
      .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
    return `{${entries.map(([key, child]) => `${JSON.stringify(key)}:${canonicalJson(child)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

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

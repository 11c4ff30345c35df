// Signatures the fake provider puts on the reasoning it writes, and checks on reasoning sent back. Node side (node:crypto).
import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * A fixed secret: signatures must stay valid across fake restarts (a test may replay an answer recorded by
 * another fake), and nothing real is protected by them. What matters is that only the fake's own signature on
 * exactly the text it wrote passes, as only Anthropic's own passes at Anthropic.
 */
const SECRET = 'switchyard-fake-provider-thinking-v1';

/** Marks the fake's signatures, so a reader of a recorded body can tell them from real ones. */
const PREFIX = 'fakesig1.';

function digest(text: string): Buffer {
  return createHmac('sha256', SECRET).update(text, 'utf8').digest();
}

/** The signature of a reasoning text: HMAC-SHA256 under the fixed secret, base64url, with a prefix. */
export function signThinking(text: string): string {
  return `${PREFIX}${digest(text).toString('base64url')}`;
}

/** True only for the fake's own signature of exactly `text` (compared whole: base64 decoding is too lenient). */
export function verifyThinking(text: string, signature: string): boolean {
  const given = Buffer.from(signature, 'utf8');
  const expected = Buffer.from(signThinking(text), 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

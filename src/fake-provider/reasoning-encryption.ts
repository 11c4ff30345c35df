// The `encrypted_content` the fake's Responses wire puts on its reasoning items, and its check on content sent back.
// Node side (node:crypto); test/bench.
import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * A fixed secret, as in `thinking-signature.ts`: content must stay valid across fake restarts, and nothing real
 * is protected. What matters is that only content this fake wrote, unchanged, passes, as only OpenAI's own
 * passes at OpenAI (it cannot decrypt anyone else's).
 */
const SECRET = 'switchyard-fake-provider-reasoning-v1';

/** Marks the fake's content. Like OpenAI's (Fernet tokens, `gAAAA…`), it never holds a ':'. */
const PREFIX = 'fakeenc1.';

/** What the content carries: the reasoning item's id and its whole reasoning text. */
export interface DecryptedReasoning {
  readonly id: string;
  readonly text: string;
}

function mac(payload: string): string {
  return createHmac('sha256', SECRET).update(payload, 'utf8').digest('base64url');
}

/** `fakeenc1.<base64url JSON {id, text}>.<base64url HMAC-SHA256 of that>`: readable, but not forgeable. */
export function encryptReasoning(reasoning: DecryptedReasoning): string {
  const payload = Buffer.from(JSON.stringify({ id: reasoning.id, text: reasoning.text }), 'utf8').toString(
    'base64url',
  );
  return `${PREFIX}${payload}.${mac(payload)}`;
}

/** The reasoning inside content this fake wrote, or undefined for anything foreign or altered. */
export function decryptReasoning(content: string): DecryptedReasoning | undefined {
  if (!content.startsWith(PREFIX)) return undefined;
  const [payload, given, ...rest] = content.slice(PREFIX.length).split('.');
  if (payload === undefined || given === undefined || rest.length > 0) return undefined;
  const expected = Buffer.from(mac(payload), 'utf8');
  const actual = Buffer.from(given, 'utf8');
  if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return undefined;
  try {
    const value = JSON.parse(
      Buffer.from(payload, 'base64url').toString('utf8'),
    ) as Partial<DecryptedReasoning>;
    return typeof value.id === 'string' && typeof value.text === 'string'
      ? { id: value.id, text: value.text }
      : undefined;
  } catch {
    return undefined;
  }
}

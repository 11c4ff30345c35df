// Gateway keys: their format, how one is made and how a presented one is checked against its stored hash. Node side.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { KeyLimitsSchema } from './key-policy';

/** Every route of the config, present and future. */
export const ALL_ROUTES = '*';

/**
 * What the store keeps of one key: its public id, the SHA-256 of the whole key, and what it may do. The key
 * itself is shown once, when it is made, and kept nowhere. A plain hash suffices (no slow KDF): the secret part
 * is 256 random bits, not a password, so there is nothing to guess.
 */
export const StoredKeySchema = z.object({
  /** Public id, the `<id>` in `sy_<id>_<secret>`: shown in lists and labels, never a secret. */
  id: z.string().regex(/^[0-9a-f]{12}$/),
  /** Hex SHA-256 of the whole key text. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** Route names the key may call, or `["*"]` for every route. */
  routes: z.array(z.string().min(1)).min(1),
  /** Budget scope every call made with the key is charged to. @default none */
  budget: z.string().min(1).max(200).optional(),
  /** Free text for people (who holds it). */
  label: z.string().max(200).optional(),
  /** The most output tokens one call with the key may ask for (see `key-policy.ts`). @default no ceiling */
  maxOutputTokens: KeyLimitsSchema.shape.maxOutputTokens,
  /** ISO time it was made. */
  createdAt: z.string(),
  /** ISO time it was revoked; a revoked key is refused. */
  revokedAt: z.string().optional(),
});
export type StoredKey = z.infer<typeof StoredKeySchema>;

const KEY_PATTERN = /^sy_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/;

function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** A new key and what to store of it. */
export function makeGatewayKey(
  scope: Pick<StoredKey, 'routes' | 'budget' | 'label' | 'maxOutputTokens'>,
  now: Date = new Date(),
): { readonly key: string; readonly stored: StoredKey } {
  const id = randomBytes(6).toString('hex');
  const key = `sy_${id}_${randomBytes(32).toString('base64url')}`;
  return {
    key,
    stored: StoredKeySchema.parse({
      id,
      sha256: sha256Hex(key),
      routes: scope.routes,
      ...(scope.budget !== undefined ? { budget: scope.budget } : {}),
      ...(scope.label !== undefined ? { label: scope.label } : {}),
      ...(scope.maxOutputTokens !== undefined ? { maxOutputTokens: scope.maxOutputTokens } : {}),
      createdAt: now.toISOString(),
    }),
  };
}

/** The public id of a presented key, or undefined when it is not shaped like one. */
export function keyIdOf(presented: string): string | undefined {
  return KEY_PATTERN.exec(presented)?.[1];
}

/** Whether `presented` is the key `stored` was made from (constant-time on the hash). */
export function keyMatches(presented: string, stored: StoredKey): boolean {
  const expected = Buffer.from(stored.sha256, 'hex');
  const actual = Buffer.from(sha256Hex(presented), 'hex');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** Whether the key may call `route`. */
export function keyAllowsRoute(stored: StoredKey, route: string): boolean {
  return stored.routes.includes(ALL_ROUTES) || stored.routes.includes(route);
}

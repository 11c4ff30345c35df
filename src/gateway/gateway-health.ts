// The key file's part of the gateway's `/healthz` answer: whether the keys in force are the file's. Node side.
import type { KeysFileHealth, KeyStore } from './key-store';

/** A `/healthz` body as the server builds it: `ok`, and a field per check. */
export type HealthBody = { ok: boolean } & Record<string, unknown>;

/**
 * Adds `keys` (status, and what is wrong with the file while it is broken) to a `/healthz` body; turns `ok`
 * false once every key is refused, so a balancer takes a gateway that can serve no one out of rotation. The
 * body needs no key to read: it holds no path and no text of the file.
 */
export function addKeysHealth(health: HealthBody, keys: KeyStore): KeysFileHealth {
  const keysHealth = keys.health();
  health.keys = keysHealth;
  if (keysHealth.status === 'unreadable') health.ok = false;
  return keysHealth;
}

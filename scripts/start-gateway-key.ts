// `npm start`'s gateway key: one key for every route, made on the first start and kept for the next ones. Dev only.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { KeyStore } from '../src/gateway/key-store';

/**
 * The local stack's key. A real deployment shows a key once and keeps only its hash; the dev stack also keeps the
 * key text in `keyFile` (mode 0600, under the git-ignored .temporal/) so that every start can print it.
 */
export function devGatewayKey(keys: KeyStore, keyFile: string): string {
  if (existsSync(keyFile)) {
    const kept = readFileSync(keyFile, 'utf8').trim();
    if (keys.verify(kept)) return kept;
  }
  const { key } = keys.create({ routes: ['*'], label: 'npm start' });
  writeFileSync(keyFile, `${key}\n`, { mode: 0o600 });
  return key;
}

// Gateway keys: shown once, stored as hashes, checked in constant time, revoked, shared by every store on a file.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { keyAllowsRoute } from '../../../src/gateway/gateway-key';
import { KeyStore } from '../../../src/gateway/key-store';

let directory: string;
let file: string;
beforeEach(() => {
  directory = mkdtempSync(path.join(tmpdir(), 'switchyard-keys-test-'));
  file = path.join(directory, 'keys.json');
});
afterEach(() => rmSync(directory, { recursive: true, force: true }));

test('a made key verifies; the file holds its hash and scope, never the key', () => {
  const store = new KeyStore({ file, recheckMs: 0 });
  const { key, stored } = store.create({ routes: ['support'], budget: 'team-a', label: 'bot' });
  expect(key).toMatch(/^sy_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/);
  expect(store.verify(key)).toMatchObject({ id: stored.id, routes: ['support'], budget: 'team-a' });
  const text = readFileSync(file, 'utf8');
  expect(text).not.toContain(key.slice(16));
  expect(text).toContain(stored.sha256);
});

test('a wrong secret, a malformed key and a revoked key are refused', () => {
  const store = new KeyStore({ file, recheckMs: 0 });
  const { key, stored } = store.create({ routes: ['*'] });
  const tampered = key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A');
  expect(store.verify(tampered)).toBeUndefined();
  expect(store.verify('sk-not-ours')).toBeUndefined();
  expect(store.verify('')).toBeUndefined();
  expect(store.revoke(stored.id)).toBe(true);
  expect(store.verify(key)).toBeUndefined();
  expect(store.revoke('000000000000')).toBe(false);
});

test('another store on the same file (another gateway) sees new and revoked keys', () => {
  const gateway = new KeyStore({ file, recheckMs: 0 });
  const cli = new KeyStore({ file, recheckMs: 0 });
  const { key, stored } = cli.create({ routes: ['support'] });
  expect(gateway.verify(key)?.id).toBe(stored.id);
  cli.revoke(stored.id);
  expect(gateway.verify(key)).toBeUndefined();
});

test('a file broken by hand keeps the keys last read; a bad file is named when listed', () => {
  const store = new KeyStore({ file, recheckMs: 0 });
  const { key } = store.create({ routes: ['support'] });
  expect(store.verify(key)).toBeDefined();
  writeFileSync(file, '{"version": 1, "keys": [');
  expect(store.verify(key)).toBeDefined();
  expect(() => store.list()).toThrow(/keys\.json/);
});

test('routes: a named route, or every route with "*"', () => {
  const base = { id: 'a'.repeat(12), sha256: 'b'.repeat(64), createdAt: '' };
  expect(keyAllowsRoute({ ...base, routes: ['support'] }, 'support')).toBe(true);
  expect(keyAllowsRoute({ ...base, routes: ['support'] }, 'batch')).toBe(false);
  expect(keyAllowsRoute({ ...base, routes: ['*'] }, 'batch')).toBe(true);
});

// Gateway keys: shown once, stored hashed and owner-only under a lock, revoked, shared by every store; a broken file said loudly.
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GatewayError } from '../../../src/gateway/gateway-error';
import { keyAllowsRoute, keyIdOf } from '../../../src/gateway/gateway-key';
import { KeyChangeError, KeyStore } from '../../../src/gateway/key-store';

let directory: string;
let file: string;
beforeEach(() => {
  directory = mkdtempSync(path.join(tmpdir(), 'switchyard-keys-test-'));
  file = path.join(directory, 'keys.json');
});
afterEach(() => rmSync(directory, { recursive: true, force: true }));

function expectGatewayError(body: () => unknown): GatewayError {
  try {
    body();
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    return error as GatewayError;
  }
  throw new Error('expected a GatewayError, nothing was thrown');
}

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

test('a file broken by hand is logged at once, serves the keys last read within the grace, and shows on health', () => {
  const lines: string[] = [];
  const store = new KeyStore({
    file,
    recheckMs: 0,
    unreadableGraceMs: 600_000,
    log: (line) => lines.push(line),
  });
  const { key } = store.create({ routes: ['support'] });
  expect(store.verify(key)).toBeDefined();
  expect(store.health()).toEqual({ status: 'ok' });

  writeFileSync(file, '{"version": 1, "keys": [');
  expect(store.verify(key)).toBeDefined();
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(
    /^error: gateway key file .*keys\.json: not valid JSON: Unexpected end of JSON input/,
  );
  expect(store.health()).toMatchObject({
    status: 'stale',
    reason: expect.stringContaining('not valid JSON'),
  });
  expect(() => store.list()).toThrow(/keys\.json/);
});

test('after the grace a broken file refuses every key, in words, until it is good again', () => {
  const lines: string[] = [];
  const store = new KeyStore({ file, recheckMs: 0, unreadableGraceMs: 0, log: (line) => lines.push(line) });
  const { key, stored } = store.create({ routes: ['support'] });
  const good = readFileSync(file, 'utf8');
  writeFileSync(file, good.replace(`"id": "${stored.id}"`, `"id": "${stored.id}",,`));

  const refusal = expectGatewayError(() => store.verify(key));
  expect(refusal).toMatchObject({ status: 401, code: 'keys_file_unreadable' });
  expect(refusal.message).toContain("the gateway's key file is unreadable");
  expect(() => store.verify('sy_not_a_key')).toThrow(/unreadable/);
  expect(store.health()).toMatchObject({
    status: 'unreadable',
    reason: expect.stringMatching(/at line \d+, column \d+/),
  });
  expect(lines.join('\n')).toMatch(/refusing every key until it is fixed/);

  writeFileSync(file, good);
  expect(store.verify(key)?.id).toBe(stored.id);
  expect(store.health()).toEqual({ status: 'ok' });
  expect(lines[lines.length - 1]).toMatch(/is good again/);
});

test('a file that cannot be read at all (a directory in its place) is refused after the grace too', () => {
  const store = new KeyStore({ file, recheckMs: 0, unreadableGraceMs: 0, log: () => undefined });
  const { key } = store.create({ routes: ['support'] });
  rmSync(file);
  mkdirSync(file);
  expect(() => store.verify(key)).toThrow(/unreadable/);
  expect(store.health()).toMatchObject({ status: 'unreadable', reason: 'cannot be read (EISDIR)' });
});

test('a key pasted into the file by mistake appears in no log line, health reason or error', () => {
  const lines: string[] = [];
  const store = new KeyStore({ file, recheckMs: 0, unreadableGraceMs: 0, log: (line) => lines.push(line) });
  const { key } = store.create({ routes: ['support'] });
  const secret = key.slice(16);
  for (const broken of [
    key,
    `{"version": 1, "keys": [${key}]}`,
    `{"version": 1, "keys": [{"id": "${key}"}]}`,
  ]) {
    writeFileSync(file, broken);
    let refusal = '';
    try {
      store.verify(key);
    } catch (error) {
      refusal = (error as Error).message;
    }
    let listed = '';
    try {
      store.list();
    } catch (error) {
      listed = (error as Error).message;
    }
    const shown = [...lines, refusal, listed, JSON.stringify(store.health())].join('\n');
    expect(listed).not.toBe('');
    expect(shown).not.toContain(secret);
  }
});

test('the key file and its temporary files are readable by the owner only, whatever the umask', () => {
  const before = process.umask(0o000);
  try {
    const store = new KeyStore({ file, recheckMs: 0 });
    store.create({ routes: ['support'] });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    store.create({ routes: ['support'] });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // Nothing left beside it: no temporary file, no lock.
    expect(readdirSync(directory)).toEqual(['keys.json']);
  } finally {
    process.umask(before);
  }
});

test('a change waits for the lock another process holds, and fails with nothing changed when it stays taken', () => {
  const store = new KeyStore({ file, recheckMs: 0, lock: { waitMs: 300, staleMs: 60_000 } });
  const { key: first } = store.create({ routes: ['support'] });
  const before = readFileSync(file, 'utf8');
  writeFileSync(`${file}.lock`, '{"token":"someone else"}');
  expect(() => store.create({ routes: ['support'] })).toThrow(KeyChangeError);
  expect(() => store.revoke(keyIdOf(first)!)).toThrow(/stayed locked by another process/);
  expect(readFileSync(file, 'utf8')).toBe(before);
  expect(store.verify(first)).toBeDefined();
  // Their lock is theirs to remove.
  expect(readFileSync(`${file}.lock`, 'utf8')).toBe('{"token":"someone else"}');
});

test('a lock left by a crashed process is broken once stale', () => {
  const store = new KeyStore({ file, recheckMs: 0, lock: { waitMs: 5_000, staleMs: 1_000 } });
  writeFileSync(`${file}.lock`, '{"token":"crashed"}');
  const old = new Date(Date.now() - 60_000);
  utimesSync(`${file}.lock`, old, old);
  const { key } = store.create({ routes: ['support'] });
  expect(store.verify(key)).toBeDefined();
  expect(readdirSync(directory)).toEqual(['keys.json']);
});

test('many stores changing one file in turn keep every change', () => {
  const stores = Array.from({ length: 5 }, () => new KeyStore({ file, recheckMs: 0 }));
  const made = stores.flatMap((store) => [store.create({ routes: ['*'] }), store.create({ routes: ['*'] })]);
  stores.forEach((store, index) => store.revoke(made[index * 2]!.stored.id));
  const reader = new KeyStore({ file, recheckMs: 0 });
  expect(reader.list()).toHaveLength(10);
  made.forEach(({ key }, index) => expect(reader.verify(key) === undefined).toBe(index % 2 === 0));
});

test('routes: a named route, or every route with "*"', () => {
  const base = { id: 'a'.repeat(12), sha256: 'b'.repeat(64), createdAt: '' };
  expect(keyAllowsRoute({ ...base, routes: ['support'] }, 'support')).toBe(true);
  expect(keyAllowsRoute({ ...base, routes: ['support'] }, 'batch')).toBe(false);
  expect(keyAllowsRoute({ ...base, routes: ['*'] }, 'batch')).toBe(true);
});

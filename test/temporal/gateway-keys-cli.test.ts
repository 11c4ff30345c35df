// `switchyard keys create` and `revoke` as 20 processes at once on one file: every change stored, exit codes honest.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ExitCode } from '../../src/cli/exit-codes';
import { makeGatewayKey } from '../../src/gateway/gateway-key';
import { KeyStore } from '../../src/gateway/key-store';

const BINARY = path.join(__dirname, '../../bin/switchyard.js');

interface Finished {
  readonly code: number | null;
  readonly out: string;
  readonly err: string;
}

/** Runs the real `switchyard` executable in a process of its own, from a folder with no config. */
function switchyard(argv: readonly string[], cwd: string): Promise<Finished> {
  const environment = { ...process.env };
  delete environment.SWITCHYARD_CONFIG;
  delete environment.SWITCHYARD_GATEWAY_KEYS;
  const child = spawn(process.execPath, [BINARY, ...argv], { cwd, env: environment });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, out, err }));
  });
}

let directory: string;
let file: string;
beforeEach(() => {
  directory = mkdtempSync(path.join(tmpdir(), 'switchyard-keys-cli-'));
  file = path.join(directory, 'keys.json');
});
afterEach(() => rmSync(directory, { recursive: true, force: true }));

test('10 creates and 10 revokes run side by side: every printed key is stored and valid, every revoked key refused', async () => {
  // A file of a few thousand keys, as a long-lived deployment has: reading and rewriting it takes long enough
  // that unlocked changes running side by side overwrite one another.
  const filler = Array.from({ length: 3_000 }, () => makeGatewayKey({ routes: ['*'] }).stored);
  writeFileSync(file, JSON.stringify({ version: 1, keys: filler }, null, 2), { mode: 0o600 });
  const store = new KeyStore({ file, recheckMs: 0 });
  const toRevoke = Array.from({ length: 10 }, () => store.create({ routes: ['*'], label: 'to revoke' }));

  const creates = Array.from({ length: 10 }, (_, index) =>
    switchyard(['keys', 'create', '--routes', '*', '--label', `made ${index}`, '--keys', file], directory),
  );
  const revokes = toRevoke.map(({ stored }) =>
    switchyard(['keys', 'revoke', stored.id, '--keys', file], directory),
  );
  const created = await Promise.all(creates);
  const revoked = await Promise.all(revokes);

  const reader = new KeyStore({ file, recheckMs: 0 });
  for (const { code, out, err } of created) {
    const key = out.trim();
    // Honest: exit 0 means the key is on file and valid; any other exit prints no key at all.
    if (code === ExitCode.ok)
      expect({ key, valid: reader.verify(key) !== undefined }).toEqual({ key, valid: true });
    else expect({ out, err }).toEqual({ out: '', err: expect.stringContaining('not stored') });
  }
  toRevoke.forEach(({ key }, index) => {
    if (revoked[index]!.code === ExitCode.ok) expect(reader.verify(key)).toBeUndefined();
  });
  // And with nothing else writing, every one of them got through.
  expect([...created, ...revoked].map(({ code, err }) => ({ code, err: code === 0 ? '' : err }))).toEqual(
    Array.from({ length: 20 }, () => ({ code: ExitCode.ok, err: '' })),
  );
  expect(reader.list()).toHaveLength(3_000 + 10 + 10);
  expect(reader.list().filter((key) => key.revokedAt !== undefined)).toHaveLength(10);
  // Owner-only, and nothing left beside it: no temporary file, no lock.
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(readdirSync(directory)).toEqual(['keys.json']);
});

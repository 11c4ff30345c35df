// A broken gateway keys file on real `switchyard serve` processes: logged, the grace, then every key refused; fixed, served again.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { KeyStore } from '../../src/gateway/key-store';
import { eventually } from '../support/eventually';
import { temporalAddress } from '../support/temporal';

const BINARY = path.join(__dirname, '../../bin/switchyard.js');

const CONFIG = {
  providers: {
    openai: {
      kind: 'openai',
      apiKeyEnv: 'OPENAI_API_KEY',
      models: { 'gpt-4o-mini': { inputUsdPerMillion: 0.15, outputUsdPerMillion: 0.6 } },
    },
  },
  routes: { support: { targets: [{ provider: 'openai', model: 'gpt-4o-mini' }] } },
  defaultRoute: 'support',
};

interface ServeProcess {
  readonly url: string;
  /** Everything it printed on stderr so far. */
  log(): string;
  stop(): Promise<void>;
}

/** Starts the real `switchyard serve` on a free port, with `graceMs` for an unreadable keys file. */
async function serve(configFile: string, keysFile: string, graceMs: number): Promise<ServeProcess> {
  const child: ChildProcess = spawn(
    process.execPath,
    [
      BINARY,
      'serve',
      '--port',
      '0',
      '--config',
      configFile,
      '--keys',
      keysFile,
      '--address',
      temporalAddress(),
    ],
    {
      env: { ...process.env, SWITCHYARD_GATEWAY_KEYS_GRACE_MS: String(graceMs) },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', () => {
      const found = /switchyard gateway at (http:\/\/\S+)/.exec(stderr)?.[1];
      if (found) resolve(found);
    });
    child.once('exit', (code) => reject(new Error(`switchyard serve exited with ${code}:\n${stderr}`)));
  });
  return {
    url,
    log: () => stderr,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function healthOf(gateway: ServeProcess): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${gateway.url}/healthz`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** How the gateway answers `key` on the OpenAI surface: 'accepted', or the error's status, code and message. */
async function openAIVerdict(gateway: ServeProcess, key: string): Promise<unknown> {
  const openai = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  try {
    await openai.models.list();
    return 'accepted';
  } catch (error) {
    if (!(error instanceof OpenAI.APIError)) throw error;
    return { status: error.status, code: error.code, message: error.message };
  }
}

let directory: string;
let keysFile: string;
let configFile: string;
const gateways: ServeProcess[] = [];
beforeEach(() => {
  directory = mkdtempSync(path.join(tmpdir(), 'switchyard-keys-file-'));
  keysFile = path.join(directory, 'keys.json');
  configFile = path.join(directory, 'switchyard.config.json');
  writeFileSync(configFile, JSON.stringify(CONFIG));
});
afterEach(async () => {
  await Promise.all(gateways.splice(0).map((gateway) => gateway.stop()));
  rmSync(directory, { recursive: true, force: true });
});

test('a slip in the keys file: logged by every gateway, served within the grace, refused after it, on /healthz; fixed, served again', async () => {
  const store = new KeyStore({ file: keysFile, recheckMs: 0 });
  const { key } = store.create({ routes: ['support'] });
  const { key: revokedKey, stored: revoked } = store.create({ routes: ['support'] });
  store.revoke(revoked.id);
  const good = readFileSync(keysFile, 'utf8');

  // Two gateways on one file: one with a long grace, one that refuses at once.
  const patient = await serve(configFile, keysFile, 600_000);
  gateways.push(patient);
  const strict = await serve(configFile, keysFile, 0);
  gateways.push(strict);
  for (const gateway of gateways) {
    expect(await openAIVerdict(gateway, key)).toBe('accepted');
    expect(await openAIVerdict(gateway, revokedKey)).toMatchObject({ status: 401, code: 'invalid_api_key' });
    expect(await healthOf(gateway)).toEqual({ status: 200, body: { ok: true, keys: { status: 'ok' } } });
  }

  // A hand edit drops a quote.
  writeFileSync(keysFile, good.replace(`"id": "${revoked.id}"`, `"id": "${revoked.id}`));
  for (const gateway of gateways) {
    const line = await eventually(
      'the broken keys file in the log',
      async () => {
        // A gateway looks at the file when asked for a key or for its health (a balancer's probe).
        await healthOf(gateway);
        return gateway
          .log()
          .split('\n')
          .find((logged) => logged.includes(' error: gateway key file '));
      },
      (found) => found !== undefined,
      { timeoutMs: 30_000 },
    );
    expect(line).toContain(keysFile);
    expect(line).toMatch(/not valid JSON: .* at line \d+, column \d+/);
    expect(gateway.log()).not.toContain(key.slice(16));
    expect(gateway.log()).not.toContain(revokedKey.slice(16));
  }

  // Within its grace the patient gateway serves the keys it last read: the valid one, and not the revoked one.
  expect(await openAIVerdict(patient, key)).toBe('accepted');
  expect(await openAIVerdict(patient, revokedKey)).toMatchObject({ status: 401, code: 'invalid_api_key' });
  expect(await healthOf(patient)).toEqual({
    status: 200,
    body: {
      ok: true,
      keys: {
        status: 'stale',
        reason: expect.stringMatching(/^not valid JSON: /),
        since: expect.any(String),
        refusingFrom: expect.any(String),
      },
    },
  });

  // Past its grace the strict gateway refuses every key, on both surfaces, saying why.
  const refusal = {
    status: 401,
    code: 'keys_file_unreadable',
    message: expect.stringContaining("the gateway's key file is unreadable"),
  };
  expect(await openAIVerdict(strict, key)).toMatchObject(refusal);
  expect(await openAIVerdict(strict, revokedKey)).toMatchObject(refusal);
  const anthropic = new Anthropic({ apiKey: key, baseURL: strict.url, maxRetries: 0 });
  const anthropicError = await anthropic.messages
    .create({ model: 'support', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })
    .then(
      () => undefined,
      (error: unknown) => error,
    );
  expect(anthropicError).toBeInstanceOf(Anthropic.AuthenticationError);
  expect((anthropicError as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
    type: 'error',
    error: { type: 'authentication_error', message: expect.stringContaining('key file is unreadable') },
  });
  expect(await healthOf(strict)).toMatchObject({
    status: 503,
    body: { ok: false, keys: { status: 'unreadable', reason: expect.stringMatching(/^not valid JSON: /) } },
  });
  expect(strict.log()).toMatch(/refusing every key until it is fixed/);

  // Fixed: both serve the file's keys again, and say so.
  writeFileSync(keysFile, good);
  for (const gateway of gateways) {
    await eventually(
      'the keys file good again on /healthz',
      () => healthOf(gateway),
      (health) =>
        JSON.stringify(health) ===
        JSON.stringify({ status: 200, body: { ok: true, keys: { status: 'ok' } } }),
      { timeoutMs: 30_000 },
    );
    expect(await openAIVerdict(gateway, key)).toBe('accepted');
    expect(await openAIVerdict(gateway, revokedKey)).toMatchObject({ status: 401, code: 'invalid_api_key' });
    expect(gateway.log()).toMatch(/gateway key file .* is good again/);
  }
});

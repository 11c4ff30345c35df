// The codec server over real HTTP: the remote codec protocol, CORS for the Web UI, bearer auth, errors; and its command.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { AesGcmCodec, ENCRYPTED_ENCODING } from '../../../src/codec/aes-gcm-codec';
import { createCodecKeyring } from '../../../src/codec/codec-key';
import {
  codecServerExposure,
  isLoopbackHost,
  startCodecServer,
  UnsafeCodecServerError,
  type CodecServer,
} from '../../../src/codec/codec-server';
import { payloadFromJson, payloadToJson, type JsonPayload } from '../../../src/codec/payload-json';
import { ExitCode } from '../../../src/cli/exit-codes';
import { main } from '../../../src/cli/main';
import { freePort } from '../../../src/engine/free-port';
import { captureIo, run } from '../cli/cli-test-io';

const UI_ORIGIN = 'http://localhost:8233';
const codec = new AesGcmCodec(createCodecKeyring({ id: 'unit', material: randomBytes(32) }));
const servers: CodecServer[] = [];

async function serve(
  options: { bearerToken?: string; allowedOrigins?: string[] } = {},
): Promise<CodecServer> {
  const server = await startCodecServer({ codec, port: 0, ...options });
  servers.push(server);
  return server;
}
afterAll(async () => Promise.all(servers.map((server) => server.close())));

function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-namespace': 'default', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

const plainPayloads = (): JsonPayload[] =>
  [{ prompt: 'a secret prompt' }, 'an answer'].map((value) =>
    payloadToJson(defaultPayloadConverter.toPayload(value)),
  );

test('encode then decode over HTTP round-trips payloads in proto JSON (base64 metadata and data)', async () => {
  const server = await serve();
  const encodeResponse = await post(`${server.url}/encode`, { payloads: plainPayloads() });
  expect(encodeResponse.status).toBe(200);
  const encoded = (await encodeResponse.json()) as { payloads: JsonPayload[] };
  expect(encoded.payloads).toHaveLength(2);
  for (const payload of encoded.payloads) {
    expect(Buffer.from(payload.metadata!.encoding!, 'base64').toString()).toBe(ENCRYPTED_ENCODING);
    expect(Buffer.from(payload.data!, 'base64').toString('utf8')).not.toContain('secret');
  }
  // Namespace-prefixed paths work too: the protocol looks only at the last segment.
  const decodeResponse = await post(`${server.url}/default/decode`, encoded);
  expect(decodeResponse.status).toBe(200);
  const decoded = (await decodeResponse.json()) as { payloads: JsonPayload[] };
  expect(
    decoded.payloads.map((payload) => defaultPayloadConverter.fromPayload(payloadFromJson(payload))),
  ).toEqual([{ prompt: 'a secret prompt' }, 'an answer']);
});

test('CORS: the Web UI origin passes the preflight and reads the answer; any other origin is refused', async () => {
  const server = await serve();
  const preflight = await fetch(`${server.url}/decode`, {
    method: 'OPTIONS',
    headers: {
      origin: UI_ORIGIN,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type,x-namespace',
    },
  });
  expect(preflight.status).toBe(204);
  expect(preflight.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
  expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
  const allowed = preflight.headers.get('access-control-allow-headers')!.split(/,\s*/);
  expect(allowed).toEqual(expect.arrayContaining(['content-type', 'x-namespace']));

  const answer = await post(`${server.url}/encode`, { payloads: [] }, { origin: UI_ORIGIN });
  expect(answer.status).toBe(200);
  expect(answer.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);

  const evil = 'http://evil.example';
  const refusedPreflight = await fetch(`${server.url}/decode`, {
    method: 'OPTIONS',
    headers: { origin: evil },
  });
  expect(refusedPreflight.status).toBe(403);
  expect(refusedPreflight.headers.get('access-control-allow-origin')).toBeNull();
  const refusedPost = await post(`${server.url}/decode`, { payloads: plainPayloads() }, { origin: evil });
  expect(refusedPost.status).toBe(403);
});

test('a configured origin replaces the default', async () => {
  const server = await serve({ allowedOrigins: ['https://ui.example.com'] });
  expect(
    (await post(`${server.url}/encode`, { payloads: [] }, { origin: 'https://ui.example.com' })).status,
  ).toBe(200);
  expect((await post(`${server.url}/encode`, { payloads: [] }, { origin: UI_ORIGIN })).status).toBe(403);
});

test('bearer auth: no or a wrong token is 401, the right one passes; the preflight needs none', async () => {
  const server = await serve({ bearerToken: 'codec-token-123' });
  expect((await post(`${server.url}/decode`, { payloads: [] })).status).toBe(401);
  expect(
    (await post(`${server.url}/decode`, { payloads: [] }, { authorization: 'Bearer nope' })).status,
  ).toBe(401);
  expect(
    (await post(`${server.url}/decode`, { payloads: [] }, { authorization: 'Bearer codec-token-123' }))
      .status,
  ).toBe(200);
  const preflight = await fetch(`${server.url}/decode`, {
    method: 'OPTIONS',
    headers: { origin: UI_ORIGIN },
  });
  expect(preflight.status).toBe(204);
});

test('bad requests get a status and a message, never a crash', async () => {
  const server = await serve();
  const notJson = await post(`${server.url}/decode`, '{payloads');
  expect(notJson.status).toBe(400);
  expect(((await notJson.json()) as { error: string }).error).toContain('not JSON');
  expect((await post(`${server.url}/decode`, { payloads: [{ data: 'not base64!' }] })).status).toBe(400);
  expect((await post(`${server.url}/decode`, { nothing: true })).status).toBe(400);
  expect((await fetch(`${server.url}/decode`)).status).toBe(405);
  expect((await post(`${server.url}/other`, { payloads: [] })).status).toBe(404);

  // A payload under a key this server does not hold: 400 naming the key id.
  const stranger = new AesGcmCodec(createCodecKeyring({ id: 'stranger', material: randomBytes(32) }));
  const [foreign] = await stranger.encode([defaultPayloadConverter.toPayload('x')]);
  const unknownKey = await post(`${server.url}/decode`, { payloads: [payloadToJson(foreign!)] });
  expect(unknownKey.status).toBe(400);
  expect(((await unknownKey.json()) as { error: string }).error).toContain('"stranger"');
});

describe('exposure: decryption is never opened beyond the local UI without a token', () => {
  const savedToken = process.env.SWITCHYARD_CODEC_SERVER_TOKEN;
  beforeEach(() => delete process.env.SWITCHYARD_CODEC_SERVER_TOKEN);
  afterAll(() => {
    if (savedToken !== undefined) process.env.SWITCHYARD_CODEC_SERVER_TOKEN = savedToken;
  });

  test('origin "*" without a token is refused before listening; with one it serves', async () => {
    await expect(startCodecServer({ codec, port: 0, allowedOrigins: ['*'] })).rejects.toThrow(
      UnsafeCodecServerError,
    );
    await expect(
      startCodecServer({ codec, port: 0, allowedOrigins: ['*'], allowUnauthenticated: true }),
    ).rejects.toThrow(/origin "\*" needs a bearer token/);
    const server = await serve({ allowedOrigins: ['*'], bearerToken: 'codec-token-123' });
    const answer = await post(
      `${server.url}/encode`,
      { payloads: [] },
      { origin: 'http://anywhere.example', authorization: 'Bearer codec-token-123' },
    );
    expect(answer.status).toBe(200);
  });

  test('a non-loopback host without a token is refused; a token or the explicit escape accepts it', async () => {
    await expect(startCodecServer({ codec, port: 0, host: '0.0.0.0' })).rejects.toThrow(
      /host 0\.0\.0\.0 is not a loopback address/,
    );
    const settings = { host: '0.0.0.0', allowedOrigins: [UI_ORIGIN], bearerToken: undefined };
    expect(codecServerExposure(settings)).toBe('public-host');
    expect(codecServerExposure({ ...settings, bearerToken: 't' })).toBeUndefined();
    expect(codecServerExposure({ ...settings, allowUnauthenticated: true })).toBeUndefined();
    expect(codecServerExposure({ ...settings, host: '127.0.0.1' })).toBeUndefined();
  });

  test.each([
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['localhost', true],
    ['::1', true],
    ['[::1]', true],
    ['0:0:0:0:0:0:0:1', true],
    ['::ffff:127.0.0.1', true],
    ['0.0.0.0', false],
    ['::', false],
    ['192.168.1.4', false],
    ['example.com', false],
  ])('isLoopbackHost(%j) is %j', (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback);
  });
});

describe('switchyard codec-server', () => {
  const variables = [
    'SWITCHYARD_CODEC_KEY',
    'SWITCHYARD_CODEC_SERVER_TOKEN',
    'SWITCHYARD_PAYLOAD_STORE_DIR',
    'SWITCHYARD_PAYLOAD_STORE_THRESHOLD_BYTES',
  ] as const;
  const saved = Object.fromEntries(variables.map((name) => [name, process.env[name]]));
  afterEach(() => {
    for (const name of variables)
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
  });

  test.each([
    [['--origin', '*'], '--origin "*" needs SWITCHYARD_CODEC_SERVER_TOKEN'],
    [['--host', '0.0.0.0'], '--host 0.0.0.0 is not a loopback address'],
  ])('%j without a token exits 2 before serving: %s', async (argv, message) => {
    process.env.SWITCHYARD_CODEC_KEY = randomBytes(32).toString('base64');
    delete process.env.SWITCHYARD_CODEC_SERVER_TOKEN;
    const { code, err } = await run(['codec-server', ...argv]);
    expect(code).toBe(ExitCode.usage);
    expect(err).toContain(message);
  });

  test("/encode never writes the caller's bytes into the shared payload store; /decode still reads it", async () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'switchyard-codec-store-'));
    process.env.SWITCHYARD_CODEC_KEY = randomBytes(32).toString('base64');
    process.env.SWITCHYARD_PAYLOAD_STORE_DIR = directory;
    process.env.SWITCHYARD_PAYLOAD_STORE_THRESHOLD_BYTES = '1024';
    const io = captureIo();
    const running = main(['codec-server', '--port', String(await freePort())], io);
    try {
      let url: string | undefined;
      while (url === undefined) {
        url = /codec server at (http:\/\/\S+)/.exec(io.err())?.[1];
        if (url === undefined) await new Promise((resolve) => setImmediate(resolve));
      }
      const large = payloadToJson(defaultPayloadConverter.toPayload('x'.repeat(8 * 1024)));
      const encoded = await post(`${url}/encode`, { payloads: [large] });
      expect(encoded.status).toBe(200);
      const stored = readdirSync(directory, { recursive: true }).filter((name) =>
        String(name).includes('sha256'),
      );
      expect(stored).toEqual([]);
      // Encrypted inline, not a reference: it decodes back to what was sent.
      const decoded = await post(`${url}/decode`, await encoded.json());
      const [payload] = ((await decoded.json()) as { payloads: JsonPayload[] }).payloads;
      expect(defaultPayloadConverter.fromPayload(payloadFromJson(payload!))).toBe('x'.repeat(8 * 1024));

      // Over the payload limit: refused, saying the store is not used, and still nothing written.
      const huge = payloadToJson(defaultPayloadConverter.toPayload('y'.repeat(2 * 1024 * 1024 + 1)));
      const refused = await post(`${url}/encode`, { payloads: [huge] });
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { error: string }).error).toContain(
        'never writes to the payload store',
      );
      expect(
        readdirSync(directory, { recursive: true }).filter((name) => String(name).includes('sha256')),
      ).toEqual([]);
    } finally {
      process.emit('SIGINT');
      await running;
    }
  });

  test('--help documents the flags, the key variables and how to point the UI at it', async () => {
    const { code, out } = await run(['codec-server', '--help']);
    expect(code).toBe(ExitCode.ok);
    for (const text of ['--port', '--origin', '--host', 'SWITCHYARD_CODEC_KEY', '--ui-codec-endpoint'])
      expect(out).toContain(text);
  });

  test('without a key or a payload store it exits 2 naming the variables', async () => {
    delete process.env.SWITCHYARD_CODEC_KEY;
    const { code, err } = await run(['codec-server']);
    expect(code).toBe(ExitCode.usage);
    expect(err).toContain('neither SWITCHYARD_CODEC_KEY nor SWITCHYARD_PAYLOAD_STORE_DIR is set');
  });

  test('a bad key exits 2 naming the variable without echoing it', async () => {
    process.env.SWITCHYARD_CODEC_KEY = 'c2hvcnQtc2VjcmV0LXZhbHVl';
    const { code, err } = await run(['codec-server']);
    expect(code).toBe(ExitCode.usage);
    expect(err).toContain('SWITCHYARD_CODEC_KEY must decode to 32 bytes');
    expect(err).not.toContain('c2hvcnQtc2VjcmV0LXZhbHVl');
  });

  test.each([
    [['--port', '70000'], '--port must be at most 65535'],
    [['--port', 'x'], '--port must be a positive integer'],
    [['--origin', 'localhost:8233'], '--origin "localhost:8233"'],
    [['--origin', 'http://localhost:8233/'], 'must be scheme://host[:port] only'],
  ])('%j exits 2: %s', async (argv, message) => {
    const { code, err } = await run(['codec-server', ...argv]);
    expect(code).toBe(ExitCode.usage);
    expect(err).toContain(message);
  });
});

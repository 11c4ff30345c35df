// Large prompts, images and answers on a real dev server with its default limits (2 MiB per event, 4 MiB per gRPC
// message): refused before anything starts without a payload store; with one, long-context calls work end to end,
// history keeps only references, and with encryption on the store holds only ciphertext.
import { randomBytes, randomUUID } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, WorkflowNotFoundError } from '@temporalio/client';
import type { WorkflowBundlePath } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { createProviderRegistry } from '../../src/activities/provider-registry';
import { ENCRYPTED_ENCODING } from '../../src/codec/aes-gcm-codec';
import { PayloadCodecChain } from '../../src/codec/codec-chain';
import { createCodecKeyring } from '../../src/codec/codec-key';
import { startCodecServer } from '../../src/codec/codec-server';
import { switchyardDataConverter, switchyardPayloadCodecs } from '../../src/codec/data-converter';
import { FilesystemPayloadStore } from '../../src/codec/filesystem-payload-store';
import { PayloadTooLargeError } from '../../src/codec/payload-limits';
import { isReferencePayload, PAYLOAD_REFERENCE_ENCODING } from '../../src/codec/payload-store-codec';
import { payloadFromJson, payloadToJson } from '../../src/codec/payload-json';
import { RoutedCallError } from '../../src/client/errors';
import { SwitchyardClient } from '../../src/client/switchyard-client';
import { parseConfig } from '../../src/config/load-config';
import type { Config } from '../../src/config/config';
import { startFakeProvider, type FakeProvider } from '../../src/fake-provider';
import { breakerWorkflowId } from '../../src/workflows/breaker/definitions';
import { routedCallWorkflowId } from '../../src/workflows/definitions';
import { createSwitchyardWorker } from '../../src/worker';
import { ExitCode } from '../../src/cli/exit-codes';
import { sharedWorkflowBundle } from '../support/shared-bundles';
import { connectForTest, temporalAddress, uniqueName, type TemporalTestContext } from '../support/temporal';
import { fakeProviders, TEST_API_KEYS } from '../support/test-config';
import { run } from '../unit/cli/cli-test-io';

type RawPayload = temporal.api.common.v1.IPayload;

const MB = 1_000_000;
const THRESHOLD_BYTES = 256 * 1024;
const keyId = `large-${randomUUID().slice(0, 8)}`;
const keyMaterial = randomBytes(32);
const keyring = createCodecKeyring({ id: keyId, material: keyMaterial });

let context: TemporalTestContext;
let fake: FakeProvider;
let bundle: WorkflowBundlePath;
let config: Config;
/** The payload store's directory. */
let directory: string;
/** Prompt files for the CLI, kept apart from the store. */
let promptDirectory: string;

beforeAll(async () => {
  [context, fake, bundle] = await Promise.all([
    connectForTest(),
    startFakeProvider(),
    // As createSwitchyardWorker bundles with a codec key: workflow failures use the encrypting converter.
    sharedWorkflowBundle('switchyard-encrypting'),
  ]);
  const providers = fakeProviders(fake, { openai: ['gpt-long', 'gpt-long-b'], anthropic: ['claude-long'] });
  // Long-context models: the window must hold a several-megabyte prompt's token bound.
  for (const provider of Object.values(providers))
    for (const model of Object.values(provider.models)) Object.assign(model, { contextWindow: 50_000_000 });
  config = parseConfig({
    providers,
    routes: {
      long: {
        targets: [
          { provider: 'openai', model: 'gpt-long', timeoutMs: 30_000 },
          { provider: 'anthropic', model: 'claude-long', timeoutMs: 30_000 },
        ],
      },
    },
    defaultRoute: 'long',
  });
  directory = mkdtempSync(path.join(tmpdir(), 'switchyard-large-store-'));
  promptDirectory = mkdtempSync(path.join(tmpdir(), 'switchyard-large-prompts-'));
});

afterAll(async () => {
  await terminateBreakers();
  await fake?.close();
  await context?.close();
  for (const folder of [directory, promptDirectory])
    if (folder) rmSync(folder, { recursive: true, force: true });
});

async function terminateBreakers(): Promise<void> {
  const ids = Object.entries(config.providers).flatMap(([provider, { models }]) =>
    Object.keys(models).map((model) => breakerWorkflowId(provider, model)),
  );
  await Promise.all(
    ids.map((workflowId) =>
      context.client.workflow
        .getHandle(workflowId)
        .terminate('test isolation')
        .catch((error: unknown) => {
          if (!(error instanceof WorkflowNotFoundError)) throw error;
        }),
    ),
  );
}

/** A prompt of exactly `bytes` ASCII bytes that starts with a marker nothing else could contain. */
function longPrompt(bytes: number): { marker: string; prompt: string } {
  const marker = `Narwhal-${randomUUID().slice(0, 8)}`;
  const filler = ' the quick brown fox jumps over the lazy dog.';
  return { marker, prompt: `${marker}${filler.repeat(Math.ceil(bytes / filler.length))}`.slice(0, bytes) };
}

function callInput(prompt: string, maxOutputTokens = 64) {
  return {
    route: 'long',
    request: { messages: [{ role: 'user' as const, content: prompt }], maxOutputTokens },
  };
}

/**
 * A real PNG of random pixels (so it does not compress): `width` × `height` RGB, about three bytes a pixel. The
 * fake, like the APIs, refuses bytes that are not the image type they claim.
 */
function randomPng(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const checksum = Buffer.alloc(4);
    checksum.writeUInt32BE(crc32(typed));
    return Buffer.concat([length, typed, checksum]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bits per channel
  header[9] = 2; // truecolour RGB
  // Each row: filter type 0 (none), then its pixels.
  const rows = Array.from({ length: height }, () =>
    Buffer.concat([Buffer.from([0]), randomBytes(width * 3)]),
  );
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows), { level: 1 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A call whose request asks about a PNG of about 3 MiB as base64 (1024 × 768 random pixels): over the event limit. */
function imageCallInput(png: Buffer) {
  return {
    route: 'long',
    request: {
      messages: [
        {
          role: 'user' as const,
          content: [
            { type: 'image' as const, data: png.toString('base64'), mediaType: 'image/png' as const },
            { type: 'text' as const, text: 'What is in this picture?' },
          ],
        },
      ],
      maxOutputTokens: 64,
    },
  };
}

async function expectNotStarted(workflowId: string): Promise<void> {
  await expect(context.client.workflow.getHandle(workflowId).describe()).rejects.toBeInstanceOf(
    WorkflowNotFoundError,
  );
}

const storeSettings = () => ({
  store: new FilesystemPayloadStore(directory),
  thresholdBytes: THRESHOLD_BYTES,
});

/** Every payload in a history with its path; the search attributes are skipped (no codec sees them). */
function payloadsOf(node: unknown, where = ''): { path: string; payload: RawPayload }[] {
  if (typeof node !== 'object' || node === null || node instanceof Uint8Array) return [];
  const candidate = node as RawPayload;
  if (candidate.data instanceof Uint8Array && typeof candidate.metadata === 'object')
    return [{ path: where, payload: candidate }];
  return Object.entries(node).flatMap(([key, value]) =>
    key === 'searchAttributes' ? [] : payloadsOf(value, `${where}.${key}`),
  );
}

function storedFiles(): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));
}

describe('without a payload store', () => {
  test.each([
    ['2.5 MB', 2.5 * MB],
    ['5 MB', 5 * MB],
  ])('a %s prompt is refused at once with PayloadTooLargeError, and no workflow starts', async (_, bytes) => {
    const { prompt } = longPrompt(bytes);
    // A client with Switchyard's converter (no store) and one with the SDK's default converter alike.
    for (const client of [
      new Client({ connection: context.client.connection, dataConverter: switchyardDataConverter({}) }),
      context.client,
    ]) {
      const switchyard = new SwitchyardClient({ client, taskQueue: uniqueName('never-polled'), config });
      const idempotencyKey = uniqueName('too-large');
      const startedAt = Date.now();
      const refusal = await switchyard
        .start(callInput(prompt), { idempotencyKey })
        .catch((error: unknown) => error);
      const elapsedMs = Date.now() - startedAt;
      expect(refusal).toBeInstanceOf(PayloadTooLargeError);
      const { sizeBytes, limitBytes, message } = refusal as PayloadTooLargeError;
      expect(sizeBytes).toBeGreaterThan(bytes);
      expect(limitBytes).toBeLessThan(2 * 1024 * 1024);
      expect(message).toContain(`${sizeBytes.toLocaleString('en-US')} bytes`);
      expect(message).toContain('SWITCHYARD_PAYLOAD_STORE_DIR');
      await expectNotStarted(routedCallWorkflowId(idempotencyKey));
      console.log(`[large-payloads] ${bytes} B prompt refused in ${elapsedMs} ms`);
    }
  });

  test('the converter itself refuses an oversized payload before the request leaves (any workflow start)', async () => {
    const client = new Client({
      connection: context.client.connection,
      dataConverter: switchyardDataConverter({}),
    });
    const workflowId = uniqueName('raw-start');
    const refusal = await client.workflow
      .start('routedCallWorkflow', {
        taskQueue: uniqueName('never-polled'),
        workflowId,
        args: [callInput(longPrompt(2.5 * MB).prompt)],
      })
      .catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(PayloadTooLargeError);
    expect(refusal).toMatchObject({ limitBytes: 2 * 1024 * 1024 });
    await expectNotStarted(workflowId);
  });

  test('switchyard call refuses it before connecting: exit 2, the size and the limit, nothing started', async () => {
    const file = path.join(promptDirectory, 'prompt-2.5mb.txt');
    writeFileSync(file, longPrompt(2.5 * MB).prompt);
    const idempotencyKey = uniqueName('cli-too-large');
    const { code, err } = await run([
      'call',
      '--file',
      file,
      '--idempotency-key',
      idempotencyKey,
      '--address',
      temporalAddress(),
    ]);
    expect(code).toBe(ExitCode.usage);
    expect(err).toMatch(
      /request too large: the routed call's input is 2,500,\d{3} bytes, over the limit of [\d,]+ bytes/,
    );
    expect(err).toContain('2,097,152 bytes in one event');
    await expectNotStarted(routedCallWorkflowId(idempotencyKey));
  });

  test('a call with a 3 MiB inline image is refused before anything is sent, naming the limit and the image', async () => {
    const png = randomPng(1024, 768);
    const input = imageCallInput(png);
    expect(png.toString('base64').length).toBeGreaterThan(3 * 1024 * 1024);
    const before = fake.requests.length;
    const switchyard = new SwitchyardClient({
      client: new Client({
        connection: context.client.connection,
        dataConverter: switchyardDataConverter({}),
      }),
      taskQueue: uniqueName('never-polled'),
      config,
    });
    const idempotencyKey = uniqueName('image-too-large');
    const refusal = await switchyard.start(input, { idempotencyKey }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(PayloadTooLargeError);
    const { sizeBytes, limitBytes, message } = refusal as PayloadTooLargeError;
    expect(sizeBytes).toBeGreaterThan(3 * 1024 * 1024);
    expect(limitBytes).toBeLessThan(2 * 1024 * 1024);
    expect(message).toContain('2,097,152 bytes in one event');
    expect(message).toContain('SWITCHYARD_PAYLOAD_STORE_DIR');
    // It says what makes the input large, and what to do about an image.
    expect(message).toMatch(
      /inline images and documents are 3,1\d\d,\d{3} bytes of it \(base64\): send images by https url/,
    );
    await expectNotStarted(routedCallWorkflowId(idempotencyKey));

    // The CLI's --image says the same before it connects: exit 2.
    const file = path.join(promptDirectory, 'noise.png');
    writeFileSync(file, png);
    const cliKey = uniqueName('cli-image-too-large');
    const { code, err } = await run([
      'call',
      'What is in this picture?',
      '--image',
      file,
      '--idempotency-key',
      cliKey,
      '--address',
      temporalAddress(),
    ]);
    expect(code).toBe(ExitCode.usage);
    expect(err).toMatch(/request too large: the routed call's input is 3,1\d\d,\d{3} bytes, over the limit/);
    expect(err).toContain('send images by https url');
    await expectNotStarted(routedCallWorkflowId(cliKey));
    expect(fake.requests.length).toBe(before);
  });

  test('an answer too large for history fails its attempt with the size and the limit, and the record says so', async () => {
    await terminateBreakers();
    const taskQueue = uniqueName('large-answer-refused');
    const dataConverter = switchyardDataConverter({});
    const worker = await createSwitchyardWorker({
      config,
      connection: context.nativeConnection,
      taskQueue,
      workflowBundle: bundle,
      providers: createProviderRegistry(config, { ...TEST_API_KEYS }),
      dataConverter,
    });
    const client = new Client({ connection: context.client.connection, dataConverter });
    const switchyard = new SwitchyardClient({ client, taskQueue, config });
    const { prompt: answer } = longPrompt(2.5 * MB);
    fake.script('gpt-long', { kind: 'answer', text: answer });
    fake.script('claude-long', { kind: 'answer', text: answer });
    const failure = await worker.runUntil(
      switchyard.generate(callInput('Write a very long essay', 1_000_000)).catch((error: unknown) => error),
    );
    expect(failure).toBeInstanceOf(RoutedCallError);
    const { record } = failure as RoutedCallError;
    expect(record?.attempts.map((attempt) => attempt.outcome)).toEqual(['failed', 'failed']);
    for (const attempt of record!.attempts)
      expect(attempt.message).toMatch(/is 2,500,\d{3} bytes, over the limit of 2,097,152 bytes/);
  });
});

describe('with the payload store (and encryption)', () => {
  test('a 5 MB prompt works end to end: the provider gets it whole, history holds only references, the store only ciphertext', async () => {
    await terminateBreakers();
    const taskQueue = uniqueName('large-store');
    const dataConverter = switchyardDataConverter({ keyring, payloadStore: storeSettings() });
    const worker = await createSwitchyardWorker({
      config,
      connection: context.nativeConnection,
      taskQueue,
      workflowBundle: bundle,
      providers: createProviderRegistry(config, { ...TEST_API_KEYS }),
      dataConverter,
    });
    const client = new Client({ connection: context.client.connection, dataConverter });
    const switchyard = new SwitchyardClient({ client, taskQueue, config });
    const { marker, prompt } = longPrompt(5 * MB);
    const before = fake.requestsFor('gpt-long').length;

    const handle = await switchyard.start(callInput(prompt));
    const result = await worker.runUntil(handle.result());
    expect(result.answer.text.startsWith(`Echo: ${marker}`)).toBe(true);
    expect(result.record.servedBy).toMatchObject({ provider: 'openai', model: 'gpt-long' });

    // The provider received the whole prompt.
    const received = fake.requestsFor('gpt-long').slice(before);
    expect(received).toHaveLength(1);
    const body = received[0]!.body as { messages: { content: string }[] };
    const content = body.messages.at(-1)!.content;
    expect(content.length).toBe(prompt.length);
    expect(content === prompt).toBe(true);

    // History, read with no codec at all: small, only references and ciphertext, never the prompt.
    const history = await context.client.workflow.getHandle(handle.workflowId).fetchHistory();
    const payloads = payloadsOf(history);
    const references = payloads.filter(({ payload }) => isReferencePayload(payload));
    expect(references.map(({ path: where }) => where)).toEqual(
      expect.arrayContaining([expect.stringContaining('workflowExecutionStartedEventAttributes.input')]),
    );
    expect(
      references.some(({ path: where }) => where.includes('activityTaskScheduledEventAttributes.input')),
    ).toBe(true);
    for (const { path: where, payload } of payloads) {
      const encoding = Buffer.from(payload.metadata?.encoding ?? []).toString();
      // The engine's own local-activity bookkeeping (a marker's `data` entry) bypasses codecs; it holds no payload.
      if (where.includes('markerRecordedEventAttributes.details.data')) continue;
      expect([where, [ENCRYPTED_ENCODING, PAYLOAD_REFERENCE_ENCODING].includes(encoding)]).toEqual([
        where,
        true,
      ]);
      expect(payload.data!.length).toBeLessThan(THRESHOLD_BYTES);
      expect(Buffer.from(payload.data!).includes(marker)).toBe(false);
    }
    const historyBytes = temporal.api.history.v1.History.encode(history).finish().length;
    expect(historyBytes).toBeLessThan(200_000);

    // The stored bytes are encrypted payloads: ciphertext only.
    const files = storedFiles();
    expect(files.length).toBeGreaterThanOrEqual(2);
    for (const file of files) {
      const bytes = readFileSync(file);
      expect(path.basename(file)).toMatch(/^sha256-[0-9a-f]{64}$/);
      expect(bytes.includes(marker)).toBe(false);
      expect(bytes.includes('quick brown fox')).toBe(false);
      const stored = temporal.api.common.v1.Payload.decode(bytes);
      expect(Buffer.from(stored.metadata?.encoding ?? []).toString()).toBe(ENCRYPTED_ENCODING);
    }

    // The codec server, as the Web UI calls it, reads a reference back and decrypts it.
    const server = await startCodecServer({
      codec: new PayloadCodecChain(switchyardPayloadCodecs({ keyring, payloadStore: storeSettings() })),
      port: 0,
    });
    try {
      const startInput = references.find(({ path: where }) => where.includes('workflowExecutionStarted'))!;
      const response = await fetch(`${server.url}/decode`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-namespace': 'default' },
        body: JSON.stringify({ payloads: [payloadToJson(startInput.payload as never)] }),
      });
      expect(response.status).toBe(200);
      const decoded = ((await response.json()) as { payloads: Parameters<typeof payloadFromJson>[0][] })
        .payloads;
      const value = JSON.parse(
        Buffer.from(payloadFromJson(decoded[0]!).data!).toString('utf8'),
      ) as ReturnType<typeof callInput>;
      expect(value.request.messages[0]!.content === prompt).toBe(true);
    } finally {
      await server.close();
    }
  });

  test('a 3 MiB inline image is served through the store: the provider gets its bytes intact, history a reference', async () => {
    await terminateBreakers();
    const taskQueue = uniqueName('large-image');
    // No encryption here: what history and the store hold can then be searched for the image's bytes.
    const imageDirectory = mkdtempSync(path.join(tmpdir(), 'switchyard-large-image-store-'));
    const payloadStore = {
      store: new FilesystemPayloadStore(imageDirectory),
      thresholdBytes: THRESHOLD_BYTES,
    };
    const dataConverter = switchyardDataConverter({ payloadStore });
    const worker = await createSwitchyardWorker({
      config,
      connection: context.nativeConnection,
      taskQueue,
      workflowBundle: bundle,
      providers: createProviderRegistry(config, { ...TEST_API_KEYS }),
      dataConverter,
    });
    const client = new Client({ connection: context.client.connection, dataConverter });
    const switchyard = new SwitchyardClient({ client, taskQueue, config });
    const png = randomPng(1024, 768);
    const base64 = png.toString('base64');
    // A stretch of random pixels' base64, found nowhere else.
    const probe = base64.slice(base64.length / 2, base64.length / 2 + 64);
    fake.script('gpt-long', { kind: 'answer', text: 'Noise, mostly.' });
    const before = fake.requestsFor('gpt-long').length;
    try {
      const handle = await switchyard.start(imageCallInput(png));
      const result = await worker.runUntil(handle.result());
      expect(result.answer.text).toBe('Noise, mostly.');

      // The provider received the image whole, as the data URL OpenAI takes, and its bytes decode to the PNG.
      const received = fake.requestsFor('gpt-long').slice(before);
      expect(received).toHaveLength(1);
      const body = received[0]!.body as { messages: { content: { image_url?: { url: string } }[] }[] };
      const url = body.messages.at(-1)!.content[0]!.image_url!.url;
      expect(url.startsWith('data:image/png;base64,')).toBe(true);
      expect(Buffer.from(url.slice('data:image/png;base64,'.length), 'base64').equals(png)).toBe(true);

      // History holds references to the store where the request went, and never the image's bytes.
      const history = await context.client.workflow.getHandle(handle.workflowId).fetchHistory();
      const payloads = payloadsOf(history);
      const references = payloads.filter(({ payload }) => isReferencePayload(payload));
      expect(
        references.some(({ path: where }) => where.includes('workflowExecutionStartedEventAttributes')),
      ).toBe(true);
      expect(
        references.some(({ path: where }) => where.includes('activityTaskScheduledEventAttributes')),
      ).toBe(true);
      for (const { payload } of payloads) expect(Buffer.from(payload.data!).includes(probe)).toBe(false);
      expect(temporal.api.history.v1.History.encode(history).finish().length).toBeLessThan(200_000);
      // The store holds them.
      const stored = readdirSync(imageDirectory, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => readFileSync(path.join(entry.parentPath, entry.name)));
      expect(stored.some((bytes) => bytes.includes(probe))).toBe(true);
    } finally {
      rmSync(imageDirectory, { recursive: true, force: true });
    }
  });

  test('a 3 MB answer comes back through the store', async () => {
    await terminateBreakers();
    const taskQueue = uniqueName('large-answer');
    const dataConverter = switchyardDataConverter({ keyring, payloadStore: storeSettings() });
    const worker = await createSwitchyardWorker({
      config,
      connection: context.nativeConnection,
      taskQueue,
      workflowBundle: bundle,
      providers: createProviderRegistry(config, { ...TEST_API_KEYS }),
      dataConverter,
    });
    const client = new Client({ connection: context.client.connection, dataConverter });
    const switchyard = new SwitchyardClient({ client, taskQueue, config });
    const { prompt: answer } = longPrompt(3 * MB);
    fake.script('gpt-long', { kind: 'answer', text: answer });
    const result = await worker.runUntil(
      switchyard.generate(callInput('Write a very long essay', 1_000_000)),
    );
    expect(result.answer.text.length).toBe(answer.length);
    expect(result.answer.text === answer).toBe(true);
    expect(result.record.attempts).toHaveLength(1);
  });

  test('switchyard call with the store in its environment sends a long prompt and prints the answer', async () => {
    await terminateBreakers();
    const taskQueue = uniqueName('large-cli');
    const dataConverter = switchyardDataConverter({ keyring, payloadStore: storeSettings() });
    const worker = await createSwitchyardWorker({
      config,
      connection: context.nativeConnection,
      taskQueue,
      workflowBundle: bundle,
      providers: createProviderRegistry(config, { ...TEST_API_KEYS }),
      dataConverter,
    });
    const { marker, prompt } = longPrompt(3 * MB);
    const file = path.join(promptDirectory, 'prompt-3mb.txt');
    writeFileSync(file, prompt);
    const saved = { ...process.env };
    Object.assign(process.env, {
      SWITCHYARD_PAYLOAD_STORE_DIR: directory,
      SWITCHYARD_CODEC_KEY: keyMaterial.toString('base64'),
      SWITCHYARD_CODEC_KEY_ID: keyId,
    });
    try {
      const { code, out, err } = await worker.runUntil(
        run([
          'call',
          '--file',
          file,
          '--route',
          'long',
          '--task-queue',
          taskQueue,
          '--address',
          temporalAddress(),
        ]),
      );
      expect([code, err]).toEqual([ExitCode.ok, expect.any(String)]);
      expect(out.startsWith(`Echo: ${marker}`)).toBe(true);
    } finally {
      for (const name of ['SWITCHYARD_PAYLOAD_STORE_DIR', 'SWITCHYARD_CODEC_KEY', 'SWITCHYARD_CODEC_KEY_ID'])
        if (saved[name] === undefined) delete process.env[name];
        else process.env[name] = saved[name];
    }
  });
});

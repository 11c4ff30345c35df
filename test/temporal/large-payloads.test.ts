// Large prompts and answers on a real dev server with its default limits (2 MiB per event, 4 MiB per gRPC message):
// refused before anything starts without a payload store; with one, long-context calls work end to end, history
// keeps only references, and with encryption on the store holds only ciphertext.
import { randomBytes, randomUUID } from 'node:crypto';
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

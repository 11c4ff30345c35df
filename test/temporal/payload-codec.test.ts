// Payload encryption end to end on a real dev server: ciphertext in history, plaintext for codec clients, the CLI,
// the codec server as the Web UI calls it, and `start-dev --ui-codec-endpoint`.
import { randomBytes, randomUUID } from 'node:crypto';
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import type { WorkflowBundlePath } from '@temporalio/worker';
import type { temporal } from '@temporalio/proto';
import { createProviderRegistry } from '../../src/activities/provider-registry';
import { ENCRYPTED_ENCODING, KEY_ID_METADATA } from '../../src/codec/aes-gcm-codec';
import { createCodecKeyring, type CodecKeyring } from '../../src/codec/codec-key';
import { encryptingDataConverter } from '../../src/codec/data-converter';
import { startCodecServer, type CodecServer } from '../../src/codec/codec-server';
import type { RoutedCallError } from '../../src/client/errors';
import { SwitchyardClient } from '../../src/client/switchyard-client';
import type { Config } from '../../src/config/config';
import { freePort, startDevServer } from '../../src/engine';
import { startFakeProvider, type FakeProvider } from '../../src/fake-provider';
import type { RoutedCallResult } from '../../src/routing/routing-record';
import { breakerWorkflowId } from '../../src/workflows/breaker/definitions';
import { ledgerWorkflowId } from '../../src/workflows/ledger/ledger-definitions';
import { createSwitchyardWorker } from '../../src/worker';
import { expectRoutedCallError } from '../support/expect-failure';
import { sharedWorkflowBundle } from '../support/shared-bundles';
import { connectForTest, uniqueName, type TemporalTestContext } from '../support/temporal';
import { TEST_API_KEYS, testConfig } from '../support/test-config';
import { run } from '../unit/cli/cli-test-io';

type History = temporal.api.history.v1.IHistory;
type RawPayload = temporal.api.common.v1.IPayload;

let context: TemporalTestContext;
let fake: FakeProvider;
let bundle: WorkflowBundlePath;
let config: Config;
const keyId = `e2e-${randomUUID().slice(0, 8)}`;
const keyMaterial = randomBytes(32);
const keyring: CodecKeyring = createCodecKeyring({ id: keyId, material: keyMaterial });
const dataConverter = encryptingDataConverter(keyring);

beforeAll(async () => {
  [context, fake, bundle] = await Promise.all([
    connectForTest(),
    startFakeProvider(),
    // Bundled as createSwitchyardWorker does with a codec key: workflow failures use the encrypting converter.
    sharedWorkflowBundle('switchyard-encrypting'),
  ]);
  config = testConfig(fake);
});
afterAll(async () => {
  await terminateBreakers();
  await fake?.close();
  await context?.close();
});

/** A distinctive prompt and answer: nothing else in a history could contain them by chance. */
function markers() {
  const tag = randomUUID().slice(0, 8);
  return {
    prompt: `Quokka-prompt-${tag}: plan the surprise party for Ada`,
    system: `Zebra-system-${tag}: you are a discreet planner`,
    answer: `Pelican-answer-${tag}: rent the boathouse on Friday`,
  };
}

/**
 * Breakers are shared by every call on the server and live on the task queue of the worker that started them;
 * each run here has its own queue (and the control run cannot read encrypted breaker state), so start fresh.
 */
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

interface CallOutcomes {
  /** A call whose first target answers 429 and the second answers. */
  readonly answered: RoutedCallResult;
  /** A call whose provider error quotes the prompt back (a 400 that does not fail over). */
  readonly failed: RoutedCallError;
  /** A client with the same converter as the worker. */
  readonly client: Client;
  readonly budget: string;
}

/** Runs two routed calls on a fresh worker, with the codec on worker and client, or with none at all. */
async function routedCalls(text: ReturnType<typeof markers>, encrypted: boolean): Promise<CallOutcomes> {
  await terminateBreakers();
  const taskQueue = uniqueName('codec-test');
  const converter = encrypted ? { dataConverter } : {};
  const client = new Client({ connection: context.client.connection, ...converter });
  const worker = await createSwitchyardWorker({
    config,
    connection: context.nativeConnection,
    taskQueue,
    workflowBundle: bundle,
    providers: createProviderRegistry(config, { ...TEST_API_KEYS }),
    // An explicit empty converter keeps the plaintext control run plaintext whatever the environment says.
    dataConverter: encrypted ? dataConverter : {},
  });
  const switchyard = new SwitchyardClient({ client, taskQueue, config });
  const budget = uniqueName('codec-scope');
  const request = {
    system: text.system,
    messages: [{ role: 'user' as const, content: text.prompt }],
    maxOutputTokens: 256,
  };
  return worker.runUntil(
    (async () => {
      fake.script('gpt-primary', { kind: 'error', error: 'rate_limited' });
      fake.script('claude-primary', { kind: 'answer', text: text.answer });
      const answered = await switchyard.generate({ route: 'support', budget, request });
      fake.script('gpt-primary', {
        kind: 'raw',
        status: 400,
        body: { error: { message: `Invalid content in "${text.prompt}"`, type: 'invalid_request_error' } },
      });
      const failed = await expectRoutedCallError(switchyard.generate({ route: 'support', request }));
      return { answered, failed, client, budget };
    })(),
  );
}

function isPayload(value: unknown): value is RawPayload {
  if (typeof value !== 'object' || value === null || value instanceof Uint8Array) return false;
  const candidate = value as RawPayload;
  return candidate.data instanceof Uint8Array && typeof candidate.metadata === 'object';
}

/** Every payload in a history, with its path; search attributes and headers are skipped (no codec sees them). */
function payloadsOf(history: History): { path: string; payload: RawPayload }[] {
  const found: { path: string; payload: RawPayload }[] = [];
  const visit = (node: unknown, path: string): void => {
    if (isPayload(node)) {
      found.push({ path, payload: node });
      return;
    }
    if (typeof node !== 'object' || node === null || node instanceof Uint8Array) return;
    for (const [key, value] of Object.entries(node)) {
      if (key === 'searchAttributes' || key === 'header') continue;
      visit(value, `${path}.${key}`);
    }
  };
  visit(history, 'history');
  return found;
}

const BASE64 = /^[A-Za-z0-9+/]{8,}={0,2}$/;

/** All text a history holds: its JSON, every string (and its base64 decoding), every byte field as UTF-8. */
function historyText(history: History): string {
  const parts: string[] = [JSON.stringify(history)];
  const visit = (node: unknown): void => {
    if (typeof node === 'string') {
      parts.push(node);
      if (BASE64.test(node)) parts.push(Buffer.from(node, 'base64').toString('utf8'));
    } else if (node instanceof Uint8Array) {
      const bytes = Buffer.from(node);
      parts.push(bytes.toString('utf8'), bytes.toString('base64'));
    } else if (typeof node === 'object' && node !== null) {
      Object.values(node).forEach(visit);
    }
  };
  visit(history);
  return parts.join('\n');
}

const metadataText = (payload: RawPayload, key: string) =>
  Buffer.from(payload.metadata?.[key] ?? new Uint8Array()).toString('utf8');

test('prompts and answers are ciphertext in history; the codec client, the CLI and the codec server read them', async () => {
  const text = markers();
  const { answered: result, failed, client, budget } = await routedCalls(text, true);
  expect(result.answer.text).toBe(text.answer);
  expect(result.record.fallbacks).toBe(1);
  // The codec client reads the failure whole: type, decrypted message and record.
  expect(failed.type).toBe('InvalidRequest');
  expect(failed.message).toContain('openai/gpt-primary');
  expect(failed.record?.attempts[0]).toMatchObject({ failureClass: 'invalid_request', httpStatus: 400 });
  // The provider got the plaintext prompt: encryption is only between Switchyard and Temporal.
  const received = JSON.stringify(fake.requests.map((request) => request.body));
  expect(received).toContain(text.prompt);

  // Read back with a plain client (no codec): what Temporal stores.
  const plainHandle = context.client.workflow.getHandle(result.record.workflowId);
  const history = await plainHandle.fetchHistory();
  const failedHistory = await context.client.workflow.getHandle(failed.workflowId).fetchHistory();
  const ledgerHistory = await context.client.workflow.getHandle(ledgerWorkflowId(budget)).fetchHistory();
  const histories = [history, failedHistory, ledgerHistory];
  const payloads = histories.flatMap(payloadsOf);
  // Core writes its own bookkeeping of each local activity (type, seq, times) in the marker's `data`, outside any
  // codec; the local activity's result beside it is encrypted. Check that bookkeeping holds nothing else.
  const isMarkerBookkeeping = (path: string) => /markerRecordedEventAttributes\.details\.data\./.test(path);
  // A patch marker's data is core's too: the patch id, and nothing of the call.
  const isPatchMarker = (path: string) => /markerRecordedEventAttributes\.details\.patch-data\./.test(path);
  for (const { payload } of payloads.filter(({ path }) => isPatchMarker(path))) {
    expect(Object.keys(JSON.parse(Buffer.from(payload.data!).toString('utf8')) as object).sort()).toEqual([
      'deprecated',
      'id',
    ]);
  }
  const bookkeeping = payloads.filter(({ path }) => isMarkerBookkeeping(path));
  const markerKeys = new Set([
    'seq',
    'attempt',
    'activity_id',
    'activity_type',
    'complete_time',
    'backoff',
    'original_schedule_time',
  ]);
  for (const { payload } of bookkeeping) {
    const fields = Object.keys(JSON.parse(Buffer.from(payload.data!).toString('utf8')) as object);
    expect(fields.filter((field) => !markerKeys.has(field))).toEqual([]);
  }
  const userPayloads = payloads.filter(({ path }) => !isMarkerBookkeeping(path) && !isPatchMarker(path));
  const plaintextPayloads = userPayloads.filter(
    ({ payload }) => metadataText(payload, 'encoding') !== ENCRYPTED_ENCODING,
  );
  expect(plaintextPayloads.map(({ path }) => path)).toEqual([]);
  expect(userPayloads.every(({ payload }) => metadataText(payload, KEY_ID_METADATA) === keyId)).toBe(true);
  // Input, result, activity inputs and results, local activity results, the ledger's update: all of them.
  expect(userPayloads.length).toBeGreaterThanOrEqual(8);
  const events = history.events ?? [];
  const started = events[0]!.workflowExecutionStartedEventAttributes!;
  expect(metadataText(started.input!.payloads![0]!, 'encoding')).toBe(ENCRYPTED_ENCODING);
  // User metadata (the static summary and details, activity summaries) goes through the codec too (SDK 1.24).
  expect(metadataText(events[0]!.userMetadata!.summary!, 'encoding')).toBe(ENCRYPTED_ENCODING);
  expect(
    events.some((event) => event.activityTaskScheduledEventAttributes && event.userMetadata?.summary),
  ).toBe(true);

  // Failure messages (a provider's may quote the prompt) are encrypted too: only "Encoded failure" remains.
  const failures = (failedHistory.events ?? []).flatMap((event) => {
    const failure =
      event.activityTaskFailedEventAttributes?.failure ??
      event.workflowExecutionFailedEventAttributes?.failure;
    return failure ? [failure] : [];
  });
  expect(failures).toHaveLength(2);
  for (const failure of failures) {
    expect(failure.message).toBe('Encoded failure');
    expect(metadataText(failure.encodedAttributes!, 'encoding')).toBe(ENCRYPTED_ENCODING);
  }

  const stored = histories.map(historyText).join('\n');
  const leaks = [text.prompt, text.system, text.answer].flatMap((marker) => [
    marker,
    marker.split(':')[0]!,
    Buffer.from(marker).toString('base64').slice(0, 16),
  ]);
  const plaintextFound = leaks.filter((leak) => stored.includes(leak));
  expect(plaintextFound).toEqual([]);
  // A client without the key cannot read the result at all.
  await expect(plainHandle.result()).rejects.toThrow();

  // The codec client reads it intact, through the Switchyard client API too.
  const codecSwitchyard = new SwitchyardClient({ client, config });
  const inspection = await codecSwitchyard.inspect(result.record.workflowId);
  expect(inspection.status).toBe('COMPLETED');
  expect(inspection.answer?.text).toBe(text.answer);
  const failedInspection = await codecSwitchyard.inspect(failed.workflowId);
  expect(failedInspection.error).toMatchObject({ type: 'InvalidRequest' });
  expect(failedInspection.error?.message).toContain('openai/gpt-primary');
  const rawResult = (await client.workflow.getHandle(result.record.workflowId).result()) as RoutedCallResult;
  expect(rawResult.answer.text).toBe(text.answer);

  // `switchyard show` reads it with the key from the environment.
  const savedEnvironment = { ...process.env };
  process.env.SWITCHYARD_CODEC_KEY = keyMaterial.toString('base64');
  process.env.SWITCHYARD_CODEC_KEY_ID = keyId;
  try {
    const shown = await run(['show', result.record.workflowId, '--json']);
    expect(shown.err).toBe('');
    expect(JSON.parse(shown.out)).toMatchObject({ status: 'COMPLETED', answer: { text: text.answer } });
    // Without the key it says which key it needs, instead of the SDK's "Unknown encoding".
    delete process.env.SWITCHYARD_CODEC_KEY;
    const keyless = await run(['show', result.record.workflowId, '--json']);
    expect(keyless.code).not.toBe(0);
    expect(keyless.err).toContain(`key id "${keyId}" and SWITCHYARD_CODEC_KEY is not set`);
  } finally {
    for (const name of ['SWITCHYARD_CODEC_KEY', 'SWITCHYARD_CODEC_KEY_ID'])
      if (savedEnvironment[name] === undefined) delete process.env[name];
      else process.env[name] = savedEnvironment[name];
  }

  // The codec server decodes the stored payloads as the Web UI asks: preflight, then POST from the UI origin.
  const uiOrigin = 'http://localhost:8233';
  const codecServer = await startCodecServer({
    codec: dataConverter.payloadCodecs![0]!,
    port: 0,
    allowedOrigins: [uiOrigin],
  });
  try {
    const historyPayloads = userPayloads.map(({ payload }) => payload);
    const decoded = await decodeLikeTheUi(codecServer, uiOrigin, historyPayloads);
    expect(decoded).toHaveLength(historyPayloads.length);
    const decodedText = decoded
      .map((payload) => Buffer.from(payload.data ?? '', 'base64').toString('utf8'))
      .join('\n');
    expect(decodedText).toContain(text.prompt);
    expect(decodedText).toContain(text.system);
    expect(decodedText).toContain(text.answer);
    expect(decoded.every((payload) => payload.metadata?.encoding !== undefined)).toBe(true);
    expect(
      decoded
        .map((payload) => Buffer.from(payload.metadata!.encoding!, 'base64').toString())
        .filter((encoding) => encoding === ENCRYPTED_ENCODING),
    ).toEqual([]);
    console.log(
      `[reliability] codec: ${userPayloads.length} payloads encrypted in history, ${plaintextFound.length} plaintext found; codec server decoded ${decoded.length}`,
    );
  } finally {
    await codecServer.close();
  }
});

interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

/** What the Web UI does: a CORS preflight, then POST {payloads} as proto JSON with X-Namespace, from its origin. */
async function decodeLikeTheUi(
  codecServer: CodecServer | { url: string },
  origin: string,
  payloads: readonly (RawPayload | JsonPayload)[],
): Promise<JsonPayload[]> {
  const preflight = await fetch(`${codecServer.url}/decode`, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type,x-namespace',
    },
  });
  expect(preflight.status).toBe(204);
  expect(preflight.headers.get('access-control-allow-origin')).toBe(origin);
  expect(preflight.headers.get('access-control-allow-headers')).toMatch(/content-type.*x-namespace/);
  // Proto JSON: bytes as base64, metadata values included (the UI already has them in this form).
  const body = {
    payloads: payloads.map((payload) =>
      payload.data instanceof Uint8Array
        ? {
            metadata: Object.fromEntries(
              Object.entries(payload.metadata ?? {}).map(([key, value]) => [
                key,
                Buffer.from(value as Uint8Array).toString('base64'),
              ]),
            ),
            data: Buffer.from(payload.data).toString('base64'),
          }
        : payload,
    ),
  };
  const response = await fetch(`${codecServer.url}/decode`, {
    method: 'POST',
    headers: { origin, 'content-type': 'application/json', 'x-namespace': 'default' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('access-control-allow-origin')).toBe(origin);
  return ((await response.json()) as { payloads: JsonPayload[] }).payloads;
}

test('control: without the codec the same calls leave the prompt and answer readable in history', async () => {
  // Proves the searches above can find plaintext: with encryption off they do.
  const text = markers();
  const { answered, failed } = await routedCalls(text, false);
  const history = await context.client.workflow.getHandle(answered.record.workflowId).fetchHistory();
  const stored = historyText(history);
  expect(stored).toContain(text.prompt);
  expect(stored).toContain(text.answer);
  expect(payloadsOf(history).some(({ payload }) => metadataText(payload, 'encoding') === 'json/plain')).toBe(
    true,
  );
  // And the failed attempt's message is plain text (the encrypted run's "Encoded failure" is the codec's work).
  const failedHistory = await context.client.workflow.getHandle(failed.workflowId).fetchHistory();
  const attemptFailure = failedHistory.events?.find((event) => event.activityTaskFailedEventAttributes)
    ?.activityTaskFailedEventAttributes?.failure;
  expect(attemptFailure?.message).toContain('gpt-primary');
  expect(attemptFailure?.encodedAttributes).toBeFalsy();
});

test('start-dev --ui-codec-endpoint: the Web UI advertises the codec server and its history decodes through it', async () => {
  const uiPort = await freePort('127.0.0.1');
  const uiOrigin = `http://127.0.0.1:${uiPort}`;
  const codecServer = await startCodecServer({
    codec: dataConverter.payloadCodecs![0]!,
    port: 0,
    allowedOrigins: [uiOrigin],
  });
  const server = await startDevServer({ uiPort, uiCodecEndpoint: codecServer.url });
  try {
    expect(server.uiUrl).toBe(uiOrigin);
    const settings = (await (await fetch(`${server.uiUrl}/api/v1/settings`)).json()) as {
      Codec?: { Endpoint?: string };
    };
    expect(settings.Codec?.Endpoint).toBe(codecServer.url);

    // A call started with the codec on this server (no worker needed: its input is enough), read through the
    // UI's own HTTP API, and decoded at the endpoint the UI advertises, as the UI would.
    const connection = await Connection.connect({ address: server.address });
    try {
      const text = markers();
      const switchyard = new SwitchyardClient({
        client: new Client({ connection, dataConverter }),
        taskQueue: uniqueName('codec-ui'),
        config,
      });
      const handle = await switchyard.start({
        route: 'support',
        request: { messages: [{ role: 'user', content: text.prompt }], maxOutputTokens: 32 },
      });
      const historyUrl = `${server.uiUrl}/api/v1/namespaces/default/workflows/${encodeURIComponent(handle.workflowId)}/history`;
      const historyJson = (await (await fetch(historyUrl)).json()) as {
        history?: {
          events?: { workflowExecutionStartedEventAttributes?: { input?: { payloads?: JsonPayload[] } } }[];
        };
      };
      const inputPayloads =
        historyJson.history!.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads!;
      expect(JSON.stringify(historyJson)).not.toContain(text.prompt);
      expect(Buffer.from(inputPayloads[0]!.metadata!.encoding!, 'base64').toString()).toBe(
        ENCRYPTED_ENCODING,
      );
      const decoded = await decodeLikeTheUi({ url: settings.Codec!.Endpoint! }, uiOrigin, inputPayloads);
      expect(Buffer.from(decoded[0]!.data!, 'base64').toString('utf8')).toContain(text.prompt);
      await new Client({ connection }).workflow.getHandle(handle.workflowId).terminate('test done');
    } finally {
      await connection.close();
    }
  } finally {
    await server.stop();
    await codecServer.close();
  }
});

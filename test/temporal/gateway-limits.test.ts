// The gateway's limits on a real dev server: keys and relay tokens checked before a body is read, the relay's own
// body limit and listener, connections and requests per key bounded, the body limit with and without a payload
// store, and a caller who leaves while its call is being started.
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import Anthropic from '@anthropic-ai/sdk';
import { Client, WorkflowNotFoundError, type WorkflowClientInterceptor } from '@temporalio/client';
import OpenAI from 'openai';
import { createProviderRegistry } from '../../src/activities/provider-registry';
import { SwitchyardClient } from '../../src/client/switchyard-client';
import { switchyardDataConverter } from '../../src/codec/data-converter';
import { FilesystemPayloadStore } from '../../src/codec/filesystem-payload-store';
import type { Config } from '../../src/config/config';
import { parseConfig } from '../../src/config/load-config';
import { RelayTargetSchema, type RelayBatch } from '../../src/config/relay';
import { startGateway, type GatewayOptions } from '../../src/gateway/gateway-server';
import { createSwitchyardWorker } from '../../src/worker';
import { routedCallWorkflowId } from '../../src/workflows/definitions';
import { eventually } from '../support/eventually';
import {
  sdkClients,
  startGatewayHarness,
  terminateBreakers,
  type GatewayHarness,
} from '../support/gateway-harness';
import { uniqueName } from '../support/temporal';
import { fakeProviders, TEST_API_KEYS } from '../support/test-config';

let harness: GatewayHarness;
beforeAll(async () => {
  harness = await startGatewayHarness();
});
afterAll(async () => harness?.close());
beforeEach(() => harness.fake.reset());

const MiB = 1024 * 1024;
const hello = [{ role: 'user' as const, content: 'Say hello' }];
/** How long a raw request waits for an answer before it counts as unanswered, in milliseconds. */
const ANSWER_WAIT_MS = 15_000;

interface RawAnswer {
  /** Undefined when nothing came back in time. */
  readonly status: number | undefined;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * Sends a request's head declaring a `declaredBytes` body and only `sentBytes` of it, and reads what comes back:
 * a server that answers before reading the body answers; one that waits for the body never does.
 */
function partialRequest(
  baseUrl: string,
  target: { path: string; headers: Record<string, string>; declaredBytes: number; sentBytes: number },
): Promise<RawAnswer> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const status = /^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1];
      const headers = Object.fromEntries(
        lines.map((line) => {
          const colon = line.indexOf(':');
          return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
        }),
      );
      resolve({ status: status ? Number(status) : undefined, headers, body: rest.join('\r\n\r\n') });
    };
    const timer = setTimeout(finish, ANSWER_WAIT_MS);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', finish);
    socket.on('error', (error) => (chunks.length > 0 ? finish() : reject(error)));
    socket.on('connect', () => {
      const head = [
        `POST ${target.path} HTTP/1.1`,
        `host: ${url.host}`,
        'content-type: application/json',
        `content-length: ${target.declaredBytes}`,
        ...Object.entries(target.headers).map(([name, value]) => `${name}: ${value}`),
        '',
        '',
      ].join('\r\n');
      socket.write(head);
      socket.write(Buffer.alloc(target.sentBytes, 0x20));
    });
  });
}

/** The id part of a gateway key `sy_<id>_<secret>`. */
const keyIdOf = (key: string) => key.slice(3, 15);

describe('before a body is read', () => {
  test('a missing or wrong key is a 401 in the surface shape, answered while the body is still unsent', async () => {
    await harness.withGateway(async ({ gateway }) => {
      const wrongKey = `sy_000000000000_${'x'.repeat(43)}`;
      const cases: { path: string; headers: Record<string, string>; code: string }[] = [
        {
          path: '/v1/chat/completions',
          headers: { authorization: `Bearer ${wrongKey}` },
          code: 'invalid_api_key',
        },
        { path: '/v1/messages', headers: { 'x-api-key': wrongKey }, code: 'invalid_api_key' },
        { path: '/v1/chat/completions', headers: {}, code: 'missing_api_key' },
      ];
      for (const { path: requestPath, headers, code } of cases) {
        const answer = await partialRequest(gateway.url, {
          path: requestPath,
          headers,
          declaredBytes: MiB,
          sentBytes: 1024,
        });
        expect(answer.status).toBe(401);
        // Closed after the answer: the rest of the body is never read.
        expect(answer.headers.connection).toBe('close');
        // Both shapes carry `error: {type, code}`; Anthropic's adds `type: "error"` around it.
        const body = JSON.parse(answer.body) as { type?: string; error: unknown };
        expect(body.error).toMatchObject({ type: 'authentication_error', code });
        if (requestPath === '/v1/messages') expect(body.type).toBe('error');
      }
    });
  });

  test('a relay push is checked by id and token before its body, and over 1 MiB it is refused', async () => {
    harness.fake.scriptAlways('gpt-primary', { kind: 'hang' });
    await harness.withGateway(async ({ gateway, openai, key, switchyard }) => {
      // A relay id nobody registered: gone, from the headers alone.
      const unknown = await partialRequest(gateway.relayUrl, {
        path: '/switchyard/relay/nobody',
        headers: { authorization: 'Bearer not-a-token' },
        declaredBytes: 8 * MiB,
        sentBytes: 1024,
      });
      expect(unknown.status).toBe(410);
      expect(unknown.headers.connection).toBe('close');

      // A streamed call whose provider hangs keeps its relay registration open; its input holds the target.
      const idempotencyKey = `relay-${Date.now()}`;
      const abort = new AbortController();
      const streaming = openai.chat.completions
        .create(
          { model: 'support', messages: hello, stream: true },
          { headers: { 'Idempotency-Key': idempotencyKey }, signal: abort.signal },
        )
        .catch(() => undefined);
      const workflowId = routedCallWorkflowId(`gw-${keyIdOf(key)}-${idempotencyKey}`);
      const input = await eventually(
        'the streamed call has started',
        async () => {
          const history = await switchyard.temporal.workflow
            .getHandle(workflowId)
            .fetchHistory()
            .catch(() => undefined);
          const payload = history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
          return payload
            ? (switchyard.temporal.options.loadedDataConverter.payloadConverter.fromPayload(payload) as {
                relay?: unknown;
              })
            : undefined;
        },
        (value) => value !== undefined,
      );
      const relay = RelayTargetSchema.parse(input!.relay);
      const relayPath = new URL(relay.url).pathname;

      const wrongToken = await partialRequest(gateway.relayUrl, {
        path: relayPath,
        headers: { authorization: `Bearer ${'A'.repeat(43)}` },
        declaredBytes: 8 * MiB,
        sentBytes: 1024,
      });
      expect(wrongToken.status).toBe(401);
      expect(wrongToken.headers.connection).toBe('close');

      // With the right token, a well-formed batch of 1.5 MiB is still more than a push carries.
      const batch: RelayBatch = {
        attemptId: 'attempt-large',
        target: { provider: 'openai', model: 'gpt-primary' },
        sequence: 0,
        deltas: [{ type: 'text', text: 'z'.repeat(1.5 * MiB) }],
      };
      const large = await fetch(relay.url, {
        method: 'POST',
        headers: { authorization: `Bearer ${relay.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(batch),
      });
      expect(large.status).toBe(413);
      abort.abort();
      await streaming;
      await switchyard.handle(workflowId).cancel();
    });
  });

  test('the relay can have a listener of its own: streams go through it, and the client listener has no relay', async () => {
    harness.fake.script('gpt-primary', { kind: 'answer', text: 'one two three four', chunkDelayMs: 50 });
    await harness.withGateway(
      async ({ gateway, openai }) => {
        expect(new URL(gateway.relayUrl).port).not.toBe(new URL(gateway.url).port);
        const stream = await openai.chat.completions.create({
          model: 'support',
          messages: hello,
          stream: true,
        });
        const pieces: string[] = [];
        for await (const chunk of stream) {
          const text = chunk.choices[0]?.delta?.content;
          if (text) pieces.push(text);
        }
        expect(pieces.join('')).toBe('one two three four');
        // Relayed piece by piece, not only written from the answer at the end.
        expect(pieces.length).toBeGreaterThan(1);
        const onClientListener = await fetch(`${gateway.url}/switchyard/relay/anything`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        });
        expect(onClientListener.status).toBe(404);
      },
      { relayPort: 0 },
    );
  });
});

describe('bounds', () => {
  test('connections beyond maxConnections are closed as they arrive', async () => {
    await harness.withGateway(
      async ({ gateway }) => {
        const url = new URL(gateway.url);
        const open = (): Promise<Socket> =>
          new Promise((resolve, reject) => {
            const socket = connect(Number(url.port), url.hostname, () => resolve(socket));
            socket.on('error', reject);
          });
        const health = (socket: Socket): Promise<string> =>
          new Promise((resolve) => {
            let text = '';
            socket.on('data', (chunk: Buffer) => {
              text += chunk.toString('utf8');
              if (text.includes('\r\n\r\n')) resolve(text);
            });
            socket.on('close', () => resolve(text));
            socket.on('error', () => resolve(text));
            socket.write(`GET /healthz HTTP/1.1\r\nhost: ${url.host}\r\n\r\n`);
          });
        const first = await open();
        const second = await open();
        const extra: Socket[] = [];
        try {
          expect(await health(first)).toMatch(/^HTTP\/1\.1 200/);
          const third = await open();
          extra.push(third);
          expect(await health(third)).toBe('');
          first.destroy();
          await eventually(
            'a connection is taken again once one closes',
            async () => {
              const socket = await open();
              extra.push(socket);
              return health(socket);
            },
            (text) => text.startsWith('HTTP/1.1 200'),
            { timeoutMs: 10_000 },
          );
        } finally {
          for (const socket of [first, second, ...extra]) socket.destroy();
        }
      },
      { maxConnections: 2 },
    );
  });

  test('a key with as many requests in flight as its cap gets 429 with retry-after; other keys go on', async () => {
    harness.fake.scriptAlways('gpt-primary', { kind: 'hang' });
    harness.fake.scriptAlways('claude-secondary', { kind: 'answer', text: 'quick' });
    await harness.withGateway(
      async ({ gateway, makeKey, openai, anthropic }) => {
        const abort = new AbortController();
        const held = [1, 2].map(() =>
          openai.chat.completions
            .create({ model: 'support', messages: hello }, { signal: abort.signal })
            .catch(() => undefined),
        );
        await eventually(
          'both calls reached the provider',
          async () => harness.fake.requestsFor('gpt-primary').length,
          (count) => count === 2,
        );

        try {
          const overOpenAI = await openai.chat.completions
            .create({ model: 'reverse', messages: hello })
            .catch((error: unknown) => error);
          expect(overOpenAI).toBeInstanceOf(OpenAI.RateLimitError);
          const openaiError = overOpenAI as InstanceType<typeof OpenAI.RateLimitError>;
          expect(openaiError.headers.get('retry-after')).toBe('1');
          expect(openaiError.error).toMatchObject({
            type: 'rate_limit_exceeded',
            code: 'too_many_concurrent_requests',
          });
          const overAnthropic = await anthropic.messages
            .create({ model: 'reverse', max_tokens: 16, messages: hello })
            .catch((error: unknown) => error);
          expect(overAnthropic).toBeInstanceOf(Anthropic.RateLimitError);
          expect((overAnthropic as InstanceType<typeof Anthropic.RateLimitError>).error).toMatchObject({
            type: 'error',
            error: { type: 'rate_limit_error', code: 'too_many_concurrent_requests' },
          });

          const other = sdkClients(gateway.url, makeKey({ routes: ['*'] })).openai;
          const answer = await other.chat.completions.create({ model: 'reverse', messages: hello });
          expect(answer.choices[0]!.message.content).toBe('quick');
        } finally {
          abort.abort();
          await Promise.all(held);
        }
        await answersOnceRoom(openai, 'the key has room again once its requests ended');
      },
      { maxConcurrentRequestsPerKey: 2 },
    );
  });

  test('beyond the gateway-wide cap every key gets 503 overloaded with retry-after; room again once one ends', async () => {
    harness.fake.scriptAlways('gpt-primary', { kind: 'hang' });
    harness.fake.scriptAlways('claude-secondary', { kind: 'answer', text: 'quick' });
    await harness.withGateway(
      async ({ gateway, makeKey, openai }) => {
        const abort = new AbortController();
        // Two requests of two different keys fill the gateway; neither key is anywhere near its own cap.
        const second = sdkClients(gateway.url, makeKey({ routes: ['*'] })).openai;
        const held = [openai, second].map((client) =>
          client.chat.completions
            .create({ model: 'support', messages: hello }, { signal: abort.signal })
            .catch(() => undefined),
        );
        await eventually(
          'both calls reached the provider',
          async () => harness.fake.requestsFor('gpt-primary').length,
          (count) => count === 2,
        );
        try {
          const third = sdkClients(gateway.url, makeKey({ routes: ['*'] }));
          const overOpenAI = await third.openai.chat.completions
            .create({ model: 'reverse', messages: hello })
            .catch((error: unknown) => error);
          expect(overOpenAI).toBeInstanceOf(OpenAI.InternalServerError);
          const openaiError = overOpenAI as InstanceType<typeof OpenAI.InternalServerError>;
          expect(openaiError.status).toBe(503);
          expect(openaiError.headers.get('retry-after')).toBe('1');
          expect(openaiError.error).toMatchObject({ type: 'service_unavailable', code: 'overloaded' });
          const overAnthropic = await third.anthropic.messages
            .create({ model: 'reverse', max_tokens: 16, messages: hello })
            .catch((error: unknown) => error);
          expect(overAnthropic).toBeInstanceOf(Anthropic.InternalServerError);
          expect((overAnthropic as InstanceType<typeof Anthropic.InternalServerError>).error).toMatchObject({
            type: 'error',
            error: { type: 'overloaded_error', code: 'overloaded' },
          });
          // Nothing of the refused requests started: the provider saw only the two held ones.
          expect(harness.fake.requestsFor('claude-secondary')).toHaveLength(0);
        } finally {
          abort.abort();
          await Promise.all(held);
        }
        await answersOnceRoom(openai, 'the gateway has room again once its requests ended');
      },
      { maxConcurrentRequests: 2 },
    );
  });
});

/** Waits until a `reverse` call through `openai` is answered (`quick`) again: a cap freed its slot. */
function answersOnceRoom(openai: OpenAI, what: string): Promise<string | null | undefined> {
  return eventually(
    what,
    () =>
      openai.chat.completions
        .create({ model: 'reverse', messages: hello })
        .then((done) => done.choices[0]!.message.content)
        .catch((error: { status?: number }) => `status ${error.status}`),
    (text) => text === 'quick',
    { timeoutMs: 10_000 },
  );
}

describe('body limit', () => {
  test('without a payload store the limit is the Temporal payload limit, and a larger body is a 413 saying how to raise it', async () => {
    await harness.withGateway(async ({ gateway, openai, anthropic }) => {
      const large = 'x'.repeat(2.5 * MiB);
      const overOpenAI = await openai.chat.completions
        .create({ model: 'support', messages: [{ role: 'user', content: large }] })
        .catch((error: unknown) => error);
      expect(overOpenAI).toBeInstanceOf(OpenAI.APIError);
      const openaiError = overOpenAI as InstanceType<typeof OpenAI.APIError>;
      expect(openaiError.status).toBe(413);
      expect(openaiError.error).toMatchObject({ type: 'invalid_request_error', code: 'request_too_large' });
      const message = (openaiError.error as { message: string }).message;
      expect(message).toContain('limit of 2097152 bytes');
      expect(message).toContain('SWITCHYARD_PAYLOAD_STORE_DIR');

      const overAnthropic = await anthropic.messages
        .create({ model: 'support', max_tokens: 16, messages: [{ role: 'user', content: large }] })
        .catch((error: unknown) => error);
      expect((overAnthropic as InstanceType<typeof Anthropic.APIError>).status).toBe(413);
      expect((overAnthropic as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
        type: 'error',
        error: { type: 'request_too_large', code: 'request_too_large' },
      });
      expect(gateway.bodyLimitBytes).toBe(2 * MiB);
    });
    expect(harness.fake.requests).toHaveLength(0);
  });

  test('with a payload store the limit is what the providers take: a 5 MiB request is answered', async () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'switchyard-gateway-store-'));
    const providers = fakeProviders(harness.fake, { openai: ['gpt-long'], anthropic: [] });
    // A long-context model: the window must hold a several-megabyte prompt's token bound.
    for (const model of Object.values(providers.openai.models))
      Object.assign(model, { contextWindow: 50_000_000 });
    const config = parseConfig({
      providers,
      routes: { long: { targets: [{ provider: 'openai', model: 'gpt-long', timeoutMs: 30_000 }] } },
      defaultRoute: 'long',
    });
    const dataConverter = switchyardDataConverter({
      payloadStore: { store: new FilesystemPayloadStore(directory), thresholdBytes: 256 * 1024 },
    });
    harness.fake.script('gpt-long', { kind: 'answer', text: 'read it all' });
    try {
      await withOwnGateway(
        {
          config,
          client: new Client({ connection: harness.temporal.client.connection, dataConverter }),
          dataConverter,
        },
        async ({ gateway, key }) => {
          const { openai } = sdkClients(gateway.url, key);
          const answer = await openai.chat.completions.create({
            model: 'long',
            messages: [{ role: 'user', content: 'w '.repeat(2.5 * MiB) }],
          });
          expect(answer.choices[0]!.message.content).toBe('read it all');
          expect(gateway.bodyLimitBytes).toBe(32 * MiB);
        },
      );
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe('a caller who leaves while its call is being started', () => {
  /** Holds every workflow start until released, and tells which workflow it holds. */
  function startGate() {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let reached!: (workflowId: string) => void;
    const held = new Promise<string>((resolve) => (reached = resolve));
    const interceptor: WorkflowClientInterceptor = {
      async startWithDetails(input, next) {
        reached(input.options.workflowId);
        await released;
        return next(input);
      },
    };
    return { interceptor, held, release };
  }

  /** Sends a whole call request, waits until its start is held, then leaves and lets the start go on. */
  async function leaveDuringStart(
    gatewayUrl: string,
    key: string,
    gate: ReturnType<typeof startGate>,
    body: unknown,
    headers: Record<string, string> = {},
  ): Promise<string> {
    const url = new URL(gatewayUrl);
    const text = JSON.stringify(body);
    const socket = connect(Number(url.port), url.hostname);
    socket.on('error', () => undefined);
    await new Promise((resolve) => socket.on('connect', resolve));
    socket.write(
      [
        'POST /v1/chat/completions HTTP/1.1',
        `host: ${url.host}`,
        'content-type: application/json',
        `authorization: Bearer ${key}`,
        `content-length: ${Buffer.byteLength(text)}`,
        ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
        '',
        text,
      ].join('\r\n'),
    );
    const workflowId = await gate.held;
    socket.destroy();
    // Let the gateway see the connection close while the start is still held.
    await delay(300);
    gate.release();
    return workflowId;
  }

  for (const stream of [false, true]) {
    test(`${stream ? 'a streamed' : 'a JSON'} call is cancelled and its provider request aborted`, async () => {
      harness.fake.scriptAlways('gpt-primary', { kind: 'answer', text: 'too late', delayMs: 4_000 });
      const gate = startGate();
      const client = new Client({
        connection: harness.temporal.client.connection,
        interceptors: { workflow: [gate.interceptor] },
      });
      await withOwnGateway({ config: harness.config, client }, async ({ gateway, key, switchyard }) => {
        const workflowId = await leaveDuringStart(gateway.url, key, gate, {
          model: 'support',
          messages: hello,
          stream,
        });
        await eventually(
          'the call whose caller left is cancelled',
          () => inspectWhenStarted(switchyard, workflowId),
          (call) => call?.status === 'CANCELLED',
          { timeoutMs: 30_000 },
        );
        // Every provider request ended without an answer (none may have been sent); nothing was billed.
        await eventually(
          'the provider requests were aborted',
          async () => harness.fake.counters('gpt-primary'),
          (counters) => counters.requests === counters.failed,
          { timeoutMs: 30_000 },
        );
        expect(harness.fake.counters('gpt-primary').answered).toBe(0);
        expect(harness.fake.billed('gpt-primary').answers).toBe(0);
      });
    });
  }

  test('with an Idempotency-Key the call outlives its caller', async () => {
    harness.fake.scriptAlways('gpt-primary', { kind: 'answer', text: 'kept', delayMs: 1_000 });
    const gate = startGate();
    const client = new Client({
      connection: harness.temporal.client.connection,
      interceptors: { workflow: [gate.interceptor] },
    });
    await withOwnGateway({ config: harness.config, client }, async ({ gateway, key, switchyard }) => {
      const workflowId = await leaveDuringStart(
        gateway.url,
        key,
        gate,
        { model: 'support', messages: hello },
        { 'idempotency-key': `outlive-${Date.now()}` },
      );
      const call = await eventually(
        'the call goes on',
        () => inspectWhenStarted(switchyard, workflowId),
        (inspected) => inspected?.status === 'COMPLETED',
        { timeoutMs: 30_000 },
      );
      expect(call?.answer?.text).toBe('kept');
    });
  });
});

/** The call, or undefined while its start (held by the test) has not reached the server yet. */
function inspectWhenStarted(switchyard: SwitchyardClient, workflowId: string) {
  return switchyard.inspect(workflowId).catch((error: unknown) => {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  });
}

/** A worker and a gateway over a Temporal client of the test's own (with a data converter, an interceptor). */
async function withOwnGateway<T>(
  setup: { config: Config; client: Client; dataConverter?: ReturnType<typeof switchyardDataConverter> },
  body: (context: {
    gateway: Awaited<ReturnType<typeof startGateway>>;
    key: string;
    switchyard: SwitchyardClient;
  }) => Promise<T>,
  options: Partial<GatewayOptions> = {},
): Promise<T> {
  await terminateBreakers(harness.temporal, setup.config);
  const taskQueue = uniqueName('switchyard-gateway-limits');
  const worker = await createSwitchyardWorker({
    config: setup.config,
    connection: harness.temporal.nativeConnection,
    taskQueue,
    workflowBundle: harness.bundle,
    providers: createProviderRegistry(setup.config, { ...TEST_API_KEYS }),
    ...(setup.dataConverter ? { dataConverter: setup.dataConverter } : {}),
  });
  const switchyard = new SwitchyardClient({ client: setup.client, taskQueue, config: setup.config });
  const gateway = await startGateway({
    switchyard,
    config: setup.config,
    keys: harness.keys,
    port: 0,
    ...options,
  });
  const key = harness.keys.create({ routes: ['*'] }).key;
  try {
    return await worker.runUntil(body({ gateway, key, switchyard }));
  } finally {
    await gateway.close();
  }
}

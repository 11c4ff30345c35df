// The gateway's HTTP server (Fastify): the OpenAI and Anthropic surfaces, the model list, the relay endpoint. Node side.
import { createHash } from 'node:crypto';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import type { RoutedCallHandle, SwitchyardClient } from '../client/switchyard-client';
import type { Config } from '../config/config';
import type { RoutedCallResult } from '../routing/routing-record';
import { anthropicSurface } from './anthropic-surface';
import { prepareCall, type PreparedCall } from './call-input';
import { ALL_ROUTES, keyAllowsRoute, type StoredKey } from './gateway-key';
import { GatewayError, GatewayErrorKind, toGatewayError } from './gateway-error';
import type { KeyStore } from './key-store';
import { openAISurface } from './openai-surface';
import { RELAY_PATH, RelayHub } from './relay-hub';
import { ROUTING_HEADERS, routingHeaders, summaryOf } from './routing-summary';
import { StreamedResponse } from './streamed-response';
import type { ResponseIdentity, Surface, SurfaceRequest } from './surface';

export interface GatewayOptions {
  /** Starts and reads the routed calls; give it the config so unknown routes are refused before starting. */
  readonly switchyard: SwitchyardClient;
  /** The routes (and default route) the gateway offers. */
  readonly config: Config;
  readonly keys: KeyStore;
  /** Address to bind. @default '127.0.0.1' */
  readonly host?: string;
  /** TCP port; 0 picks a free one. @default 4000 */
  readonly port?: number;
  /**
   * This gateway's base URL as the workers reach it: streamed attempts push their output to
   * `<relayUrl>/switchyard/relay/<id>`. Each gateway gives its own, so pieces reach the gateway holding the
   * caller. @default `http://<host>:<port>` (required when binding a wildcard address)
   */
  readonly relayUrl?: string;
  /** Largest request body accepted, in bytes (413 beyond). @default 4 MiB */
  readonly bodyLimitBytes?: number;
  /**
   * How long one request may take, in milliseconds: it is the routed call's whole-call deadline, and the
   * gateway answers 504 (the call's record still in history) if the call has not ended shortly after.
   * @default 300000
   */
  readonly callTimeoutMs?: number;
  /** Receives one line per request (method, path, status, milliseconds, workflow id); never a key or a body. */
  readonly onRequestLog?: (line: string) => void;
}

export interface Gateway {
  /** Where clients reach it, e.g. `http://127.0.0.1:4000` (the SDKs' base URL adds `/v1`). */
  readonly url: string;
  readonly relayUrl: string;
  /** Streamed requests in flight. */
  readonly openStreams: number;
  close(): Promise<void>;
}

const DEFAULT_BODY_LIMIT_BYTES = 4 * 1024 * 1024;
const DEFAULT_CALL_TIMEOUT_MS = 300_000;
/** Beyond the call's deadline, how long the gateway still waits for the workflow to report it, in milliseconds. */
const WAIT_GRACE_MS = 15_000;
const RELAY_BODY_LIMIT_BYTES = 16 * 1024 * 1024;

const WILDCARD_HOSTS = ['0.0.0.0', '::', '[::]'];

function surfaceOfUrl(url: string): Surface {
  return url.startsWith('/v1/messages') ? anthropicSurface : openAISurface;
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** OpenAI clients send `Authorization: Bearer`, Anthropic clients `x-api-key`: both work on both surfaces. */
function presentedKey(request: FastifyRequest): string | undefined {
  return (
    /^Bearer\s+(\S+)$/i.exec(header(request, 'authorization') ?? '')?.[1] ?? header(request, 'x-api-key')
  );
}

function identityOf(surface: Surface, workflowId: string, model: string): ResponseIdentity {
  const digest = createHash('sha256').update(workflowId).digest('hex').slice(0, 24);
  return {
    id: surface.name === 'openai' ? `chatcmpl-${digest}` : `msg_${digest}`,
    model,
    created: Math.floor(Date.now() / 1000),
  };
}

export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const host = options.host ?? '127.0.0.1';
  const callTimeoutMs = options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  if (options.relayUrl === undefined && WILDCARD_HOSTS.includes(host)) {
    throw new GatewayError(
      `relayUrl: binding ${host}, the gateway cannot tell which of its addresses the workers reach; give it`,
      GatewayErrorKind.invalidRequest,
      'invalid_option',
    );
  }
  const { config, keys, switchyard } = options;
  const app = Fastify({
    logger: false,
    bodyLimit: options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES,
    // Time to receive a whole request; a call's own time is callTimeoutMs.
    requestTimeout: 60_000,
    return503OnClosing: true,
  });
  const hub = new RelayHub();
  const started = new WeakMap<FastifyRequest, number>();
  const workflowOf = new WeakMap<FastifyRequest, string>();

  app.addHook('onRequest', async (request) => {
    started.set(request, performance.now());
  });
  const log = (request: FastifyRequest, status: number) => {
    if (!options.onRequestLog) return;
    const ms = Math.round(performance.now() - (started.get(request) ?? performance.now()));
    const workflowId = workflowOf.get(request);
    options.onRequestLog(
      `${request.method} ${request.url.split('?')[0]} ${status} ${ms}ms${workflowId ? ` ${workflowId}` : ''}`,
    );
  };
  app.addHook('onResponse', async (request, reply) => log(request, reply.statusCode));

  const sendError = (request: FastifyRequest, reply: FastifyReply, error: GatewayError) => {
    const surface = surfaceOfUrl(request.url);
    const routing = error.context.workflowId
      ? summaryOf(error.context.workflowId, undefined, error.context.record)
      : undefined;
    void reply
      .code(error.status)
      .headers({
        ...(routing ? routingHeaders(routing) : {}),
        [ROUTING_HEADERS.errorType]: error.code,
        ...(error.context.retryAfterSeconds !== undefined
          ? { 'retry-after': String(error.context.retryAfterSeconds) }
          : {}),
        // The gateway already failed over and retried: an SDK retrying on its own would only start it again.
        ...(error.kind === GatewayErrorKind.unavailable ? {} : { 'x-should-retry': 'false' }),
      })
      .send(surface.errorBody(error, routing));
  };

  app.setErrorHandler((error, request, reply) => {
    const fastifyError = error as { statusCode?: number; code?: string };
    let converted: GatewayError;
    if (error instanceof GatewayError) converted = error;
    else if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      converted = new GatewayError(
        `the request body is over the gateway's limit of ${options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES} bytes`,
        GatewayErrorKind.requestTooLarge,
        'request_too_large',
      );
    } else if (fastifyError.statusCode !== undefined && fastifyError.statusCode < 500) {
      // Unparsable JSON, a wrong content type: Fastify's message names what is wrong and holds no body text.
      converted = new GatewayError(
        (error as Error).message,
        GatewayErrorKind.invalidRequest,
        'invalid_request',
      );
    } else converted = toGatewayError(error);
    sendError(request, reply, converted);
  });

  const authenticate = (request: FastifyRequest): StoredKey => {
    const presented = presentedKey(request);
    if (presented === undefined) {
      throw new GatewayError(
        'no API key: send a Switchyard gateway key as "Authorization: Bearer <key>" or "x-api-key"',
        GatewayErrorKind.authentication,
        'missing_api_key',
      );
    }
    const key = keys.verify(presented);
    if (!key) {
      throw new GatewayError(
        'invalid or revoked gateway key',
        GatewayErrorKind.authentication,
        'invalid_api_key',
      );
    }
    return key;
  };

  /** Waits for the call within the request's time; a call still running after it is a 504 that names it. */
  const waitForResult = async (handle: RoutedCallHandle): Promise<RoutedCallResult> => {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), callTimeoutMs + WAIT_GRACE_MS);
    try {
      return await switchyard.temporal.withAbortSignal(abort.signal, () => handle.result());
    } catch (error) {
      if (!abort.signal.aborted) throw error;
      throw new GatewayError(
        `the call did not end within ${Math.round((callTimeoutMs + WAIT_GRACE_MS) / 1000)} s; it goes on as ` +
          `workflow ${handle.workflowId} (ask again with the same Idempotency-Key for its answer)`,
        GatewayErrorKind.timeout,
        'GatewayTimeout',
        { workflowId: handle.workflowId },
      );
    } finally {
      clearTimeout(timer);
    }
  };

  /** Cancels the call when its caller leaves first, unless an Idempotency-Key asked it to outlive the caller. */
  const cancelWhenCallerLeaves = (
    reply: FastifyReply,
    prepared: PreparedCall,
    handle: () => RoutedCallHandle | undefined,
  ) => {
    reply.raw.on('close', () => {
      if (reply.raw.writableFinished || prepared.idempotent) return;
      handle()
        ?.cancel()
        .catch(() => undefined);
    });
  };

  const answerCall = async (surface: Surface, request: FastifyRequest, reply: FastifyReply) => {
    const key = authenticate(request);
    const parsed = surface.parse(request.body);
    const prepared = prepareCall({
      surface,
      parsed,
      key,
      config,
      idempotencyKey: header(request, 'idempotency-key'),
      deadlineMs: callTimeoutMs,
    });
    workflowOf.set(request, prepared.workflowId);
    if (parsed.stream) return streamCall(surface, parsed, request, reply, prepared);

    let handle: RoutedCallHandle | undefined;
    cancelWhenCallerLeaves(reply, prepared, () => handle);
    try {
      handle = await switchyard.start(prepared.input, { idempotencyKey: prepared.callKey });
      const result = await waitForResult(handle);
      const routing = summaryOf(prepared.workflowId, prepared.route, result.record);
      const identity = identityOf(surface, prepared.workflowId, result.record.servedBy?.model ?? 'unknown');
      return reply.headers(routingHeaders(routing)).send(surface.answer(result.answer, identity, routing));
    } catch (error) {
      const converted = toGatewayError(error);
      throw converted.context.workflowId
        ? converted
        : new GatewayError(converted.message, converted.kind, converted.code, {
            ...converted.context,
            workflowId: prepared.workflowId,
          });
    }
  };

  const streamCall = async (
    surface: Surface,
    parsed: SurfaceRequest,
    request: FastifyRequest,
    reply: FastifyReply,
    prepared: PreparedCall,
  ) => {
    // From here on the response is written by hand, event by event.
    reply.hijack();
    const registration = hub.open();
    const streamed = new StreamedResponse({
      surface,
      renderer: surface.streamRenderer(parsed),
      response: reply.raw,
      workflowId: prepared.workflowId,
      route: prepared.route,
      identity: (model) => identityOf(surface, prepared.workflowId, model),
    });
    // Set before the call starts: its first attempt may push before start() has even returned.
    registration.onBatch = (batch) => streamed.accept(batch);
    let handle: RoutedCallHandle | undefined;
    reply.raw.on('close', () => {
      if (reply.raw.writableFinished) return;
      registration.close();
      if (!prepared.idempotent) handle?.cancel().catch(() => undefined);
    });
    try {
      handle = await switchyard.start(
        { ...prepared.input, relay: registration.target },
        { idempotencyKey: prepared.callKey },
      );
      streamed.finish(await waitForResult(handle));
    } catch (error) {
      const converted = toGatewayError(error);
      streamed.fail(
        new GatewayError(converted.message, converted.kind, converted.code, {
          ...converted.context,
          workflowId: prepared.workflowId,
        }),
      );
    } finally {
      // Fastify's onResponse hook still logs the hijacked response when it ends.
      registration.close();
    }
  };

  app.post('/v1/chat/completions', (request, reply) => answerCall(openAISurface, request, reply));
  app.post('/v1/messages', (request, reply) => answerCall(anthropicSurface, request, reply));

  // One list both SDKs read: OpenAI's `{object, data: [{id, object, owned_by}]}` and Anthropic's
  // `{data: [{id, type, display_name}], has_more}` side by side.
  app.get('/v1/models', async (request) => {
    const key = authenticate(request);
    const names = Object.keys(config.routes).filter((name) => keyAllowsRoute(key, name));
    const data = names.map((name) => ({
      id: name,
      object: 'model',
      type: 'model',
      display_name: name === config.defaultRoute ? `${name} (default route)` : name,
      created: 0,
      created_at: new Date(0).toISOString(),
      owned_by: 'switchyard',
    }));
    return {
      object: 'list',
      data,
      has_more: false,
      first_id: data[0]?.id ?? null,
      last_id: data[data.length - 1]?.id ?? null,
    };
  });

  app.get('/healthz', async () => ({ ok: true }));

  app.post<{ Params: { relayId: string } }>(
    `${RELAY_PATH}/:relayId`,
    { bodyLimit: RELAY_BODY_LIMIT_BYTES },
    async (request, reply) => {
      const status = hub.receive(request.params.relayId, header(request, 'authorization'), request.body);
      return reply.code(status).send({ status });
    },
  );

  await app.listen({ host, port: options.port ?? 4000 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : (options.port ?? 4000);
  const shownHost = host.includes(':') ? `[${host}]` : host;
  const url = `http://${shownHost}:${port}`;
  const relayUrl = (options.relayUrl ?? url).replace(/\/$/, '');
  hub.listenAt(relayUrl);
  return {
    url,
    relayUrl,
    get openStreams() {
      return hub.size;
    },
    close: () => app.close(),
  };
}

/** Every route a key may use, for showing it: `*` stands for all. */
export function describeKeyRoutes(key: Pick<StoredKey, 'routes'>): string {
  return key.routes.includes(ALL_ROUTES) ? 'every route' : key.routes.join(', ');
}

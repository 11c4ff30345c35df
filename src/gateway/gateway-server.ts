// The gateway's HTTP server (Fastify): its listeners, limits and routes put together. Node side.
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { callInputSizeRules } from '../client/call-input-size';
import type { SwitchyardClient } from '../client/switchyard-client';
import type { Config } from '../config/config';
import { bodyLimitOf } from './body-limit';
import { registerCallRoutes, type CallRoutes } from './call-routes';
import { answerErrorsInSurfaceShape } from './error-reply';
import { requireGatewayKey } from './gateway-authentication';
import { addKeysHealth } from './gateway-health';
import { ALL_ROUTES, type StoredKey } from './gateway-key';
import { clientRuntimeRoutes, createGatewayRoutes } from './gateway-routes';
import { GatewayError, GatewayErrorKind } from './gateway-error';
import { KeyConcurrency } from './key-concurrency';
import type { KeyPolicy } from './key-policy';
import type { KeyStore } from './key-store';
import { registerGenerationRoute } from './generation-route';
import { registerModelsRoute } from './models-route';
import { registerPlanRoute } from './plan-route';
import { EndingCalls } from './ending-calls';
import { RelayHub } from './relay-hub';
import { registerRelayRoute } from './relay-route';
import { traceRequests } from './request-span';
import { registerResponsesRoutes } from './responses-routes';

export interface GatewayOptions {
  /** Starts and reads the routed calls; give it the config so unknown routes are refused before starting. */
  readonly switchyard: SwitchyardClient;
  /**
   * The routes (and default route) the gateway offers, with the routes changed at runtime overlaid (read through
   * `switchyard.routes`, at most once per `routeRefreshMs`).
   */
  readonly config: Config;
  /**
   * How long the gateway uses its copy of the runtime routes before reading the registry again, in milliseconds: a
   * route set or deleted at runtime reaches the gateway's requests this long after the change at most.
   * @default `SWITCHYARD_ROUTE_REFRESH_MS`, else 2000
   */
  readonly routeRefreshMs?: number;
  readonly keys: KeyStore;
  /** Rules every key is held to on every request, so a key added by hand cannot slip past them. @default none */
  readonly keyPolicy?: KeyPolicy;
  /** Address to bind. @default '127.0.0.1' */
  readonly host?: string;
  /** TCP port; 0 picks a free one. @default 4000 */
  readonly port?: number;
  /**
   * This gateway's base URL as the workers reach it: streamed attempts push their output to
   * `<relayUrl>/switchyard/relay/<id>`. Each gateway gives its own, so pieces reach the gateway holding the
   * caller. @default the relay listener's `http://<host>:<port>` (required when it binds a wildcard address)
   */
  readonly relayUrl?: string;
  /**
   * Serves the relay on a listener of its own at this TCP port (0 picks a free one), e.g. on the internal
   * network only, and no longer on the client-facing one. @default none (the relay shares the client listener)
   */
  readonly relayPort?: number;
  /** Address the relay's own listener binds; only with `relayPort`. @default `host` */
  readonly relayHost?: string;
  /**
   * Largest request body accepted, in bytes (413 beyond, naming it). @default with a payload store on the
   * client, 33554432 (32 MiB, what the providers take); without, the client's Temporal payload limit (2097152
   * unless `SWITCHYARD_PAYLOAD_LIMIT_BYTES` says otherwise), as a larger call could not start anyway
   */
  readonly bodyLimitBytes?: number;
  /**
   * Most TCP connections each listener keeps open at once; further ones are closed as they arrive.
   * @default 1024
   */
  readonly maxConnections?: number;
  /**
   * Most requests one gateway key may have in flight at once; one more is a 429 with `retry-after`.
   * @default 32
   */
  readonly maxConcurrentRequestsPerKey?: number;
  /**
   * Most requests the gateway has in flight at once, all keys together; one more is a 503 `overloaded` with
   * `retry-after`, which clients retry. Calls it accepted wait in Temporal's queue for a free worker.
   * @default 1024
   */
  readonly maxConcurrentRequests?: number;
  /**
   * How long one request may take, in milliseconds: it is the routed call's whole-call deadline, and the
   * gateway answers 504 (the call's record still in history) if the call has not ended shortly after.
   * @default 300000
   */
  readonly callTimeoutMs?: number;
  /**
   * Whether Chat Completions and Messages answers go out as soon as their attempt has the answer in history,
   * ahead of the call's record; false waits for each call to end. Workers older than this gateway do not take
   * such calls (a JSON call fails): upgrade the workers first, or run the gateway with false until then.
   * @default true
   */
  readonly earlyAnswers?: boolean;
  /** Receives one line per request (method, path, status, milliseconds, workflow id); never a key or a body. */
  readonly onRequestLog?: (line: string) => void;
}

export interface Gateway {
  /** Where clients reach it, e.g. `http://127.0.0.1:4000` (the SDKs' base URL adds `/v1`). */
  readonly url: string;
  readonly relayUrl: string;
  /** Largest request body accepted, in bytes. */
  readonly bodyLimitBytes: number;
  /** Most requests one key may have in flight at once. */
  readonly maxConcurrentRequestsPerKey: number;
  /** Most requests the gateway has in flight at once, all keys together. */
  readonly maxConcurrentRequests: number;
  /** Streamed requests in flight, and whole-answer requests still waiting for their answer. */
  readonly openStreams: number;
  close(): Promise<void>;
}

const DEFAULT_CALL_TIMEOUT_MS = 300_000;
export const DEFAULT_MAX_CONNECTIONS = 1024;
export const DEFAULT_MAX_CONCURRENT_REQUESTS_PER_KEY = 32;
export const DEFAULT_MAX_CONCURRENT_REQUESTS = 1024;
/** Time to receive a whole request, in milliseconds; a call's own time is `callTimeoutMs`. */
const REQUEST_RECEIVE_TIMEOUT_MS = 60_000;

const WILDCARD_HOSTS = ['0.0.0.0', '::', '[::]'];

function listener(bodyLimitBytes: number, maxConnections: number): FastifyInstance {
  const app = Fastify({
    logger: false,
    bodyLimit: bodyLimitBytes,
    requestTimeout: REQUEST_RECEIVE_TIMEOUT_MS,
    return503OnClosing: true,
  });
  app.server.maxConnections = maxConnections;
  return app;
}

async function listen(app: FastifyInstance, host: string, port: number): Promise<string> {
  await app.listen({ host, port });
  const address = app.server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  return `http://${host.includes(':') ? `[${host}]` : host}:${bound}`;
}

export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const host = options.host ?? '127.0.0.1';
  const relayHost = options.relayHost ?? host;
  if (options.relayHost !== undefined && options.relayPort === undefined) {
    throw new GatewayError(
      'relayHost: give relayPort too (the relay gets a listener of its own only with a port)',
      GatewayErrorKind.invalidRequest,
      'invalid_option',
    );
  }
  const ownRelayListener = options.relayPort !== undefined;
  const relayBindHost = ownRelayListener ? relayHost : host;
  if (options.relayUrl === undefined && WILDCARD_HOSTS.includes(relayBindHost)) {
    throw new GatewayError(
      `relayUrl: binding ${relayBindHost}, the gateway cannot tell which of its addresses the workers reach; give it`,
      GatewayErrorKind.invalidRequest,
      'invalid_option',
    );
  }
  const { config, keys, switchyard } = options;
  const bodyLimit = bodyLimitOf(
    callInputSizeRules(switchyard.temporal.options.loadedDataConverter.payloadCodecs),
    options.bodyLimitBytes,
  );
  const maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  const app = listener(bodyLimit.bytes, maxConnections);
  const hub = new RelayHub();
  const ending = new EndingCalls();
  const started = new WeakMap<FastifyRequest, number>();
  const workflowOf = new WeakMap<FastifyRequest, string>();

  app.addHook('onRequest', async (request) => {
    started.set(request, performance.now());
  });
  app.addHook('onResponse', async (request, reply) => {
    if (!options.onRequestLog) return;
    const ms = Math.round(performance.now() - (started.get(request) ?? performance.now()));
    const workflowId = workflowOf.get(request);
    options.onRequestLog(
      `${request.method} ${request.url.split('?')[0]} ${reply.statusCode} ${ms}ms${workflowId ? ` ${workflowId}` : ''}`,
    );
  });
  answerErrorsInSurfaceShape(app, bodyLimit);

  const concurrency = new KeyConcurrency(
    options.maxConcurrentRequestsPerKey ?? DEFAULT_MAX_CONCURRENT_REQUESTS_PER_KEY,
  );
  const gatewayConcurrency = new KeyConcurrency(
    options.maxConcurrentRequests ?? DEFAULT_MAX_CONCURRENT_REQUESTS,
  );
  const callTimeoutMs = options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  const routes = createGatewayRoutes({
    config,
    read: clientRuntimeRoutes(switchyard),
    ...(options.routeRefreshMs !== undefined ? { refreshMs: options.routeRefreshMs } : {}),
  });
  let callRoutes: CallRoutes | undefined;
  await app.register(async (scope) => {
    // First, so that requests the key check refuses get their span too.
    traceRequests(scope);
    requireGatewayKey(scope, keys, concurrency, gatewayConcurrency);
    callRoutes = registerCallRoutes(scope, {
      switchyard,
      routes,
      hub,
      ending,
      callTimeoutMs,
      earlyAnswers: options.earlyAnswers ?? true,
      onWorkflow: (request, workflowId) => workflowOf.set(request, workflowId),
      ...(options.keyPolicy ? { keyPolicy: options.keyPolicy } : {}),
    });
    registerModelsRoute(scope, routes);
    registerResponsesRoutes(scope, switchyard);
    registerPlanRoute(scope, {
      switchyard,
      routes,
      callTimeoutMs,
      ...(options.keyPolicy ? { keyPolicy: options.keyPolicy } : {}),
    });
    registerGenerationRoute(scope, switchyard, ending);
  });

  // Liveness for load balancers: no key, no body. Each check adds its field and may turn `ok` false (a 503).
  app.get('/healthz', async (_request, reply) => {
    const health: { ok: boolean } & Record<string, unknown> = { ok: true };
    addKeysHealth(health, keys);
    return reply.code(health.ok ? 200 : 503).send(health);
  });

  const relayApp = ownRelayListener ? listener(bodyLimit.bytes, maxConnections) : app;
  await registerRelayRoute(relayApp, hub);

  const url = await listen(app, host, options.port ?? 4000);
  let relayListenUrl = url;
  if (ownRelayListener) {
    try {
      relayListenUrl = await listen(relayApp, relayHost, options.relayPort!);
    } catch (error) {
      await app.close();
      throw error;
    }
  }
  const relayUrl = (options.relayUrl ?? relayListenUrl).replace(/\/$/, '');
  hub.listenAt(relayUrl);
  return {
    url,
    relayUrl,
    bodyLimitBytes: bodyLimit.bytes,
    maxConcurrentRequestsPerKey: concurrency.limit,
    maxConcurrentRequests: gatewayConcurrency.limit,
    get openStreams() {
      return hub.size;
    },
    close: async () => {
      // Requests in flight end first; streams whose caller left may still wait for their call.
      await Promise.all([app.close(), ownRelayListener ? relayApp.close() : undefined]);
      callRoutes?.stopWaiting();
    },
  };
}

/** Every route a key may use, for showing it: `*` stands for all. */
export function describeKeyRoutes(key: Pick<StoredKey, 'routes'>): string {
  return key.routes.includes(ALL_ROUTES) ? 'every route' : key.routes.join(', ');
}

// Gateway keys checked from the headers alone, before a body is read, and each key's cap on requests at once. Node side.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { StoredKey } from './gateway-key';
import { GatewayError, GatewayErrorKind } from './gateway-error';
import { sendGatewayError } from './error-reply';
import type { KeyConcurrency } from './key-concurrency';
import type { KeyStore } from './key-store';

/** How long a caller over its key's cap is told to wait, in seconds: a slot frees when any of its calls ends. */
const RETRY_AFTER_SECONDS = 1;
/** The one name under which the gateway-wide cap counts every request. */
const WHOLE_GATEWAY = 'gateway';

/** One header's value (the first, when sent more than once). */
export function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** OpenAI clients send `Authorization: Bearer`, Anthropic clients `x-api-key`: both work on both surfaces. */
function presentedKey(request: FastifyRequest): string | undefined {
  return (
    /^Bearer\s+(\S+)$/i.exec(header(request, 'authorization') ?? '')?.[1] ?? header(request, 'x-api-key')
  );
}

/** The stored key the request presents; throws the 401 otherwise. */
function authenticate(keys: KeyStore, request: FastifyRequest): StoredKey {
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
}

const keyOfRequest = new WeakMap<FastifyRequest, StoredKey>();

/** The key a request authenticated with; only for routes under {@link requireGatewayKey}. */
export function gatewayKeyOf(request: FastifyRequest): StoredKey {
  const key = keyOfRequest.get(request);
  if (!key) throw new Error('gatewayKeyOf: the route is not behind requireGatewayKey');
  return key;
}

/**
 * Every route of `scope` needs a gateway key, checked in `onRequest`, from the headers alone: a request without
 * a valid key, or over its key's cap of requests at once, is answered before its body is read, and when the body
 * has not all arrived its connection is closed so the rest never is: nobody without a key can make the gateway
 * buffer, parse or even receive a body.
 */
export function requireGatewayKey(
  scope: FastifyInstance,
  keys: KeyStore,
  concurrency: KeyConcurrency,
  gatewayConcurrency: KeyConcurrency,
): void {
  scope.addHook('onRequest', async (request, reply) => {
    let key: StoredKey;
    try {
      key = authenticate(keys, request);
    } catch (error) {
      return sendGatewayError(request, reply, error as GatewayError, {
        closeConnection: !request.raw.complete,
      });
    }
    // The gateway's own cap first: beyond it the gateway is overloaded whoever asks (a 503 every client retries).
    const leaveGateway = gatewayConcurrency.enter(WHOLE_GATEWAY);
    if (!leaveGateway) {
      const refusal = new GatewayError(
        `the gateway already has ${gatewayConcurrency.limit} requests in flight, the most it serves at once; ` +
          'send this one again shortly',
        GatewayErrorKind.unavailable,
        'overloaded',
        { retryAfterSeconds: RETRY_AFTER_SECONDS },
      );
      return sendGatewayError(request, reply, refusal, { closeConnection: !request.raw.complete });
    }
    const keyLeave = concurrency.enter(key.id);
    const leave = keyLeave
      ? () => {
          keyLeave();
          leaveGateway();
        }
      : undefined;
    if (!leave) {
      leaveGateway();
      const refusal = new GatewayError(
        `this key already has ${concurrency.limit} requests in flight, the most the gateway serves at once for ` +
          'one key; send this one again when one of them has ended',
        GatewayErrorKind.rateLimited,
        'too_many_concurrent_requests',
        { retryAfterSeconds: RETRY_AFTER_SECONDS },
      );
      return sendGatewayError(request, reply, refusal, { closeConnection: !request.raw.complete });
    }
    // The response's close comes once whatever way the request ends: answered, failed, or its caller gone.
    if (reply.raw.destroyed) leave();
    else reply.raw.once('close', leave);
    keyOfRequest.set(request, key);
  });
}

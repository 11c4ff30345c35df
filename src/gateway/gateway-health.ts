// The gateway's `/healthz` answer: up, and whether its key file can be read. Node side.
import type { FastifyReply } from 'fastify';
import type { KeysFileHealth, KeyStore } from './key-store';

/** The body of `/healthz`. No key is needed to read it, so it holds no path and no text of the file. */
export interface GatewayHealth {
  /** False once the gateway refuses every key: it cannot serve anyone. */
  readonly ok: boolean;
  readonly keys: KeysFileHealth;
}

/** The gateway's health; `ok` stays true while the keys last read still serve (`keys.status` is `stale`). */
export function gatewayHealth(keys: KeyStore): GatewayHealth {
  const health = keys.health();
  return { ok: health.status !== 'unreadable', keys: health };
}

/** Answers `/healthz`: 200 while keys can be served, 503 once every key is refused, so a balancer can tell. */
export function sendGatewayHealth(reply: FastifyReply, keys: KeyStore): FastifyReply {
  const health = gatewayHealth(keys);
  return reply.code(health.ok ? 200 : 503).send(health);
}

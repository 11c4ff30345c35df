// The relay endpoint streamed attempts push their output to: id and token checked before the body, a small body limit. Node side.
import type { FastifyInstance } from 'fastify';
import { RELAY_PATH, type RelayHub } from './relay-hub';

/**
 * Largest push read, in bytes. A push is one batch of an attempt's output pieces: those that came while the
 * previous push was in flight, a few kilobytes at streaming speed; a whole signature or redacted thinking block
 * adds tens of kilobytes. A push over it is refused (413) and the attempt stops pushing; its caller still gets
 * the whole answer, written from the call's result when it ends.
 */
export const RELAY_BODY_LIMIT_BYTES = 1024 * 1024;

/** Adds `POST <RELAY_PATH>/:relayId` to `app`, answering `{status}` with the status as HTTP status. */
export async function registerRelayRoute(app: FastifyInstance, hub: RelayHub): Promise<void> {
  await app.register(async (scope) => {
    // Workers read only the status; no surface shape here.
    scope.setErrorHandler((error, _request, reply) => {
      const status = (error as { statusCode?: number }).statusCode ?? 500;
      return reply.code(status >= 400 ? status : 500).send({ status });
    });
    scope.post<{ Params: { relayId: string } }>(
      `${RELAY_PATH}/:relayId`,
      {
        bodyLimit: RELAY_BODY_LIMIT_BYTES,
        // An unknown id or a wrong token is refused from the headers; with its body still arriving the connection
        // is closed, so whoever sent it cannot make the gateway read the body.
        onRequest: async (request, reply) => {
          const refused = hub.refusal(request.params.relayId, request.headers.authorization);
          if (refused === undefined) return;
          if (!request.raw.complete) void reply.header('connection', 'close');
          return reply.code(refused).send({ status: refused });
        },
      },
      async (request, reply) => {
        const status = hub.receive(request.params.relayId, request.headers.authorization, request.body);
        return reply.code(status).send({ status });
      },
    );
  });
}

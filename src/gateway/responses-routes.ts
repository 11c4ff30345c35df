// `GET` and `DELETE /v1/responses/{id}` and its input items: a stored response read back from its routed call. Node side.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { SwitchyardClient } from '../client/switchyard-client';
import { gatewayKeyOf } from './gateway-authentication';
import { GatewayError, GatewayErrorKind } from './gateway-error';
import { responseEchoOf } from './responses-echo';
import { inputItemsList, inputItemsOf, inputItemsPageOf } from './responses-input-items';
import { convertInclude } from './responses-parse-options';
import { answeredResponseBody, responseBody } from './responses-render';
import { deleteStoredResponse, readStoredResponse, type StoredResponse } from './responses-state';
import { routingHeaders, summaryOf } from './routing-summary';

/** Query parameters of `GET /v1/responses/{id}` the gateway cannot honour, each with why. */
const REFUSED_QUERY: Readonly<Record<string, string>> = {
  stream: 'a stored response is read whole; its events are not kept to stream again',
  starting_after: 'a stored response is read whole; its events are not kept to stream again',
};

/** The values of one query parameter, sent as `name=…` (Python) or `name[]=…` (Node), once or repeated. */
function queryValues(request: FastifyRequest, name: string): string[] {
  const query = (request.query ?? {}) as Record<string, string | string[] | undefined>;
  return [query[name], query[`${name}[]`]].flatMap((value) =>
    value === undefined ? [] : Array.isArray(value) ? value : [value],
  );
}

/** Whether the read asks for reasoning's encrypted content (`include`); anything else it asks for is refused. */
function readOptions(request: FastifyRequest): { readonly encryptedReasoning: boolean } {
  for (const [name, why] of Object.entries(REFUSED_QUERY)) {
    const values = queryValues(request, name);
    if (values.length > 0 && !(name === 'stream' && values.every((value) => value === 'false'))) {
      throw new GatewayError(
        `${name}: not supported (${why})`,
        GatewayErrorKind.invalidRequest,
        'unsupported_parameter',
        {
          param: name,
        },
      );
    }
  }
  return { encryptedReasoning: convertInclude(queryValues(request, 'include')) };
}

/**
 * A stored response as its `POST /v1/responses` answered it: the same id, items, usage, echo and times, since all
 * are rendered from what its workflow keeps. One still running, or one that ended without an answer, shows its
 * status (and the failure) with no output.
 */
export function storedResponseBody(
  stored: StoredResponse,
  encryptedReasoning: boolean,
): Record<string, unknown> {
  const echo = responseEchoOf(stored.input);
  const route = typeof stored.input.route === 'string' ? stored.input.route : undefined;
  const routing = summaryOf(stored.workflowId, route, stored.record);
  if (stored.result) {
    return answeredResponseBody(stored.result.answer, {
      identity: {
        id: stored.id,
        model: stored.result.record.servedBy?.model ?? 'unknown',
        created: stored.created,
      },
      echo,
      encryptedReasoning,
      routing,
      ...(stored.completed !== undefined ? { completedAt: stored.completed } : {}),
    });
  }
  return responseBody({
    identity: {
      id: stored.id,
      model: stored.record?.servedBy?.model ?? route ?? 'unknown',
      created: stored.created,
    },
    status: stored.status,
    output: [],
    usage: null,
    error: stored.error ? { code: stored.error.type, message: stored.error.message } : null,
    echo,
    routing,
  });
}

/** Adds the stored-response routes to a scope whose requests carry a checked key. */
export function registerResponsesRoutes(scope: FastifyInstance, switchyard: SwitchyardClient): void {
  scope.get<{ Params: { id: string } }>('/v1/responses/:id', async (request, reply) => {
    const { encryptedReasoning } = readOptions(request);
    const stored = await readStoredResponse(switchyard, request.params.id, gatewayKeyOf(request));
    const body = storedResponseBody(stored, encryptedReasoning);
    const route = typeof stored.input.route === 'string' ? stored.input.route : undefined;
    return reply.headers(routingHeaders(summaryOf(stored.workflowId, route, stored.record))).send(body);
  });

  // The whole conversation the call was given, earlier turns included: that is what its workflow holds.
  scope.get<{ Params: { id: string } }>('/v1/responses/:id/input_items', async (request) => {
    const page = inputItemsPageOf({
      after: queryValues(request, 'after')[0],
      limit: queryValues(request, 'limit')[0],
      order: queryValues(request, 'order')[0],
    });
    // Accepted as on OpenAI; it changes nothing here, as no listed item carries reasoning.
    convertInclude(queryValues(request, 'include'));
    const stored = await readStoredResponse(switchyard, request.params.id, gatewayKeyOf(request));
    return inputItemsList(inputItemsOf(stored.id, stored.input.request.messages), page);
  });

  scope.delete<{ Params: { id: string } }>('/v1/responses/:id', async (request) => {
    await deleteStoredResponse(switchyard, request.params.id, gatewayKeyOf(request));
    return { id: request.params.id, object: 'response', deleted: true };
  });
}

// `GET /v1/models`: the routes a key may use, in a list both the OpenAI and the Anthropic SDK read. Node side.
import type { FastifyInstance } from 'fastify';
import { gatewayKeyOf } from './gateway-authentication';
import { keyAllowsRoute } from './gateway-key';
import type { GatewayRoutes } from './gateway-routes';

/**
 * Adds `GET /v1/models` to a scope whose requests carry a checked key: the routes in effect now (a route set at
 * runtime listed, one deleted at runtime not) that the key may use.
 */
export function registerModelsRoute(scope: FastifyInstance, routes: GatewayRoutes): void {
  // OpenAI's `{object, data: [{id, object, owned_by}]}` and Anthropic's `{data: [{id, type, display_name}],
  // has_more}` side by side.
  scope.get('/v1/models', async (request) => {
    const key = gatewayKeyOf(request);
    const config = await routes.current();
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
}

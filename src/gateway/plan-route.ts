// `POST /v1/route`: what a call would do now (route, attempts, timeouts, reserved bounds), and no call made. Node side.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { planRoutedCall } from '../client/call-input';
import type { SwitchyardClient } from '../client/switchyard-client';
import { anthropicSurface } from './anthropic-surface';
import { prepareCall } from './call-input';
import { gatewayKeyOf, header } from './gateway-authentication';
import { GatewayError, GatewayErrorKind } from './gateway-error';
import type { GatewayRoutes } from './gateway-routes';
import type { KeyPolicy } from './key-policy';
import { openAISurface } from './openai-surface';
import { withItemReferences } from './responses-item-references';
import { conversationBefore } from './responses-state';
import { responsesSurface } from './responses-surface';
import { ROUTING_HEADERS } from './routing-summary';
import type { Surface } from './surface';

/** The request shapes a plan's body may take, by the `surface` query parameter. */
const PLAN_SURFACES: Readonly<Record<string, Surface>> = {
  chat: openAISurface,
  messages: anthropicSurface,
  responses: responsesSurface,
};

export interface PlanRouteOptions {
  readonly switchyard: SwitchyardClient;
  /** The routes a plan may name: the config's with the runtime changes overlaid, so a plan reads the runtime spec. */
  readonly routes: GatewayRoutes;
  /** The routed call's whole-call deadline, in milliseconds: the plan's deadline is the same as a call's. */
  readonly callTimeoutMs: number;
  /** Rules every key is held to on every request (a required budget scope). @default none */
  readonly keyPolicy?: KeyPolicy;
}

/** The surface whose request shape the body takes: `?surface=chat|messages|responses`, Chat Completions by default. */
function planSurface(request: FastifyRequest): Surface {
  const asked = (request.query as Record<string, unknown> | undefined)?.surface ?? 'chat';
  const surface = typeof asked === 'string' ? PLAN_SURFACES[asked] : undefined;
  if (!surface) {
    throw new GatewayError(
      `surface: one of ${Object.keys(PLAN_SURFACES).join(', ')} (the shape of the request body)`,
      GatewayErrorKind.invalidRequest,
      'invalid_request',
      { param: 'surface' },
    );
  }
  return surface;
}

/**
 * Adds `POST /v1/route` to a scope whose requests carry a checked key. The body is read as the call it plans
 * would read it (same parser, same key scope, ceiling and policy, same refusals), and the plan is the one
 * `switchyard plan` prints: nothing is started and no provider is asked.
 */
export function registerPlanRoute(scope: FastifyInstance, options: PlanRouteOptions): void {
  const { switchyard, routes } = options;
  scope.post('/v1/route', async (request) => {
    const surface = planSurface(request);
    const key = gatewayKeyOf(request);
    // A Responses body may refer to stored responses: read back (key-scoped) as the call would.
    const body =
      surface.name === 'responses' ? await withItemReferences(switchyard, request.body, key) : request.body;
    let parsed = surface.parse(body);
    if (parsed.previousResponseId !== undefined) {
      const before = await conversationBefore(switchyard, parsed.previousResponseId, key);
      parsed = {
        ...parsed,
        request: { ...parsed.request, messages: [...before, ...parsed.request.messages] },
      };
    }
    const config = await routes.current();
    const prepared = prepareCall({
      surface,
      parsed,
      key,
      config,
      idempotencyKey: undefined,
      deadlineMs: options.callTimeoutMs,
      ...(options.keyPolicy ? { keyPolicy: options.keyPolicy } : {}),
      preferHeader: header(request, ROUTING_HEADERS.prefer),
      requireHeader: header(request, ROUTING_HEADERS.require),
    });
    return { object: 'switchyard.plan', ...planRoutedCall(config, prepared.input) };
  });
}

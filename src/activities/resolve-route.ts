// The route-resolution activity: a name or inline route → targets with prices, the runtime routes overlaid on the config's. Worker side (reads config).
import { ApplicationFailure } from '@temporalio/common';
import type { Config } from '../config/config';
import { resolveRoute, RouteResolutionError, type RouteReference } from '../config/resolve-route';
import type { ResolvedRoute } from '../config/resolved-route';
import { configWithRuntimeRoutes, type RuntimeRoutes } from '../config/runtime-routes';
import { RoutedCallFailureType } from '../routing/routing-record';
import type { RouteRegistryReader } from './route-registry-reader';

/**
 * Resolves against the config with the runtime routes overlaid (see `configWithRuntimeRoutes`), and stamps the
 * version of a route (or nested route) the registry changed; a config route untouched at runtime gets none.
 */
export function resolveWithRuntimeRoutes(
  config: Config,
  runtime: RuntimeRoutes,
  reference: RouteReference,
): ResolvedRoute {
  const route = resolveRoute(configWithRuntimeRoutes(config, runtime), reference);
  const named = typeof reference !== 'object';
  const version = named && Object.hasOwn(runtime, route.name) ? runtime[route.name]!.version : undefined;
  const candidates = route.candidates?.map((candidate) =>
    candidate.route !== undefined && Object.hasOwn(runtime, candidate.route)
      ? { ...candidate, version: runtime[candidate.route]!.version }
      : candidate,
  );
  return {
    ...route,
    ...(version !== undefined ? { version } : {}),
    ...(candidates ? { candidates } : {}),
  };
}

/** @param registry the worker's copy of the runtime routes; absent: the config's routes alone */
export function createResolveRoute(config: Config, registry?: RouteRegistryReader) {
  return async function resolveRouteActivity(reference: RouteReference): Promise<ResolvedRoute> {
    // Inline routes too: one may nest a named route.
    const runtime = registry ? await registry.current() : {};
    try {
      return resolveWithRuntimeRoutes(config, runtime, reference);
    } catch (error) {
      if (error instanceof RouteResolutionError) {
        throw ApplicationFailure.create({
          type: RoutedCallFailureType.invalidRequest,
          message: `${error.field}: ${error.message}`,
          nonRetryable: true,
          details: [{ field: error.field }],
        });
      }
      throw error;
    }
  };
}

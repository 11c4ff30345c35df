// The route-resolution activity: a name or inline route → targets with prices. Worker side (reads config).
import { ApplicationFailure } from '@temporalio/common';
import type { Config } from '../config/config';
import { resolveRoute, RouteResolutionError, type RouteReference } from '../config/resolve-route';
import type { ResolvedRoute } from '../config/resolved-route';
import { RoutedCallFailureType } from '../routing/routing-record';

export function createResolveRoute(config: Config) {
  return async function resolveRouteActivity(reference: RouteReference): Promise<ResolvedRoute> {
    try {
      return resolveRoute(config, reference);
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

// Resolves a route reference (a name or an inline spec) against the config. Pure: no I/O, no Temporal.
import { SwitchyardError } from './branded-error';
import { ownEntry, type Config } from './config';
import type { ResolvedRoute, ResolvedTarget, RouteCandidate } from './resolved-route';
import {
  isNestedRouteTarget,
  RouteSpecSchema,
  type RouteSpec,
  type RouteSpecInput,
  type Target,
} from './route';
import { firstIssueField, prettifyIssues } from './strict-object';
import { FAILOVER_CLASSES } from './failure-class';

export class RouteResolutionError extends SwitchyardError {
  static override readonly brand: string = 'switchyard.RouteResolutionError';

  override readonly name = 'RouteResolutionError';
  constructor(
    message: string,
    /** The request field at fault, e.g. `route` or `route.targets.1.model`. */
    readonly field: string,
  ) {
    super(message);
  }
}

/** `undefined` picks the config's default route. */
export type RouteReference = string | RouteSpecInput | undefined;

export function resolveRoute(config: Config, reference: RouteReference): ResolvedRoute {
  let name: string;
  let spec;
  if (reference === undefined || typeof reference === 'string') {
    name = reference ?? config.defaultRoute ?? '';
    if (!name) throw new RouteResolutionError('no route given and the config has no defaultRoute', 'route');
    spec = ownEntry(config.routes, name);
    if (!spec) {
      const known = Object.keys(config.routes).join(', ') || 'none';
      throw new RouteResolutionError(`unknown route "${name}" (configured: ${known})`, 'route');
    }
  } else {
    name = 'inline';
    const parsed = RouteSpecSchema.safeParse(reference);
    if (!parsed.success) {
      const field = firstIssueField(parsed.error);
      throw new RouteResolutionError(
        `invalid inline route:\n${prettifyIssues(parsed.error)}`,
        field ? `route.${field}` : 'route',
      );
    }
    spec = parsed.data;
  }

  const targets: ResolvedTarget[] = [];
  const candidates: RouteCandidate[] = [];
  spec.targets.forEach((target, index) => {
    if (!isNestedRouteTarget(target)) {
      targets.push(resolveTarget(config, target, `route.targets.${index}`));
      candidates.push({ targetIndexes: [targets.length - 1], weight: target.weight });
      return;
    }
    const nested = nestedRoute(config, target.route, name, `route.targets.${index}.route`);
    const targetIndexes = nested.targets.map((inner, innerIndex) => {
      targets.push({
        ...resolveTarget(config, inner as Target, `routes.${target.route}.targets.${innerIndex}`),
        via: target.route,
      });
      return targets.length - 1;
    });
    candidates.push({ targetIndexes, weight: target.weight, route: target.route, strategy: nested.strategy });
  });

  return {
    name,
    targets,
    maxAttempts: spec.maxAttempts,
    ...(spec.deadlineMs !== undefined ? { deadlineMs: spec.deadlineMs } : {}),
    failoverOn: spec.failoverOn ?? [...FAILOVER_CLASSES],
    breaker: spec.breaker,
    whenAllOpen: spec.whenAllOpen,
    heartbeatTimeoutMs: spec.heartbeatTimeoutMs,
    requireBudget: spec.requireBudget,
    // A plain route keeps the shape it had before strategies existed, so its recorded resolution is unchanged.
    ...(spec.strategy !== 'ordered' ? { strategy: spec.strategy } : {}),
    ...(candidates.some((candidate) => candidate.route !== undefined || candidate.weight !== 1)
      ? { candidates }
      : {}),
    ...(spec.cache ? { cache: spec.cache } : {}),
  };
}

/** A configured route named as a nested target: it must exist, differ from the outer one, and nest nothing. */
function nestedRoute(config: Config, routeName: string, outer: string, field: string): RouteSpec {
  const spec = ownEntry(config.routes, routeName);
  if (!spec) {
    const known = Object.keys(config.routes).join(', ') || 'none';
    throw new RouteResolutionError(`unknown nested route "${routeName}" (configured: ${known})`, field);
  }
  if (routeName === outer) throw new RouteResolutionError(`route "${routeName}" cannot nest itself`, field);
  if (spec.targets.some(isNestedRouteTarget)) {
    throw new RouteResolutionError(
      `route "${routeName}" nests other routes itself; a nested route holds targets only`,
      field,
    );
  }
  return spec;
}

function resolveTarget(config: Config, target: Target, field: string): ResolvedTarget {
  const provider = ownEntry(config.providers, target.provider);
  if (!provider) throw new RouteResolutionError(`unknown provider "${target.provider}"`, `${field}.provider`);
  const model = ownEntry(provider.models, target.model);
  if (!model) {
    throw new RouteResolutionError(
      `provider "${target.provider}" has no model "${target.model}"`,
      `${field}.model`,
    );
  }
  return {
    provider: target.provider,
    providerKind: provider.kind,
    model: target.model,
    timeoutMs: target.timeoutMs,
    retries: target.retries,
    prices: {
      inputUsdPerMillion: model.inputUsdPerMillion,
      cachedInputUsdPerMillion: model.cachedInputUsdPerMillion ?? model.inputUsdPerMillion,
      cacheWriteUsdPerMillion: model.cacheWriteUsdPerMillion ?? model.inputUsdPerMillion * 1.25,
      cacheWrite1hUsdPerMillion: model.cacheWrite1hUsdPerMillion ?? model.inputUsdPerMillion * 2,
      outputUsdPerMillion: model.outputUsdPerMillion,
    },
    ...(model.contextWindow !== undefined ? { contextWindow: model.contextWindow } : {}),
    ...(model.maxImageTokens !== undefined ? { maxImageTokens: model.maxImageTokens } : {}),
    ...(model.supports !== undefined ? { supports: model.supports } : {}),
    ...(target.weight !== 1 ? { weight: target.weight } : {}),
  };
}

// Resolves a route reference (a name or an inline spec) against the config. Pure: no I/O, no Temporal.
import { SwitchyardError } from './branded-error';
import { ownEntry, type Config } from './config';
import type { ResolvedRoute } from './resolved-route';
import { RouteSpecSchema, type RouteSpecInput } from './route';
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

  const targets = spec.targets.map((target, index) => {
    const provider = ownEntry(config.providers, target.provider);
    if (!provider)
      throw new RouteResolutionError(
        `unknown provider "${target.provider}"`,
        `route.targets.${index}.provider`,
      );
    const model = ownEntry(provider.models, target.model);
    if (!model) {
      throw new RouteResolutionError(
        `provider "${target.provider}" has no model "${target.model}"`,
        `route.targets.${index}.model`,
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
    };
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
  };
}

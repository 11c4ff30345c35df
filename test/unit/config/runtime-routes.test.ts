// Routes changed at runtime as pure rules: the checks of a `set`, the attempt total, the overlay on the config's routes.
import { parseConfig } from '../../../src/config/load-config';
import { resolveWithRuntimeRoutes } from '../../../src/activities/resolve-route';
import { RouteSpecSchema } from '../../../src/config/route';
import {
  checkRouteChange,
  configWithRuntimeRoutes,
  effectiveRoutes,
  routeAttemptTotal,
  RouteChangeError,
  staleRegistryVersion,
  type RuntimeRoutes,
} from '../../../src/config/runtime-routes';

const config = parseConfig({
  providers: {
    openai: {
      kind: 'openai',
      apiKeyEnv: 'OPENAI_KEY',
      models: {
        small: { inputUsdPerMillion: 1, outputUsdPerMillion: 2 },
        large: { inputUsdPerMillion: 5, outputUsdPerMillion: 10 },
      },
    },
  },
  routes: {
    support: { targets: [{ provider: 'openai', model: 'small' }] },
    pool: {
      targets: [
        { provider: 'openai', model: 'small', retries: 2 },
        { provider: 'openai', model: 'large' },
      ],
    },
  },
  defaultRoute: 'support',
});

function refusal(spec: unknown, name = 'fresh', routes = config.routes): RouteChangeError {
  try {
    checkRouteChange(config, name, spec, routes);
  } catch (error) {
    if (error instanceof RouteChangeError) return error;
    throw error;
  }
  throw new Error('expected the change to be refused');
}

describe('checkRouteChange', () => {
  test('a valid spec comes back with its defaults', () => {
    const spec = checkRouteChange(
      config,
      'fresh',
      { targets: [{ provider: 'openai', model: 'large', retries: 1 }] },
      config.routes,
    );
    expect(spec).toMatchObject({ maxAttempts: 10, strategy: 'ordered', targets: [{ timeoutMs: 60_000 }] });
  });

  test('a field the schema refuses is named under spec', () => {
    const error = refusal({ targets: [{ provider: 'openai', model: 'small', timeoutMs: 5 }] });
    expect(error.field).toBe('spec.targets.0.timeoutMs');
    expect(refusal({ targets: [] }).field).toBe('spec.targets');
    expect(refusal({ targets: [{ provider: 'openai', model: 'small' }], colour: 'red' }).field).toBe(
      'spec.colour',
    );
  });

  test('an unknown provider or model is named with its target', () => {
    const provider = refusal({ targets: [{ provider: 'azure', model: 'small' }] });
    expect(provider.field).toBe('spec.targets.0.provider');
    expect(provider.message).toContain('unknown provider "azure" (configured: openai)');
    const model = refusal({
      targets: [
        { provider: 'openai', model: 'small' },
        { provider: 'openai', model: 'huge' },
      ],
    });
    expect(model.field).toBe('spec.targets.1.model');
    expect(model.message).toContain('provider "openai" has no model "huge"');
  });

  test('a total over the attempt cap is refused naming the total; at the cap it passes', () => {
    const over = refusal({
      targets: [
        { provider: 'openai', model: 'small', retries: 5 },
        { provider: 'openai', model: 'large', retries: 5 },
      ],
    });
    expect(over.field).toBe('spec.targets');
    expect(over.message).toContain('up to 12 attempts in total');
    expect(over.message).toContain('over the cap of 10');
    const atCap = {
      targets: [
        { provider: 'openai', model: 'small', retries: 4 },
        { provider: 'openai', model: 'large', retries: 4 },
      ],
    };
    expect(() => checkRouteChange(config, 'fresh', atCap, config.routes)).not.toThrow();
  });

  test('a nested route counts as its most attempts on one target', () => {
    const spec = RouteSpecSchema.parse({
      targets: [{ route: 'pool' }, { provider: 'openai', model: 'large', retries: 1 }],
    });
    // pool: small makes 1 + 2, large 1: the nested candidate makes at most 3; then 2 for large.
    expect(routeAttemptTotal(spec, config.routes)).toBe(5);
    expect(refusal({ targets: [{ route: 'nowhere' }] }).field).toBe('spec.targets.0.route');
    expect(refusal({ targets: [{ route: 'fresh' }] }).message).toContain('cannot nest itself');
  });

  test('a change that takes a route nesting it over the cap is refused naming that route and its total', () => {
    const routes = {
      ...config.routes,
      outer: RouteSpecSchema.parse({
        targets: [{ route: 'pool' }, { provider: 'openai', model: 'large', retries: 5 }],
      }),
    };
    // outer: pool's most (1 + 4) + large's 6 = 11.
    const error = refusal({ targets: [{ provider: 'openai', model: 'small', retries: 4 }] }, 'pool', routes);
    expect(error.message).toContain('route "outer" nests "pool" and would make up to 11 attempts in total');
    expect(() =>
      checkRouteChange(
        config,
        'pool',
        { targets: [{ provider: 'openai', model: 'small', retries: 3 }] },
        routes,
      ),
    ).not.toThrow();
  });

  test('a bad name is refused as the name', () => {
    expect(refusal({ targets: [{ provider: 'openai', model: 'small' }] }, 'no spaces').field).toBe('name');
  });
});

describe('the overlay on the config', () => {
  const runtime: RuntimeRoutes = {
    fresh: {
      version: 2,
      spec: RouteSpecSchema.parse({ targets: [{ provider: 'openai', model: 'large' }] }),
      changedAt: '2026-01-01T00:00:00.000Z',
    },
    support: {
      version: 1,
      spec: RouteSpecSchema.parse({ targets: [{ provider: 'openai', model: 'large' }] }),
      changedAt: '2026-01-01T00:00:00.000Z',
    },
    pool: { version: 3, changedAt: '2026-01-01T00:00:00.000Z' },
  };

  test('a runtime set adds or overrides, a delete hides; config routes are version 0', () => {
    const routes = effectiveRoutes(config, runtime);
    expect(Object.keys(routes).sort()).toEqual(['fresh', 'support']);
    expect(routes.support).toMatchObject({ version: 1, source: 'runtime' });
    expect(effectiveRoutes(config, {}).pool).toMatchObject({ version: 0, source: 'config' });
    expect(configWithRuntimeRoutes(config, {})).toBe(config);
  });

  test('a resolved runtime route carries its version; a config one carries none', () => {
    const fresh = resolveWithRuntimeRoutes(config, runtime, 'fresh');
    expect(fresh).toMatchObject({ name: 'fresh', version: 2, targets: [{ model: 'large' }] });
    expect(resolveWithRuntimeRoutes(config, runtime, undefined)).toMatchObject({
      name: 'support',
      version: 1,
    });
    expect(resolveWithRuntimeRoutes(config, {}, 'pool').version).toBeUndefined();
    expect(() => resolveWithRuntimeRoutes(config, runtime, 'pool')).toThrow('unknown route "pool"');
  });

  test('a stored spec the schema now refuses is left out and reported; the other routes keep working', () => {
    const stale = {
      ...runtime,
      legacy: {
        version: 4,
        // As if stored before the schema stopped accepting it: an unknown field.
        spec: { targets: [{ provider: 'openai', model: 'small' }], colour: 'red' } as never,
        changedAt: '2026-01-01T00:00:00.000Z',
      },
    };
    const reported: string[] = [];
    const overlaid = configWithRuntimeRoutes(config, stale, (name, version, problem) =>
      reported.push(`${name} ${version} ${problem}`),
    );
    expect(Object.keys(overlaid.routes).sort()).toEqual(['fresh', 'support']);
    expect(reported).toHaveLength(1);
    expect(reported[0]).toMatch(/^legacy 4 .*colour/s);
    expect(overlaid.routes.fresh).toMatchObject({ targets: [{ model: 'large' }] });
  });
});

describe('the registry change counter', () => {
  test('a change checked against an older counter is refused, saying to check it again', () => {
    expect(staleRegistryVersion(7, 7)).toBeUndefined();
    // From a client that sends no counter (older ones): not checked.
    expect(staleRegistryVersion(undefined, 7)).toBeUndefined();
    expect(staleRegistryVersion(6, 7)).toBe(
      'the routes changed since this change was checked (registry version 7, not 6); check it again against them',
    );
    expect(staleRegistryVersion(8, 7)).toContain('registry version 7, not 8');
  });
});

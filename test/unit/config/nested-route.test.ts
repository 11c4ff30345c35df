// Nested routes and strategies in the config: a nested route is one candidate whose targets join the route's own.
import { ConfigError, parseConfig } from '../../../src/config/load-config';
import { resolveRoute, RouteResolutionError } from '../../../src/config/resolve-route';
import { routeCandidates } from '../../../src/config/resolved-route';

const providers = {
  a: {
    kind: 'openai',
    apiKeyEnv: 'A_KEY',
    models: {
      small: { inputUsdPerMillion: 1, outputUsdPerMillion: 2 },
      large: { inputUsdPerMillion: 5, outputUsdPerMillion: 10 },
    },
  },
};

function configError(value: unknown): ConfigError {
  try {
    parseConfig(value);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected the config to be refused');
}

const config = parseConfig({
  providers,
  routes: {
    pool: {
      strategy: 'cheapest',
      targets: [
        { provider: 'a', model: 'large' },
        { provider: 'a', model: 'small' },
      ],
    },
    outer: {
      targets: [{ provider: 'a', model: 'large', weight: 3 }, { route: 'pool' }],
    },
    plain: { targets: [{ provider: 'a', model: 'small' }] },
  },
});

test("a nested route's targets join the route's targets, and the route is one candidate", () => {
  const route = resolveRoute(config, 'outer');
  expect(route.targets.map((target) => [target.model, target.via])).toEqual([
    ['large', undefined],
    ['large', 'pool'],
    ['small', 'pool'],
  ]);
  expect(route.candidates).toEqual([
    { targetIndexes: [0], weight: 3 },
    { targetIndexes: [1, 2], weight: 1, route: 'pool', strategy: 'cheapest' },
  ]);
});

test('a plain ordered route resolves as it did before strategies existed: no candidates, no strategy', () => {
  const route = resolveRoute(config, 'plain');
  expect(route).not.toHaveProperty('candidates');
  expect(route).not.toHaveProperty('strategy');
  expect(route.targets[0]).not.toHaveProperty('weight');
  expect(routeCandidates(route)).toEqual([{ targetIndexes: [0], weight: 1 }]);
  expect(resolveRoute(config, 'pool').strategy).toBe('cheapest');
});

test('a nested route that is unknown, the route itself, or nests routes is refused naming the field', () => {
  const error = configError({
    providers,
    routes: {
      self: { targets: [{ route: 'self' }] },
      unknown: { targets: [{ route: 'nowhere' }] },
      inner: { targets: [{ route: 'leaf' }] },
      leaf: { targets: [{ provider: 'a', model: 'small' }] },
      twice: { targets: [{ route: 'inner' }] },
    },
  });
  const fields = error.issues.map((issue) => issue.path.join('.'));
  expect(fields).toEqual(
    expect.arrayContaining([
      'routes.self.targets.0.route',
      'routes.unknown.targets.0.route',
      'routes.twice.targets.0.route',
    ]),
  );
  expect(error.message).toContain('cannot nest itself');
  expect(error.message).toContain('no route named "nowhere"');
  expect(error.message).toContain('a nested route holds targets only');
});

test('an inline route naming a nested route that nests routes is refused at resolution, naming the field', () => {
  const nesting = parseConfig({
    providers,
    routes: {
      leaf: { targets: [{ provider: 'a', model: 'small' }] },
      inner: { targets: [{ route: 'leaf' }] },
    },
  });
  expect(() => resolveRoute(nesting, { targets: [{ route: 'inner' }] })).toThrow(
    expect.objectContaining({ field: 'route.targets.0.route' }),
  );
  expect(() => resolveRoute(nesting, { targets: [{ route: 'inner' }] })).toThrow(RouteResolutionError);
});

test('a target with a bad field, nested or not, is refused naming that field; a bad strategy or weight too', () => {
  const error = configError({
    providers,
    routes: {
      r: {
        strategy: 'random',
        targets: [
          { provider: 'a', model: 'small', weight: 0 },
          { route: 'r2', provider: 'a' },
        ],
      },
      r2: { targets: [{ provider: 'a', model: 'small' }] },
    },
  });
  const fields = error.issues.map((issue) => issue.path.join('.'));
  expect(fields).toEqual(
    expect.arrayContaining(['routes.r.strategy', 'routes.r.targets.0.weight', 'routes.r.targets.1.provider']),
  );
});

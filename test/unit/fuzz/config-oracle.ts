// What a mutated config must do: parse, or throw a ConfigError whose every issue names the mutated field.
import { z } from 'zod';
import type { Config } from '../../../src/config/config';
import { ConfigError, parseConfig } from '../../../src/config/load-config';
import { resolveRoute, RouteResolutionError } from '../../../src/config/resolve-route';
import { namesField, type Mutation, type Path } from './json-mutations';

interface ConfigDocument {
  readonly routes: Readonly<Record<string, { readonly targets: readonly { readonly provider: string }[] }>>;
  readonly defaultRoute?: string;
}

/** Target paths of `document` whose provider is `provider` (every target when undefined). */
function targetPaths(document: ConfigDocument, provider?: string): Path[] {
  return Object.entries(document.routes).flatMap(([routeName, route]) =>
    route.targets.flatMap((target, index) =>
      provider === undefined || target.provider === provider ? [['routes', routeName, 'targets', index]] : [],
    ),
  );
}

/**
 * The fields an error may name for `mutation` of the valid `document`: the mutated field itself, and the
 * fields that refer to it by name (a route's targets name providers and models; `defaultRoute` names a route;
 * a target's provider and model are checked as a pair).
 */
export function configFieldsFor(document: ConfigDocument, mutation: Mutation): Path[] {
  const [section, name, ...rest] = mutation.path;
  const referring: Path[] = [];
  if (section === 'providers') {
    referring.push(...(name === undefined ? [['routes']] : targetPaths(document, String(name))));
  } else if (section === 'routes') {
    if (name === undefined || name === document.defaultRoute) referring.push(['defaultRoute']);
    if (rest[0] === 'targets' && rest.length === 3) referring.push([section, name!, ...rest.slice(0, 2)]);
  }
  return [mutation.path, ...referring];
}

/** Every route of a config that parsed resolves, with finite prices: nothing invalid slipped through. */
export function expectRoutesResolve(config: Config): void {
  const names = [...Object.keys(config.routes), ...(config.defaultRoute !== undefined ? [undefined] : [])];
  for (const name of names) {
    const route = resolveRoute(config, name);
    for (const target of route.targets) {
      for (const price of Object.values(target.prices)) expect(Number.isFinite(price)).toBe(true);
      expect(Object.keys(target.prices).sort()).toEqual([
        'cacheWrite1hUsdPerMillion',
        'cacheWriteUsdPerMillion',
        'cachedInputUsdPerMillion',
        'inputUsdPerMillion',
        'outputUsdPerMillion',
      ]);
    }
  }
}

/** The message line zod's prettifyError writes under an issue at `path`. */
export function prettyPathLine(path: Path): string {
  return `→ at ${z.core.toDotPath(path as (string | number)[])}`;
}

/**
 * Parses `value`; a refusal must be a ConfigError whose issues each name one of `fields` (see
 * {@link namesField}) and whose message shows each issue's path. Any other error fails the property.
 */
export function checkConfig(value: unknown, fields: readonly Path[]): void {
  let config: Config;
  try {
    config = parseConfig(value);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    expect(error.issues.length).toBeGreaterThan(0);
    for (const issue of error.issues) {
      const named = fields.some((field) => namesField(issue.path as Path, field));
      if (!named) {
        throw new Error(
          `issue at ${z.core.toDotPath(issue.path)} names none of ${fields.map((field) => field.join('.')).join(', ')}`,
        );
      }
      if (issue.path.length) expect(error.message).toContain(prettyPathLine(issue.path as Path));
    }
    return;
  }
  try {
    expectRoutesResolve(config);
  } catch (error) {
    if (error instanceof RouteResolutionError)
      throw new Error(`a config that parsed does not resolve: ${error.message}`);
    throw error;
  }
}

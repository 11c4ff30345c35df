// Routes changed at runtime: their registry's shapes, the overlay on the config's routes, and the checks of a change. Workflow-safe (zod only).
import { z } from 'zod';
import { SwitchyardError } from './branded-error';
import { ownEntry, type Config } from './config';
import { isNestedRouteTarget, MAX_ATTEMPTS_CAP, RouteSpecSchema, type RouteSpec } from './route';
import { firstIssueField, prettifyIssues } from './strict-object';

/** Route names as the config file allows them: letters, digits, `.`, `_`, `-`; 1-64, starting with a letter or digit. */
export const RouteNameSchema = z
  .string()
  .regex(
    /^[a-zA-Z0-9][a-zA-Z0-9._-]{0,63}$/,
    'route names are letters, digits, . _ - (1-64, starting with a letter or digit)',
  );

/** Who made a change (an operator's name, `cli`, `api`): kept in the audit trail. */
export const ChangedBySchema = z.string().min(1).max(200);

/** One change of a route, as its audit trail keeps it. */
export interface RouteAuditEntry {
  /** The route's version this change made (1 for the first runtime change; the config file's is 0). */
  readonly version: number;
  readonly action: 'set' | 'delete';
  /** ISO time of the change (the registry's workflow time). */
  readonly at: string;
  readonly by?: string;
  /** The spec the route got (`set` only), defaults filled in. */
  readonly spec?: RouteSpec;
}

/** A route's current runtime state: a spec that overrides the config's, or a deletion that hides it. */
export interface RuntimeRoute {
  /** Monotonic per route: each change adds one; never reused, a deletion included. */
  readonly version: number;
  /** Absent when the route is deleted. */
  readonly spec?: RouteSpec;
  /** ISO time of the latest change. */
  readonly changedAt: string;
  readonly by?: string;
}

/** Every route the registry holds a change of, by name: what workers overlay on the config's routes. */
export type RuntimeRoutes = Readonly<Record<string, RuntimeRoute>>;

/** Where a route's current spec comes from. */
export type RouteSource = 'config' | 'runtime';

/** A route as calls resolve it now: the config's, or the registry's overriding or adding it. */
export interface EffectiveRoute {
  readonly name: string;
  readonly spec: RouteSpec;
  /** 0 for the config file's route untouched at runtime; the registry's version otherwise. */
  readonly version: number;
  readonly source: RouteSource;
}

/** The routes calls resolve: the config's, each replaced by a runtime `set` of its name or hidden by a `delete`. */
export function effectiveRoutes(config: Config, runtime: RuntimeRoutes): Record<string, EffectiveRoute> {
  const routes: Record<string, EffectiveRoute> = {};
  for (const [name, spec] of Object.entries(config.routes))
    routes[name] = { name, spec, version: 0, source: 'config' };
  for (const [name, entry] of Object.entries(runtime)) {
    if (entry.spec) routes[name] = { name, spec: entry.spec, version: entry.version, source: 'runtime' };
    else delete routes[name];
  }
  return routes;
}

/** Called for a runtime route left out of the overlay because its stored spec no longer parses. */
export type UnparseableRuntimeRoute = (name: string, version: number, problem: string) => void;

function warnUnparseable(name: string, version: number, problem: string): void {
  console.warn(
    `runtime route "${name}" (version ${version}) no longer parses as a route and is left out: ${problem}`,
  );
}

/**
 * The config with the runtime routes overlaid: what a worker resolves calls against. A stored spec is parsed
 * again so that a field added since it was stored gets its default. Each runtime route is parsed on its own: one
 * whose stored spec the current schema refuses is left out (calls naming it are refused as an unknown route) and
 * reported to `onUnparseable`, so the other routes keep working.
 * @param onUnparseable @default a warning on the console
 */
export function configWithRuntimeRoutes(
  config: Config,
  runtime: RuntimeRoutes,
  onUnparseable: UnparseableRuntimeRoute = warnUnparseable,
): Config {
  if (Object.keys(runtime).length === 0) return config;
  const routes: Record<string, RouteSpec> = {};
  for (const [name, route] of Object.entries(effectiveRoutes(config, runtime))) {
    if (route.source === 'config') {
      routes[name] = route.spec;
      continue;
    }
    const parsed = RouteSpecSchema.safeParse(route.spec);
    if (parsed.success) routes[name] = parsed.data;
    else onUnparseable(name, route.version, prettifyIssues(parsed.error));
  }
  return { ...config, routes };
}

/** A runtime route change refused: `field` names what is wrong (`spec.targets.1.model`, `name`, `route`). */
export class RouteChangeError extends SwitchyardError {
  static override readonly brand: string = 'switchyard.RouteChangeError';

  override readonly name = 'RouteChangeError';
  constructor(
    message: string,
    readonly field: string,
  ) {
    super(message);
  }
}

/**
 * The most attempts a route can make for one call: over its candidates, 1 + retries of a target, and for a
 * nested route the most any one of its targets can make (a nested route is one candidate: the outer route moves
 * on when that attempt and its retries fail). A nested route `routes` does not hold counts 1.
 */
export function routeAttemptTotal(spec: RouteSpec, routes: Readonly<Record<string, RouteSpec>>): number {
  let total = 0;
  for (const target of spec.targets) {
    if (!isNestedRouteTarget(target)) {
      total += 1 + target.retries;
      continue;
    }
    const nested = ownEntry(routes, target.route);
    const inner = (nested?.targets ?? []).map((candidate) =>
      isNestedRouteTarget(candidate) ? 1 : 1 + candidate.retries,
    );
    total += Math.max(1, ...inner);
  }
  return total;
}

/**
 * Checks a runtime `set` of route `name` to `spec` and returns the spec with its defaults: it parses with the
 * route schema, every provider and model exists in `config`, a nested route exists among `routes` (the routes in
 * effect now), is not the route itself and nests nothing, a route nested by another gets no nested route, and
 * its attempts in total (see {@link routeAttemptTotal}) stay within {@link MAX_ATTEMPTS_CAP}. Throws
 * {@link RouteChangeError} naming the field.
 */
export function checkRouteChange(
  config: Config,
  name: string,
  spec: unknown,
  routes: Readonly<Record<string, RouteSpec>>,
): RouteSpec {
  const validName = RouteNameSchema.safeParse(name);
  if (!validName.success) {
    throw new RouteChangeError(`invalid route name "${name}": ${validName.error.issues[0]!.message}`, 'name');
  }
  const parsed = RouteSpecSchema.safeParse(spec);
  if (!parsed.success) {
    const field = firstIssueField(parsed.error);
    throw new RouteChangeError(
      `invalid route "${name}":\n${prettifyIssues(parsed.error)}`,
      field ? `spec.${field}` : 'spec',
    );
  }
  const route = parsed.data;
  route.targets.forEach((target, index) => {
    const field = `spec.targets.${index}`;
    if (isNestedRouteTarget(target)) {
      const nested = ownEntry(routes, target.route);
      const problem =
        target.route === name
          ? `route "${name}" cannot nest itself`
          : !nested
            ? `no route named "${target.route}"`
            : nested.targets.some(isNestedRouteTarget)
              ? `route "${target.route}" nests other routes itself; a nested route holds targets only`
              : undefined;
      if (problem) throw new RouteChangeError(`route "${name}": ${problem}`, `${field}.route`);
      return;
    }
    const provider = ownEntry(config.providers, target.provider);
    if (!provider) {
      const known = Object.keys(config.providers).join(', ') || 'none';
      throw new RouteChangeError(
        `route "${name}": unknown provider "${target.provider}" (configured: ${known})`,
        `${field}.provider`,
      );
    }
    if (!ownEntry(provider.models, target.model)) {
      throw new RouteChangeError(
        `route "${name}": provider "${target.provider}" has no model "${target.model}"`,
        `${field}.model`,
      );
    }
  });
  if (route.targets.some(isNestedRouteTarget)) {
    const nester = Object.entries(routes).find(
      ([other, otherSpec]) =>
        other !== name &&
        otherSpec.targets.some((target) => isNestedRouteTarget(target) && target.route === name),
    );
    if (nester) {
      throw new RouteChangeError(
        `route "${name}" is nested by route "${nester[0]}", so it may hold targets only, not nested routes`,
        'spec.targets',
      );
    }
  }
  const total = routeAttemptTotal(route, routes);
  if (total > MAX_ATTEMPTS_CAP) {
    throw new RouteChangeError(
      `route "${name}" makes up to ${total} attempts in total (1 + retries per target, summed), over the cap of ${MAX_ATTEMPTS_CAP}`,
      'spec.targets',
    );
  }
  // A route nesting this one counts its attempts too: the change must not take that route over the cap.
  const changed = { ...routes, [name]: route };
  for (const [other, otherSpec] of Object.entries(routes)) {
    if (
      other === name ||
      !otherSpec.targets.some((target) => isNestedRouteTarget(target) && target.route === name)
    )
      continue;
    const nestingTotal = routeAttemptTotal(otherSpec, changed);
    if (nestingTotal > MAX_ATTEMPTS_CAP) {
      throw new RouteChangeError(
        `route "${other}" nests "${name}" and would make up to ${nestingTotal} attempts in total, over the cap of ${MAX_ATTEMPTS_CAP}`,
        'spec.targets',
      );
    }
  }
  return route;
}

/**
 * Why a change checked against the registry's change counter `expected` may not apply to a registry at `actual`:
 * another change (to any route) was applied since it was checked; undefined when it may (or names no counter).
 */
export function staleRegistryVersion(expected: number | undefined, actual: number): string | undefined {
  if (expected === undefined || expected === actual) return undefined;
  return `the routes changed since this change was checked (registry version ${actual}, not ${expected}); check it again against them`;
}

// The application API for routes changed at runtime: list, show, set and delete them, each change checked and versioned. Node side.
import {
  QueryRejectedError,
  WithStartWorkflowOperation,
  WorkflowClient,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type Client,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { SwitchyardError } from '../config/branded-error';
import { ownEntry, type Config } from '../config/config';
import { loadConfig } from '../config/load-config';
import { isNestedRouteTarget, type RouteSpec, type RouteSpecInput } from '../config/route';
import {
  checkRouteChange,
  ChangedBySchema,
  effectiveRoutes,
  RouteChangeError,
  RouteNameSchema,
  type EffectiveRoute,
  type RouteAuditEntry,
  type RouteSource,
  type RuntimeRoutes,
} from '../config/runtime-routes';
import { DEFAULT_TASK_QUEUE, entityTaskQueue } from '../workflows/definitions';
import {
  currentQuery,
  deleteRouteUpdate,
  ROUTE_REGISTRY_CONFLICT,
  ROUTE_REGISTRY_WORKFLOW_TYPE,
  ROUTE_VERSION_CONFLICT,
  routeQuery,
  routeRegistryStartOptions,
  routeRegistryWorkflowId,
  setRouteUpdate,
  snapshotQuery,
  type RegistryRoute,
  type RegistrySnapshot,
} from '../workflows/route-registry/definitions';
import type { routeRegistryWorkflow } from '../workflows/route-registry/route-registry-workflow';
import { InvalidRequestError } from './invalid-request-error';
import type { ScheduleView } from './schedule-view';

/** How long `recentRuntimeRoutes` reuses a read, in milliseconds: the workers' default refresh interval. */
const RECENT_ROUTES_MAX_AGE_MS = 2_000;
/**
 * Times a change is checked and sent when another change (to another route) lands between its check and the
 * registry: the first, then up to two re-checks against the routes read again.
 */
const CHANGE_CHECKS = 3;

/** The registry's expectations a change carries: the state it was checked against. */
interface Expected {
  readonly expectedVersion: number;
  readonly expectedRegistryVersion: number;
}

/** A gateway key's id, label and allowed routes: what `delete` needs to know of the gateway's keys. */
export interface GatewayKeyRoutes {
  readonly id: string;
  readonly label?: string;
  /** Route names the key may call (`*` allows every route and names none). */
  readonly routes: readonly string[];
  /** A revoked key uses no route. */
  readonly revokedAt?: string;
}

export interface RoutesOptions {
  /** A connected Temporal client (see `connectClient`). */
  readonly client: Client;
  /** The calls' task queue: its workers share one registry. @default `SWITCHYARD_TASK_QUEUE`, else 'switchyard' */
  readonly taskQueue?: string;
  /** The workers' config: its routes are the starting set, its providers what a route may name. @default loaded from `SWITCHYARD_CONFIG` on first use */
  readonly config?: Config;
  /** The schedules whose calls may use a route. @default none checked */
  readonly schedules?: { list(): Promise<readonly ScheduleView[]> };
  /**
   * The gateway's keys, whose allowed routes a deletion must not leave dangling. The client cannot read the
   * gateway's key file itself; the CLI passes the file named by `SWITCHYARD_GATEWAY_KEYS`. @default none checked
   */
  readonly gatewayKeys?: () => readonly GatewayKeyRoutes[] | Promise<readonly GatewayKeyRoutes[]>;
}

/** Who changed a route, kept in its audit trail. */
export interface RouteChangeOptions {
  /** An operator's name, `cli`, `api`. @default none recorded */
  readonly by?: string;
}

/** A route as calls resolve it now. */
export interface RouteView {
  readonly name: string;
  /** 0: the config file's, never changed at runtime; else the registry's version (one more per change). */
  readonly version: number;
  readonly source: RouteSource;
  /** The spec with its defaults filled in; absent for a deleted route. */
  readonly spec?: RouteSpec;
  /** True when a runtime `delete` hides the route (a config route included). */
  readonly deleted: boolean;
  /** ISO time of the latest runtime change. */
  readonly changedAt?: string;
  readonly by?: string;
}

/**
 * A route with its audit trail, oldest first: from `show`, the entries the registry keeps (at most 100 per route,
 * fewer when the registry trims old entries to stay within its byte budget); from `set` and `delete`, the newest 10.
 */
export interface RouteDetails extends RouteView {
  readonly history: readonly RouteAuditEntry[];
}

/** What uses a route: a deletion is refused while anything does. */
export interface RouteUser {
  readonly kind: 'default' | 'schedule' | 'gateway-key' | 'route';
  /** The schedule id, the key id, the nesting route's name, or `defaultRoute`. */
  readonly id: string;
  /** One line naming the user. */
  readonly description: string;
}

/** A route that cannot be deleted while something uses it; `users` says what. */
export class RouteInUseError extends SwitchyardError {
  static override readonly brand: string = 'switchyard.RouteInUseError';

  override readonly name = 'RouteInUseError';
  constructor(
    message: string,
    readonly route: string,
    readonly users: readonly RouteUser[],
  ) {
    super(message);
  }
}

/** A route unknown to both the config and the registry. */
export class RouteNotFoundError extends SwitchyardError {
  static override readonly brand: string = 'switchyard.RouteNotFoundError';

  override readonly name = 'RouteNotFoundError';
  constructor(
    message: string,
    readonly route: string,
  ) {
    super(message);
  }
}

function viewOf(
  name: string,
  effective: EffectiveRoute | undefined,
  registry: RegistryRoute | null,
): RouteView {
  const changed = registry
    ? { changedAt: registry.changedAt, ...(registry.by !== undefined ? { by: registry.by } : {}) }
    : {};
  if (effective) {
    return {
      name,
      version: effective.version,
      source: effective.source,
      spec: effective.spec,
      deleted: false,
      ...changed,
    };
  }
  return { name, version: registry?.version ?? 0, source: 'runtime', deleted: true, ...changed };
}

/**
 * Routes changed at runtime. The config file's routes are the starting set (version 0); `set` adds a route or
 * overrides the config's of that name, `delete` hides one (a config route included) until it is set again. Each
 * change is checked first, gets the route's next version and joins its audit trail; workers pick it up within
 * their refresh interval (`SWITCHYARD_ROUTE_REFRESH_MS`, default 2 s). The registry is a workflow on the
 * entities' queue, created by the first change; reading it needs a running worker.
 */
export class Routes {
  readonly taskQueue: string;
  private config: Config | undefined;
  private readonly reader: WorkflowClient;
  private recent: { routes: RuntimeRoutes; readAtMs: number } | undefined;

  constructor(private readonly options: RoutesOptions) {
    this.taskQueue = options.taskQueue ?? process.env.SWITCHYARD_TASK_QUEUE ?? DEFAULT_TASK_QUEUE;
    this.config = options.config;
    // A terminated registry reads as none, as the workers read it.
    this.reader = new WorkflowClient({
      connection: options.client.connection,
      namespace: options.client.options.namespace,
      dataConverter: options.client.options.dataConverter,
      identity: options.client.options.identity,
      queryRejectCondition: 'NOT_OPEN',
    });
  }

  /** Every route calls can use now, by name: the config's and the runtime ones, deleted ones left out. */
  async list(): Promise<RouteView[]> {
    const runtime = await this.runtimeRoutes();
    return Object.values(effectiveRoutes(this.workerConfig(), runtime))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((route) => {
        const entry = ownEntry(runtime, route.name);
        return {
          name: route.name,
          version: route.version,
          source: route.source,
          spec: route.spec,
          deleted: false,
          ...(entry
            ? { changedAt: entry.changedAt, ...(entry.by !== undefined ? { by: entry.by } : {}) }
            : {}),
        };
      });
  }

  /** One route: its current spec and version, and its audit trail. Rejects with {@link RouteNotFoundError}. */
  async show(name: string): Promise<RouteDetails> {
    const validName = this.validName(name);
    const [runtime, registry] = await Promise.all([this.runtimeRoutes(), this.registryRoute(validName)]);
    const effective = ownEntry(effectiveRoutes(this.workerConfig(), runtime), validName);
    if (!effective && !registry) throw this.notFound(validName);
    return { ...viewOf(validName, effective, registry), history: registry?.history ?? [] };
  }

  /**
   * Sets route `name` to `spec`: adds it, or overrides the config's route of that name. Refused, before anything is
   * written, with `InvalidRequestError` naming the field: a spec the route schema refuses, a provider or model the
   * config lacks, a nested route that does not exist, or attempts in total over the cap (the message gives the
   * total), or a spec over 16 KiB as JSON (field `spec`). The check is against the routes as read with the
   * registry's change counter; a change to another route landing before this one is sent makes it checked again
   * (twice at most), and a change to this route meanwhile refuses it (field `version`). Returns the route after the
   * change, with its new version and its newest audit entries.
   */
  async set(name: string, spec: RouteSpecInput, options: RouteChangeOptions = {}): Promise<RouteDetails> {
    const validName = this.validName(name);
    const by = this.validBy(options.by);
    const config = this.workerConfig();
    const registry = await this.checkedChange(validName, async ({ routes: runtime }) => {
      const routes = Object.fromEntries(
        Object.values(effectiveRoutes(config, runtime)).map((route) => [route.name, route.spec]),
      );
      let checked: RouteSpec;
      try {
        checked = checkRouteChange(config, validName, spec, routes);
      } catch (error) {
        if (error instanceof RouteChangeError) throw new InvalidRequestError(error.message, error.field);
        throw error;
      }
      return (expected: Expected) =>
        this.options.client.workflow.executeUpdateWithStart(setRouteUpdate, {
          args: [{ name: validName, spec: checked, ...(by !== undefined ? { by } : {}), ...expected }],
          startWorkflowOperation: this.startOperation(),
        });
    });
    return this.detailsAfter(validName, registry);
  }

  /**
   * Deletes route `name` (a config route is hidden until set again). Refused with {@link RouteInUseError} while
   * the config's `defaultRoute`, a schedule on this task queue, a gateway key (when `gatewayKeys` is given) or
   * another route (as a nested route) uses it, naming each; with {@link RouteNotFoundError} for a route that is
   * not there. Checked again, as `set` is, when another change lands in between. Returns the route after the change.
   */
  async delete(name: string, options: RouteChangeOptions = {}): Promise<RouteDetails> {
    const validName = this.validName(name);
    const by = this.validBy(options.by);
    const registry = await this.checkedChange(validName, async ({ routes: runtime }) => {
      const routes = effectiveRoutes(this.workerConfig(), runtime);
      if (!ownEntry(routes, validName)) throw this.notFound(validName);
      const users = await this.usersOf(validName, routes);
      if (users.length > 0) {
        throw new RouteInUseError(
          `route "${validName}" is in use and cannot be deleted: ${users.map((user) => user.description).join('; ')}`,
          validName,
          users,
        );
      }
      return (expected: Expected) =>
        this.options.client.workflow.executeUpdateWithStart(deleteRouteUpdate, {
          args: [{ name: validName, ...(by !== undefined ? { by } : {}), ...expected }],
          startWorkflowOperation: this.startOperation(),
        });
    });
    return this.detailsAfter(validName, registry);
  }

  /** What uses route `name` now: the default route, other routes nesting it, schedules, gateway keys. */
  async usersOf(name: string, routes?: Readonly<Record<string, EffectiveRoute>>): Promise<RouteUser[]> {
    const config = this.workerConfig();
    const current = routes ?? effectiveRoutes(config, await this.runtimeRoutes());
    const users: RouteUser[] = [];
    if (config.defaultRoute === name) {
      users.push({
        kind: 'default',
        id: 'defaultRoute',
        description: "the config's defaultRoute (calls naming no route)",
      });
    }
    for (const route of Object.values(current)) {
      if (route.spec.targets.some((target) => isNestedRouteTarget(target) && target.route === name))
        users.push({ kind: 'route', id: route.name, description: `route "${route.name}" nests it` });
    }
    for (const schedule of (await this.options.schedules?.list()) ?? []) {
      if (schedule.taskQueue !== this.taskQueue) continue;
      const route = schedule.call.route ?? config.defaultRoute;
      if (route === name)
        users.push({ kind: 'schedule', id: schedule.id, description: `schedule "${schedule.id}"` });
    }
    for (const key of (await this.options.gatewayKeys?.()) ?? []) {
      if (key.revokedAt === undefined && key.routes.includes(name)) {
        const label = key.label ? ` (${key.label})` : '';
        users.push({ kind: 'gateway-key', id: key.id, description: `gateway key ${key.id}${label}` });
      }
    }
    return users;
  }

  /** The registry's current routes; none when no change was ever made. Needs a running worker. */
  async runtimeRoutes(): Promise<RuntimeRoutes> {
    try {
      return await this.reader.getHandle(routeRegistryWorkflowId(this.taskQueue)).query(currentQuery);
    } catch (error) {
      if (error instanceof WorkflowNotFoundError || error instanceof QueryRejectedError) return {};
      throw error;
    }
  }

  /**
   * The registry's current routes as read at most `maxAgeMs` ago: what `SwitchyardClient.start` checks a route
   * name the config lacks against, without a registry read for every call.
   */
  async recentRuntimeRoutes(maxAgeMs = RECENT_ROUTES_MAX_AGE_MS): Promise<RuntimeRoutes> {
    const now = Date.now();
    if (this.recent && now - this.recent.readAtMs < maxAgeMs) return this.recent.routes;
    const routes = await this.runtimeRoutes();
    this.recent = { routes, readAtMs: now };
    return routes;
  }

  private async registryRoute(name: string): Promise<RegistryRoute | null> {
    try {
      return await this.reader.getHandle(routeRegistryWorkflowId(this.taskQueue)).query(routeQuery, name);
    } catch (error) {
      if (error instanceof WorkflowNotFoundError || error instanceof QueryRejectedError) return null;
      throw error;
    }
  }

  private detailsAfter(name: string, registry: RegistryRoute): RouteDetails {
    const effective: EffectiveRoute | undefined = registry.spec
      ? { name, spec: registry.spec, version: registry.version, source: 'runtime' }
      : undefined;
    return { ...viewOf(name, effective, registry), history: registry.history };
  }

  /**
   * Reads the routes and the registry's change counter, checks a change against them (`check` throws the refusal,
   * or gives what sends the change) and sends it with what it was checked against. When another change landed in
   * between, the registry refuses it and the change is checked again against the routes read anew, up to
   * {@link CHANGE_CHECKS} times in all. The route's own version stays the one first read: a change of this route
   * meanwhile is refused (`InvalidRequestError` with field `version`), not overwritten.
   */
  private async checkedChange(
    name: string,
    check: (snapshot: RegistrySnapshot) => Promise<(expected: Expected) => Promise<RegistryRoute>>,
  ): Promise<RegistryRoute> {
    let expectedVersion: number | undefined;
    for (let attempt = 1; ; attempt += 1) {
      const snapshot = await this.snapshot();
      expectedVersion ??= ownEntry(snapshot.routes, name)?.version ?? 0;
      const send = await check(snapshot);
      this.recent = undefined;
      try {
        return await send({ expectedVersion, expectedRegistryVersion: snapshot.registryVersion });
      } catch (error) {
        const cause = error instanceof WorkflowUpdateFailedError ? error.cause : undefined;
        if (!(cause instanceof ApplicationFailure)) throw error;
        if (cause.type === ROUTE_REGISTRY_CONFLICT && attempt < CHANGE_CHECKS) continue;
        const field =
          cause.type === ROUTE_VERSION_CONFLICT || cause.type === ROUTE_REGISTRY_CONFLICT
            ? 'version'
            : 'spec';
        throw new InvalidRequestError(cause.message, field);
      }
    }
  }

  /** The routes and the change counter as of one moment; none and 0 when no change was ever made. */
  private async snapshot(): Promise<RegistrySnapshot> {
    try {
      return await this.reader.getHandle(routeRegistryWorkflowId(this.taskQueue)).query(snapshotQuery);
    } catch (error) {
      if (error instanceof WorkflowNotFoundError || error instanceof QueryRejectedError)
        return { routes: {}, registryVersion: 0 };
      throw error;
    }
  }

  private startOperation(): WithStartWorkflowOperation<typeof routeRegistryWorkflow> {
    return new WithStartWorkflowOperation<typeof routeRegistryWorkflow>(
      ROUTE_REGISTRY_WORKFLOW_TYPE,
      routeRegistryStartOptions(this.taskQueue, entityTaskQueue(this.taskQueue)),
    );
  }

  private workerConfig(): Config {
    this.config ??= loadConfig();
    return this.config;
  }

  private validName(name: string): string {
    const parsed = RouteNameSchema.safeParse(name);
    if (!parsed.success)
      throw new InvalidRequestError(
        `invalid route name "${name}": ${parsed.error.issues[0]!.message}`,
        'name',
      );
    return parsed.data;
  }

  private validBy(by: string | undefined): string | undefined {
    if (by === undefined) return undefined;
    const parsed = ChangedBySchema.safeParse(by);
    if (!parsed.success) throw new InvalidRequestError('"by" must be 1-200 characters', 'by');
    return parsed.data;
  }

  private notFound(name: string): RouteNotFoundError {
    return new RouteNotFoundError(
      `no route named "${name}" (neither in the config nor set at runtime)`,
      name,
    );
  }
}

// The route registry entity: one long-lived workflow per deployment holding the routes changed at runtime. Workflow code.
import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  setCurrentDetails,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { z } from 'zod';
import { RouteSpecSchema, type RouteSpec } from '../../config/route';
import {
  jsonBytes,
  REGISTRY_STATE_MAX_BYTES,
  ROUTE_SPEC_MAX_BYTES,
  trimAuditTrails,
  type TrimmedRoutes,
} from '../../config/route-registry-budget';
import { staleRegistryVersion, type RouteAuditEntry, type RuntimeRoutes } from '../../config/runtime-routes';
import {
  currentQuery,
  DeleteRouteInputSchema,
  deleteRouteUpdate,
  INVALID_ROUTE_CHANGE,
  MAX_AUDIT_ENTRIES_PER_ROUTE,
  MAX_RUNTIME_ROUTES,
  RETURNED_AUDIT_ENTRIES,
  ROUTE_REGISTRY_CONFLICT,
  ROUTE_VERSION_CONFLICT,
  routeQuery,
  SetRouteInputSchema,
  snapshotQuery,
  setRouteUpdate,
  type DeleteRouteInput,
  type RegistryRoute,
  type RegistrySnapshot,
  type RouteRegistryWorkflowInput,
  type SetRouteInput,
} from './definitions';

const DEFAULT_CONTINUE_AS_NEW_AFTER_CHANGES = 500;

function invalid(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: INVALID_ROUTE_CHANGE, message, nonRetryable: true });
}

function parsed<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (!result.success) throw invalid(`invalid ${what}:\n${z.prettifyError(result.error)}`);
  return result.data;
}

class RouteRegistry {
  // A plain record, not a Map: it travels through continue-as-new as JSON, within REGISTRY_STATE_MAX_BYTES.
  private routes: Record<string, RegistryRoute>;
  private changesThisRun = 0;
  /** Changes applied over every run: one per change, whatever the route. */
  private registryVersion: number;

  constructor(private readonly input: RouteRegistryWorkflowInput) {
    this.routes = { ...(input.routes ?? {}) };
    // Routes are never removed and each change adds one to one route's version: their sum counts every change.
    this.registryVersion =
      input.registryVersion ?? Object.values(this.routes).reduce((sum, route) => sum + route.version, 0);
  }

  /** Validators run before anything is written: a refused change costs the registry no history. */
  checkChange(change: SetRouteInput | DeleteRouteInput, action: 'set' | 'delete'): void {
    const current = Object.hasOwn(this.routes, change.name) ? this.routes[change.name] : undefined;
    const version = current?.version ?? 0;
    if (change.expectedVersion !== undefined && change.expectedVersion !== version) {
      throw ApplicationFailure.create({
        type: ROUTE_VERSION_CONFLICT,
        message: `route "${change.name}" is at version ${version}, not ${change.expectedVersion}: it changed since the change was checked; check it again`,
        nonRetryable: true,
        details: [{ version }],
      });
    }
    const stale = staleRegistryVersion(change.expectedRegistryVersion, this.registryVersion);
    if (stale) {
      throw ApplicationFailure.create({
        type: ROUTE_REGISTRY_CONFLICT,
        message: `route "${change.name}" not changed: ${stale}`,
        nonRetryable: true,
        details: [{ registryVersion: this.registryVersion }],
      });
    }
    if (action === 'delete' && current && !current.spec)
      throw invalid(`route "${change.name}" is deleted already (version ${version})`);
    if (!current && Object.keys(this.routes).length >= MAX_RUNTIME_ROUTES)
      throw invalid(`the registry holds ${MAX_RUNTIME_ROUTES} routes, its most`);
  }

  /**
   * A `set`'s spec must fit its own limit, and the routes after it the registry's budget once old audit entries are
   * dropped (each route's current state alone may not exceed it).
   */
  checkSize(name: string, spec: RouteSpec, by: string | undefined): void {
    const specBytes = jsonBytes(spec);
    if (specBytes > ROUTE_SPEC_MAX_BYTES)
      throw invalid(
        `spec of route "${name}" takes ${specBytes} bytes as JSON, over the limit of ${ROUTE_SPEC_MAX_BYTES}`,
      );
    const after = this.changed(name, 'set', spec, by);
    if (!after.fits)
      throw invalid(
        `spec of route "${name}" does not fit: the routes' current states would take ${after.bytes} bytes as JSON, over the registry's budget of ${REGISTRY_STATE_MAX_BYTES}; delete routes no longer needed or set a smaller spec`,
      );
  }

  /** The routes after a change, their oldest audit entries dropped to fit the budget; nothing is written. */
  private changed(
    name: string,
    action: 'set' | 'delete',
    spec: RouteSpec | undefined,
    by: string | undefined,
  ): TrimmedRoutes<RegistryRoute> {
    const current = Object.hasOwn(this.routes, name) ? this.routes[name] : undefined;
    const version = (current?.version ?? 0) + 1;
    // Workflow time: the same on replay.
    const at = new Date(Date.now()).toISOString();
    const entry: RouteAuditEntry = {
      version,
      action,
      at,
      ...(by !== undefined ? { by } : {}),
      ...(spec ? { spec } : {}),
    };
    const history = [...(current?.history ?? []), entry].slice(-MAX_AUDIT_ENTRIES_PER_ROUTE);
    const next: RegistryRoute = {
      version,
      ...(spec ? { spec } : {}),
      changedAt: at,
      ...(by !== undefined ? { by } : {}),
      history,
    };
    return trimAuditTrails({ ...this.routes, [name]: next }, REGISTRY_STATE_MAX_BYTES);
  }

  /** Applies a change; returns the route with its newest audit entries only (`route` gives them all). */
  apply(
    name: string,
    action: 'set' | 'delete',
    spec: RouteSpec | undefined,
    by: string | undefined,
  ): RegistryRoute {
    this.changesThisRun += 1;
    this.registryVersion += 1;
    this.routes = this.changed(name, action, spec, by).routes;
    this.publishDetails();
    const route = this.routes[name]!;
    return { ...route, history: route.history.slice(-RETURNED_AUDIT_ENTRIES) };
  }

  current(): RuntimeRoutes {
    const current: Record<string, RuntimeRoutes[string]> = {};
    for (const [name, route] of Object.entries(this.routes)) {
      current[name] = {
        version: route.version,
        ...(route.spec ? { spec: route.spec } : {}),
        changedAt: route.changedAt,
        ...(route.by !== undefined ? { by: route.by } : {}),
      };
    }
    return current;
  }

  snapshot(): RegistrySnapshot {
    return { routes: this.current(), registryVersion: this.registryVersion };
  }

  route(name: string): RegistryRoute | null {
    return Object.hasOwn(this.routes, name) ? this.routes[name]! : null;
  }

  shouldContinueAsNew(): boolean {
    return (
      workflowInfo().continueAsNewSuggested ||
      this.changesThisRun >= (this.input.continueAsNewAfterChanges ?? DEFAULT_CONTINUE_AS_NEW_AFTER_CHANGES)
    );
  }

  carryOver(): RouteRegistryWorkflowInput {
    // Within the budget already after any change; trimmed again for state an older version of this code carried.
    const routes = trimAuditTrails(this.routes, REGISTRY_STATE_MAX_BYTES).routes;
    return {
      ...this.input,
      routes,
      generation: (this.input.generation ?? 0) + 1,
      registryVersion: this.registryVersion,
    };
  }

  publishDetails(): void {
    const lines = Object.entries(this.routes)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([name, route]) => `- ${name}: version ${route.version}${route.spec ? '' : ' (deleted)'}`);
    // Served by a query: costs no history events.
    setCurrentDetails(`**Routes changed at runtime**\n\n${lines.join('\n') || 'none'}`);
  }
}

/**
 * Holds the routes of one deployment changed at runtime: each route's current spec (or its deletion), its version
 * and its audit trail. Every handler is synchronous, so a validator's check and its handler's change are one step.
 */
export async function routeRegistryWorkflow(input: RouteRegistryWorkflowInput): Promise<void> {
  const registry = new RouteRegistry(input);
  registry.publishDetails();

  setHandler(
    setRouteUpdate,
    (change) => {
      const spec = RouteSpecSchema.parse(change.spec);
      return registry.apply(change.name, 'set', spec, change.by);
    },
    {
      validator: (change) => {
        const valid = parsed(SetRouteInputSchema, change, 'route change');
        const spec = parsed(RouteSpecSchema, valid.spec, `spec of route "${valid.name}"`);
        registry.checkChange(valid, 'set');
        registry.checkSize(valid.name, spec, valid.by);
      },
    },
  );
  setHandler(deleteRouteUpdate, (change) => registry.apply(change.name, 'delete', undefined, change.by), {
    validator: (change) =>
      registry.checkChange(parsed(DeleteRouteInputSchema, change, 'route deletion'), 'delete'),
  });
  setHandler(currentQuery, () => registry.current());
  setHandler(snapshotQuery, () => registry.snapshot());
  setHandler(routeQuery, (name) => registry.route(name));

  await condition(() => registry.shouldContinueAsNew());
  // Continue-as-new from a handler, or while one runs, would lose its message.
  await condition(allHandlersFinished);
  await continueAsNew<typeof routeRegistryWorkflow>(registry.carryOver());
}

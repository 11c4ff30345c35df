// Names shared by the route registry entity, the workers' route cache and clients: id, messages, inputs. Workflow-safe.
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import { z } from 'zod';
import {
  ChangedBySchema,
  RouteNameSchema,
  type RouteAuditEntry,
  type RuntimeRoutes,
} from '../../config/runtime-routes';
import type { RouteSpec } from '../../config/route';

/** Workflow type of the route registry entity. */
export const ROUTE_REGISTRY_WORKFLOW_TYPE = 'routeRegistryWorkflow';

/**
 * Workflow id of the route registry of the workers on `taskQueue` (the calls' queue): one registry per
 * deployment, so two deployments sharing a namespace keep their own routes.
 */
export function routeRegistryWorkflowId(taskQueue: string): string {
  return `switchyard-routes-${taskQueue}`;
}

/**
 * Audit entries kept per route; older ones are dropped (the route's version still counts every change). Fewer are
 * kept when the registry's routes would exceed their byte budget (`REGISTRY_STATE_MAX_BYTES`): the oldest entries of
 * any route go first, never a route's newest.
 */
export const MAX_AUDIT_ENTRIES_PER_ROUTE = 100;
/** Audit entries a `setRoute` or `deleteRoute` returns with the route: its newest (`route` gives them all). */
export const RETURNED_AUDIT_ENTRIES = 10;
/** Routes the registry holds changes of, deletions included. */
export const MAX_RUNTIME_ROUTES = 500;

export const SetRouteInputSchema = z.object({
  name: RouteNameSchema,
  /** The spec with its defaults, as the client checked it (the registry checks its shape again). */
  spec: z.custom<RouteSpec>((value) => typeof value === 'object' && value !== null && !Array.isArray(value)),
  by: ChangedBySchema.optional(),
  /**
   * The route's version the change was checked against (0: the config's, or none); a registry at another
   * version refuses the change, so two changes checked against the same state cannot both apply.
   */
  expectedVersion: z.number().int().min(0).optional(),
  /**
   * The registry's change counter the change was checked against (see {@link snapshotQuery}); a registry that
   * applied any change since, to any route, refuses it, so a check across routes (a nested route exists, a deleted
   * route is nested by none) cannot race another change. @default not checked
   */
  expectedRegistryVersion: z.number().int().min(0).optional(),
});
export type SetRouteInput = z.infer<typeof SetRouteInputSchema>;

export const DeleteRouteInputSchema = z.object({
  name: RouteNameSchema,
  by: ChangedBySchema.optional(),
  /** As for `setRoute`. */
  expectedVersion: z.number().int().min(0).optional(),
  /** As for `setRoute`. */
  expectedRegistryVersion: z.number().int().min(0).optional(),
});
export type DeleteRouteInput = z.infer<typeof DeleteRouteInputSchema>;

/** `ApplicationFailure.type` of a change refused because the route moved on since it was checked. */
export const ROUTE_VERSION_CONFLICT = 'RouteVersionConflict';
/** `ApplicationFailure.type` of a change refused because another change was applied since it was checked. */
export const ROUTE_REGISTRY_CONFLICT = 'RouteRegistryConflict';
/** `ApplicationFailure.type` of a change the registry refuses as malformed. */
export const INVALID_ROUTE_CHANGE = 'InvalidRouteChange';

/** What the registry keeps of one route: its current state and its audit trail, newest last. */
export interface RegistryRoute {
  readonly version: number;
  readonly spec?: RouteSpec;
  readonly changedAt: string;
  readonly by?: string;
  readonly history: readonly RouteAuditEntry[];
}

export interface RouteRegistryWorkflowInput {
  /** Routes carried over continue-as-new. @default none */
  readonly routes?: Readonly<Record<string, RegistryRoute>>;
  /** @default 0 */
  readonly generation?: number;
  /**
   * Changes applied over every run so far: the registry's change counter, carried over continue-as-new.
   * @default the sum of the routes' versions (each change adds one to one route's version; inputs carried before
   * the counter existed have none)
   */
  readonly registryVersion?: number;
  /** Continue as new after this many changes in one run (tests set it low). @default 500 */
  readonly continueAsNewAfterChanges?: number;
}

/**
 * Sets a route's spec (adding the route, or overriding the config's); returns the route after the change with its
 * newest {@link RETURNED_AUDIT_ENTRIES} audit entries. Refused (`InvalidRouteChange`) for a spec over
 * `ROUTE_SPEC_MAX_BYTES`, or when the routes' current states would not fit the registry's byte budget.
 */
export const setRouteUpdate = defineUpdate<RegistryRoute, [SetRouteInput]>('setRoute');
/** Deletes a route (hiding the config's of that name); returns the route after the change, as `setRoute` does. */
export const deleteRouteUpdate = defineUpdate<RegistryRoute, [DeleteRouteInput]>('deleteRoute');
/** Every route's current runtime state, without history: what workers overlay on the config. */
export const currentQuery = defineQuery<RuntimeRoutes>('current');
/** Every route's current runtime state and the registry's change counter, read together. */
export interface RegistrySnapshot {
  readonly routes: RuntimeRoutes;
  /** Changes the registry has applied (0: none, or no registry): what `expectedRegistryVersion` is checked against. */
  readonly registryVersion: number;
}
/** What a client checks a change against: the routes and the change counter as of one moment. */
export const snapshotQuery = defineQuery<RegistrySnapshot>('snapshot');
/** One route's state and audit trail, or null when the registry never changed it. */
export const routeQuery = defineQuery<RegistryRoute | null, [string]>('route');

/** The start options of the registry, for update-with-start: the first change creates it. */
export function routeRegistryStartOptions(taskQueue: string, entityTaskQueue: string) {
  return {
    workflowId: routeRegistryWorkflowId(taskQueue),
    taskQueue: entityTaskQueue,
    args: [{}] as [RouteRegistryWorkflowInput],
    workflowIdConflictPolicy: 'USE_EXISTING' as const,
    staticSummary: `route registry of ${taskQueue}`,
  };
}

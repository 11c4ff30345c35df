// Each worker's copy of the routes changed at runtime, read from the route registry at most once per refresh interval. Worker side.
import { log } from '@temporalio/activity';
import { QueryRejectedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { DEFAULT_ROUTE_REFRESH_MS, ROUTE_REFRESH_VARIABLE, routeRefreshMsOf } from '../config/route-refresh';
import type { RuntimeRoutes } from '../config/runtime-routes';
import { currentQuery } from '../workflows/route-registry/definitions';
import { openRunQueries } from './open-run-queries';

/** How long one read of the registry may take before the worker gives up on it, in milliseconds. */
const READ_DEADLINE_MS = 3_000;

/** `SWITCHYARD_ROUTE_REFRESH_MS` as milliseconds (see {@link routeRefreshMsOf}). */
export function routeRefreshMsFromEnvironment(): number {
  return routeRefreshMsOf(process.env[ROUTE_REFRESH_VARIABLE]);
}

export interface RouteRegistryReaderOptions {
  /** Reads the registry's current routes (see {@link registryQuery}); `{}` when there is no registry. */
  readonly read: () => Promise<RuntimeRoutes>;
  /**
   * How long a copy is used before the next call reads the registry again, in milliseconds: a change reaches
   * every call that starts this long after it. 0 reads it for every call.
   * @default {@link DEFAULT_ROUTE_REFRESH_MS}
   */
  readonly refreshMs?: number;
  /** @default Date.now */
  readonly now?: () => number;
}

export interface RouteRegistryReader {
  /** The runtime routes as of at most `refreshMs` ago; `{}` when the registry does not exist. */
  current(): Promise<RuntimeRoutes>;
}

/**
 * Reads the current routes of the registry `workflowId` with the worker's client, within a few seconds; a registry
 * that does not exist, or was terminated, has none.
 */
export function registryQuery(client: Client, workflowId: string): () => Promise<RuntimeRoutes> {
  // A terminated registry must read as "no runtime routes", not as its last state (and needs no replay).
  const workflows = openRunQueries(client);
  return async () => {
    try {
      return await client.withDeadline(Date.now() + READ_DEADLINE_MS, () =>
        workflows.getHandle(workflowId).query(currentQuery),
      );
    } catch (error) {
      if (error instanceof WorkflowNotFoundError || error instanceof QueryRejectedError) return {};
      throw error;
    }
  };
}

/** The activity logger when a read runs inside an activity (it always does); silent otherwise. */
function warn(message: string, attributes: Record<string, unknown>): void {
  try {
    log.warn(message, attributes);
  } catch {
    // Outside an activity's context there is no logger to write to.
  }
}

/**
 * A per-worker copy of the registry's current routes. A call finding its copy older than the refresh interval
 * waits for one read (shared by every call asking at that moment); every other call uses the copy as it is, so a
 * healthy call costs no registry round-trip. When a read fails the last copy stays in use (and is read again after
 * another interval) and a warning is logged; until a read succeeds again, calls do not wait for the reads retried
 * each interval but go on with the copy in use. With no copy yet, an empty one is used for that interval: calls resolve
 * against the config's routes alone rather than wait on the registry and fail. That fails open: during a registry
 * outage a worker that never read it serves a config route deleted at runtime, and a route set only at runtime is
 * unknown to it.
 */
export function createRouteRegistryReader(options: RouteRegistryReaderOptions): RouteRegistryReader {
  const refreshMs = options.refreshMs ?? DEFAULT_ROUTE_REFRESH_MS;
  const now = options.now ?? Date.now;
  let copy: { routes: RuntimeRoutes; readAtMs: number } | undefined;
  let reading: Promise<RuntimeRoutes> | undefined;
  /** The last read failed: the copy in use is a fallback, and calls do not wait on the next read. */
  let failing = false;

  async function read(): Promise<RuntimeRoutes> {
    const startedAtMs = now();
    try {
      const routes = await options.read();
      copy = { routes, readAtMs: startedAtMs };
      failing = false;
    } catch (error) {
      failing = true;
      const message = error instanceof Error ? error.message : String(error);
      if (copy) {
        warn('route registry unreadable: keeping the last copy of the runtime routes', { error: message });
        copy = { routes: copy.routes, readAtMs: startedAtMs };
      } else {
        // Fail open: calls on the config's routes must not wait on (and fail with) an unreachable registry.
        warn(
          'route registry unreadable and no copy of the runtime routes yet: using the config routes alone until the next read',
          { error: message },
        );
        copy = { routes: {}, readAtMs: startedAtMs };
      }
    }
    return copy.routes;
  }

  return {
    async current() {
      if (copy && now() - copy.readAtMs < refreshMs) return copy.routes;
      // read() never rejects: a failure leaves a copy (the last one, else an empty one).
      reading ??= read().finally(() => {
        reading = undefined;
      });
      // While the registry is failing, calls go on with the copy in use instead of each waiting out a read.
      if (failing && copy) return copy.routes;
      return reading;
    },
  };
}

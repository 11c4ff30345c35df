// The routes the gateway offers: the config's with the routes changed at runtime overlaid, from the client's copy read at most once per refresh interval. Node side.
import { ROUTE_REFRESH_VARIABLE, routeRefreshMsOf } from '../config/route-refresh';
import type { SwitchyardClient } from '../client/switchyard-client';
import type { Config } from '../config/config';
import { configWithRuntimeRoutes, type RuntimeRoutes } from '../config/runtime-routes';

/** How long one read of the route registry may take before the gateway gives up on it, in milliseconds. */
const READ_DEADLINE_MS = 3_000;

export interface GatewayRoutesOptions {
  /** The gateway's config: its routes are the starting set, its `defaultRoute` the route of a request naming none. */
  readonly config: Config;
  /**
   * The runtime routes as read at most `maxAgeMs` ago (see {@link clientRuntimeRoutes}); `{}` when there is no
   * registry. Answers from a copy without I/O while the copy is young enough.
   */
  readonly read: (maxAgeMs: number) => Promise<RuntimeRoutes>;
  /**
   * How old a copy of the runtime routes may be when a request is checked against it, in milliseconds; after a
   * failed read, how long before the next one.
   * @default `SWITCHYARD_ROUTE_REFRESH_MS`, else 2000 (the workers' interval)
   */
  readonly refreshMs?: number;
  /** @default Date.now */
  readonly now?: () => number;
}

export interface GatewayRoutes {
  /**
   * The config as requests are checked against now: each route replaced by its runtime spec, a route set at
   * runtime added, one deleted at runtime gone.
   */
  current(): Promise<Config>;
}

/**
 * The client's recent copy of the runtime routes (`routes.recentRuntimeRoutes`), read again within a few seconds
 * when older than `maxAgeMs`. It is the copy the client's `start` checks a route the config lacks against, so the
 * gateway's check and the start's agree, and a change made through this client is seen at once.
 */
export function clientRuntimeRoutes(
  switchyard: SwitchyardClient,
): (maxAgeMs: number) => Promise<RuntimeRoutes> {
  return (maxAgeMs) =>
    switchyard.temporal.withDeadline(Date.now() + READ_DEADLINE_MS, () =>
      switchyard.routes.recentRuntimeRoutes(maxAgeMs),
    );
}

/**
 * The gateway's view of the routes. A request finding the copy older than the refresh interval waits for one read
 * of the registry (shared by every request asking at that moment); every other request uses the copy as it is, so
 * no request costs a registry round-trip of its own. When a read fails, the last copy read stays in use (before
 * any, the config's routes alone) until another interval has passed, so an unreadable registry neither fails nor
 * slows every request.
 */
export function createGatewayRoutes(options: GatewayRoutesOptions): GatewayRoutes {
  const refreshMs = options.refreshMs ?? routeRefreshMsOf(process.env[ROUTE_REFRESH_VARIABLE]);
  const now = options.now ?? Date.now;
  let last: RuntimeRoutes = {};
  let failedAtMs: number | undefined;
  let reading: Promise<RuntimeRoutes> | undefined;
  // The overlay re-parses every runtime spec: done once per copy, not once per request.
  let overlaid: { runtime: RuntimeRoutes; config: Config } | undefined;

  async function read(): Promise<RuntimeRoutes> {
    try {
      last = await options.read(refreshMs);
      failedAtMs = undefined;
    } catch {
      failedAtMs = now();
    }
    return last;
  }

  return {
    async current() {
      const runtime =
        failedAtMs !== undefined && now() - failedAtMs < refreshMs
          ? last
          : await (reading ??= read().finally(() => {
              reading = undefined;
            }));
      if (overlaid?.runtime !== runtime)
        overlaid = { runtime, config: configWithRuntimeRoutes(options.config, runtime) };
      return overlaid.config;
    },
  };
}

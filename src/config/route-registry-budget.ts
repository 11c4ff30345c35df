// The route registry's size limits: the byte budget of its carried state and the trimming of audit trails to fit it. Workflow-safe (pure).
import type { RouteAuditEntry } from './runtime-routes';

/**
 * Most bytes (UTF-8 JSON) of the routes the registry carries through continue-as-new, audit trails included. Well
 * under Temporal's 2 MB payload limit: after each change the oldest audit entries are dropped until the routes
 * fit. @default 512 KiB
 */
export const REGISTRY_STATE_MAX_BYTES = 512 * 1024;

/** Most bytes (UTF-8 JSON, defaults filled in) of one route's spec a `set` may store. */
export const ROUTE_SPEC_MAX_BYTES = 16 * 1024;

/** Bytes of `text` encoded as UTF-8, counted without an encoder (workflow code has none to rely on). */
export function utf8Bytes(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    // A surrogate pair is one 4-byte character: count it at its high half, skip the low half.
    else if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length) {
      bytes += 4;
      index += 1;
    } else bytes += 3;
  }
  return bytes;
}

/** Bytes of `value` as the JSON payload converter writes it (UTF-8 JSON). */
export function jsonBytes(value: unknown): number {
  return utf8Bytes(JSON.stringify(value) ?? '');
}

/** A route as far as trimming is concerned: its audit trail, newest last; the last entry is its current state. */
export interface AuditedRoute {
  readonly history: readonly RouteAuditEntry[];
}

export interface TrimmedRoutes<T extends AuditedRoute> {
  /** The routes, each keeping at least its newest audit entry. */
  readonly routes: Record<string, T>;
  /** Their size in bytes (UTF-8 JSON). */
  readonly bytes: number;
  /** Audit entries dropped. */
  readonly dropped: number;
  /** False when even each route's newest entry alone is over the budget. */
  readonly fits: boolean;
}

/**
 * Drops the oldest audit entries, across routes (by time, then route name, then version), until `routes` take at
 * most `maxBytes` as JSON. A route's newest entry (its current state) is never dropped, nor is a route; so the result
 * may still be over when those alone are (`fits` false). The routes are returned as given when they fit already.
 */
export function trimAuditTrails<T extends AuditedRoute>(
  routes: Readonly<Record<string, T>>,
  maxBytes: number = REGISTRY_STATE_MAX_BYTES,
): TrimmedRoutes<T> {
  let bytes = jsonBytes(routes);
  if (bytes <= maxBytes) return { routes: { ...routes }, bytes, dropped: 0, fits: true };
  const droppable: { name: string; index: number; at: string; version: number; bytes: number }[] = [];
  for (const [name, route] of Object.entries(routes)) {
    route.history.slice(0, -1).forEach((entry, index) => {
      // An array element and the comma beside it: the newest entry stays, so each dropped one has a comma.
      droppable.push({ name, index, at: entry.at, version: entry.version, bytes: jsonBytes(entry) + 1 });
    });
  }
  droppable.sort((a, b) =>
    a.at !== b.at
      ? a.at < b.at
        ? -1
        : 1
      : a.name !== b.name
        ? a.name < b.name
          ? -1
          : 1
        : a.version - b.version,
  );
  const dropping: Record<string, Set<number>> = {};
  let dropped = 0;
  for (const entry of droppable) {
    if (bytes <= maxBytes) break;
    (dropping[entry.name] ??= new Set()).add(entry.index);
    bytes -= entry.bytes;
    dropped += 1;
  }
  const trimmed: Record<string, T> = {};
  for (const [name, route] of Object.entries(routes)) {
    const indexes = Object.hasOwn(dropping, name) ? dropping[name]! : undefined;
    trimmed[name] = indexes
      ? { ...route, history: route.history.filter((_, index) => !indexes.has(index)) }
      : route;
  }
  return { routes: trimmed, bytes, dropped, fits: bytes <= maxBytes };
}

// The route registry's byte budget as a pure rule: the oldest audit entries go first, across routes, never a route's
// newest.
import {
  jsonBytes,
  trimAuditTrails,
  utf8Bytes,
  type AuditedRoute,
} from '../../../src/config/route-registry-budget';
import type { RouteAuditEntry } from '../../../src/config/runtime-routes';

/** An entry of `size` characters of padding changed at second `second`. */
function entry(version: number, second: number, size = 100): RouteAuditEntry {
  return {
    version,
    action: 'set',
    at: `2026-01-01T00:00:${String(second).padStart(2, '0')}.000Z`,
    by: 'x'.repeat(size),
  };
}

function trail(route: AuditedRoute): string {
  return route.history.map((item) => `${item.version}`).join(' ');
}

test('routes within the budget come back as they are', () => {
  const routes = { a: { history: [entry(1, 1), entry(2, 2)] } };
  const trimmed = trimAuditTrails(routes, jsonBytes(routes));
  expect(trimmed).toMatchObject({ dropped: 0, fits: true, bytes: jsonBytes(routes) });
  expect(trimmed.routes).toEqual(routes);
});

test('the oldest entries across routes go first until the routes fit, each route keeping its newest', () => {
  // a changed at seconds 1, 3, 5; b at 2, 4, 6.
  const routes = {
    a: { history: [entry(1, 1), entry(2, 3), entry(3, 5)] },
    b: { history: [entry(1, 2), entry(2, 4), entry(3, 6)] },
  };
  const full = jsonBytes(routes);
  // Room for all but about three entries: a's 1, b's 1 and a's 2 go, in that order.
  const trimmed = trimAuditTrails(routes, full - 3 * jsonBytes(entry(1, 1)));
  expect(trimmed.dropped).toBe(3);
  expect(trail(trimmed.routes.a!)).toBe('3');
  expect(trail(trimmed.routes.b!)).toBe('2 3');
  expect(trimmed.fits).toBe(true);
  // The count it gives is the routes' real size.
  expect(trimmed.bytes).toBe(jsonBytes(trimmed.routes));
  expect(trimmed.bytes).toBeLessThanOrEqual(full - 3 * jsonBytes(entry(1, 1)));
});

test("a route's newest entry is never dropped: too small a budget leaves one each and says it does not fit", () => {
  const routes = {
    a: { history: [entry(1, 1), entry(2, 3)] },
    b: { history: [entry(1, 2)] },
  };
  const trimmed = trimAuditTrails(routes, 10);
  expect(trail(trimmed.routes.a!)).toBe('2');
  expect(trail(trimmed.routes.b!)).toBe('1');
  expect(trimmed).toMatchObject({ dropped: 1, fits: false });
  expect(trimmed.bytes).toBe(jsonBytes(trimmed.routes));
});

test('a route with a long trail loses its oldest entries to another route newly changed', () => {
  const busy = { history: Array.from({ length: 50 }, (_, index) => entry(index + 1, index % 60)) };
  const routes = { busy, fresh: { history: [entry(1, 59, 2_000)] } };
  const budget = jsonBytes({ busy }) + 1_000;
  const trimmed = trimAuditTrails(routes, budget);
  expect(trimmed.fits).toBe(true);
  expect(trail(trimmed.routes.fresh!)).toBe('1');
  const kept = trimmed.routes.busy!.history.map((item) => item.version);
  // The newest of busy are kept, in order, ending with its current entry.
  expect(kept.at(-1)).toBe(50);
  expect(kept).toEqual(Array.from({ length: kept.length }, (_, index) => 51 - kept.length + index));
  expect(kept.length).toBeLessThan(50);
});

test('bytes are counted as UTF-8', () => {
  expect(utf8Bytes('abc')).toBe(3);
  expect(utf8Bytes('é')).toBe(2);
  expect(utf8Bytes('€')).toBe(3);
  expect(utf8Bytes('😀')).toBe(4);
  expect(jsonBytes({ a: 'é' })).toBe(Buffer.byteLength(JSON.stringify({ a: 'é' }), 'utf8'));
});

// The explanation's walk half (skips, chosen) and when a call must read the worker's measurements.
import type { ResolvedTarget } from '../../../src/config/resolved-route';
import { readsObservations } from '../../../src/routing/candidate-order';
import { explainCall } from '../../../src/routing/routing-explanation';
import type { AttemptRecord } from '../../../src/routing/routing-record';

const target = (model: string, via?: string) =>
  ({ provider: 'p', model, ...(via ? { via } : {}) }) as unknown as ResolvedTarget;
const route = { targets: [target('a'), target('x', 'pool'), target('y', 'pool')] };
const order = { strategy: 'ordered', considered: ['p/a', 'route:pool'], reason: 'r', rejected: [] };

function attempt(targetIndex: number, extra: Partial<AttemptRecord>): AttemptRecord {
  return { targetIndex, outcome: 'failed', ...extra } as AttemptRecord;
}

test('skips are named once per target and reason, with their nested route; chosen is the serving target', () => {
  const attempts = [
    attempt(0, { outcome: 'skipped', skipReason: 'circuit_open' }),
    attempt(1, { outcome: 'skipped', skipReason: 'context_window', message: 'too long' }),
    attempt(0, { outcome: 'skipped', skipReason: 'circuit_open' }),
    attempt(2, { outcome: 'succeeded' }),
  ];
  expect(explainCall(route, order, attempts, { targetIndex: 2, provider: 'p', model: 'y' })).toEqual({
    ...order,
    chosen: 'p/y (route:pool)',
    skipped: [
      { candidate: 'p/a', reason: 'circuit_open' },
      { candidate: 'p/x (route:pool)', reason: 'context_window: too long' },
    ],
  });
  expect(explainCall(route, order, [], undefined)).toEqual({ ...order, skipped: [] });
});

test('a call reads measurements only when something orders or filters by them', () => {
  expect(readsObservations({})).toBe(false);
  expect(readsObservations({ strategy: 'ordered' })).toBe(false);
  expect(readsObservations({ strategy: 'cheapest' })).toBe(false);
  expect(readsObservations(undefined)).toBe(false);
  expect(readsObservations({ strategy: 'fastest' })).toBe(true);
  expect(readsObservations({ strategy: 'weighted' })).toBe(true);
  expect(readsObservations({ strategy: 'fewest_failures' })).toBe(true);
  // A nested route's strategy counts, even when the call's prefer overrides the outer one.
  const nested = {
    strategy: 'cheapest' as const,
    candidates: [{ targetIndexes: [0], weight: 1, strategy: 'weighted' as const }],
  };
  expect(readsObservations(nested, { prefer: 'cost' })).toBe(true);
  expect(readsObservations({ strategy: 'fastest' }, { prefer: 'cost' })).toBe(false);
  expect(readsObservations(undefined, { prefer: 'latency' })).toBe(true);
  expect(readsObservations(undefined, { require: { maxLatencyMs: 100 } })).toBe(true);
  expect(readsObservations(undefined, { require: { maxCostUsd: 1 } })).toBe(false);
});

// The candidate order of every strategy as a pure rule: same state, same order; ties; rejections with reasons.
import { randomInt } from 'node:crypto';
import type { ResolvedRoute, ResolvedTarget, RouteCandidate } from '../../../src/config/resolved-route';
import type { RoutingStrategy } from '../../../src/config/route';
import {
  orderCandidates,
  weightedPick,
  type CandidateOrderInput,
} from '../../../src/routing/candidate-order';

function target(name: string, extra: Partial<ResolvedTarget> = {}): ResolvedTarget {
  return {
    provider: 'p',
    providerKind: 'openai',
    model: name,
    timeoutMs: 30_000,
    retries: 0,
    prices: { inputUsdPerMillion: 1, cachedInputUsdPerMillion: 1, outputUsdPerMillion: 1 },
    ...extra,
  };
}

type Route = CandidateOrderInput['route'];

function route(
  targets: readonly ResolvedTarget[],
  strategy?: RoutingStrategy,
  candidates?: RouteCandidate[],
): Route {
  return {
    targets,
    ...(strategy ? { strategy } : {}),
    ...(candidates ? { candidates } : {}),
  } satisfies Pick<ResolvedRoute, 'targets' | 'candidates' | 'strategy'>;
}

const names = (input: CandidateOrderInput) => orderCandidates(input).candidates.map((entry) => entry.name);
const three = [target('a'), target('b'), target('c')];

describe('ordered', () => {
  test('declared order, and the same state gives the same order', () => {
    const input = { route: route(three), boundsNanoUsd: [3, 1, 2] };
    expect(names(input)).toEqual(['p/a', 'p/b', 'p/c']);
    expect(orderCandidates(input)).toEqual(orderCandidates(input));
    expect(orderCandidates(input).strategy).toBe('ordered');
    expect(orderCandidates(input).reason).toBe('declared order of 3 eligible candidates: p/a first');
  });
});

describe('cheapest', () => {
  test('lowest worst-case bound first, ties by declared order', () => {
    const input = { route: route(three, 'cheapest'), boundsNanoUsd: [300_000, 100_000, 100_000] };
    expect(names(input)).toEqual(['p/b', 'p/c', 'p/a']);
    expect(orderCandidates(input).reason).toBe(
      'cheapest of 3 eligible candidates: p/b may cost up to 0.000100 USD',
    );
  });

  test("the call's prefer: cost overrides the route's strategy", () => {
    const input = {
      route: route(three, 'fastest'),
      prefer: 'cost' as const,
      boundsNanoUsd: [3_000, 2_000, 1_000],
    };
    expect(names(input)).toEqual(['p/c', 'p/b', 'p/a']);
    expect(orderCandidates(input).strategy).toBe('cheapest');
    expect(orderCandidates(input).reason).toMatch(/^the call prefers cost: cheapest of 3/);
  });

  test('a nested route counts at its cheapest target, and orders its targets by its own strategy', () => {
    // Targets 1 and 2 belong to route "pool" (ordered inside): it leads on target 2, yet tries 1 first.
    const nested = route([target('a'), target('b'), target('c')], 'cheapest', [
      { targetIndexes: [0], weight: 1 },
      { targetIndexes: [1, 2], weight: 1, route: 'pool', strategy: 'ordered' },
    ]);
    const order = orderCandidates({ route: nested, boundsNanoUsd: [200, 500, 100] });
    expect(order.candidates).toEqual([
      { index: 1, name: 'route:pool', route: 'pool', targetIndexes: [1, 2] },
      { index: 0, name: 'p/a', targetIndexes: [0] },
    ]);
    const cheapInside = route(nested.targets, 'ordered', [
      nested.candidates![0]!,
      { ...nested.candidates![1]!, strategy: 'cheapest' },
    ]);
    expect(
      orderCandidates({ route: cheapInside, boundsNanoUsd: [200, 500, 100] }).candidates[1]!.targetIndexes,
    ).toEqual([2, 1]);
  });
});

describe('fastest', () => {
  test('lowest measured latency first; unmeasured after, in declared order', () => {
    const four = [...three, target('d')];
    const input = {
      route: route(four, 'fastest'),
      boundsNanoUsd: [1, 1, 1, 1],
      observations: [
        { recentFailures: 0 },
        { latencyMs: 900, recentFailures: 0 },
        undefined,
        { latencyMs: 300, recentFailures: 0 },
      ],
    };
    expect(names(input)).toEqual(['p/d', 'p/b', 'p/a', 'p/c']);
    expect(orderCandidates(input).reason).toBe(
      'fastest of 4 eligible candidates: p/d measured 300 ms typical',
    );
  });

  test('with no measurements at all: declared order, and the reason says so', () => {
    const input = { route: route(three, 'fastest'), boundsNanoUsd: [3, 2, 1], observations: [] };
    expect(names(input)).toEqual(['p/a', 'p/b', 'p/c']);
    expect(orderCandidates(input).reason).toContain('no measurements');
  });

  test('equal latencies keep declared order', () => {
    const same = { latencyMs: 500, recentFailures: 0 };
    expect(
      names({ route: route(three, 'fastest'), boundsNanoUsd: [], observations: [same, same, same] }),
    ).toEqual(['p/a', 'p/b', 'p/c']);
  });
});

describe('fewest_failures', () => {
  test('fewest recent failures plus failures in this call first, ties by declared order', () => {
    const observations = [{ recentFailures: 2 }, { recentFailures: 0 }, { recentFailures: 0 }];
    const input = { route: route(three, 'fewest_failures'), boundsNanoUsd: [], observations };
    expect(names(input)).toEqual(['p/b', 'p/c', 'p/a']);
    // Asked again after p/b failed twice in this call: it moves back behind p/c and level with p/a (declared first).
    expect(names({ ...input, failuresThisCall: [0, 2, 0] })).toEqual(['p/c', 'p/a', 'p/b']);
    expect(orderCandidates({ ...input, failuresThisCall: [0, 2, 0] }).reason).toBe(
      'fewest failures of 3 eligible candidates: p/c with 0 (recent and in this call)',
    );
  });

  test('prefer: reliability means fewest_failures; with no observations it is declared order', () => {
    const input = { route: route(three), prefer: 'reliability' as const, boundsNanoUsd: [] };
    expect(orderCandidates(input).strategy).toBe('fewest_failures');
    expect(names(input)).toEqual(['p/a', 'p/b', 'p/c']);
  });
});

describe('weighted', () => {
  const weightedRoute = route(
    [target('a', { weight: 1 }), target('b', { weight: 3 }), target('c', { weight: 1 })],
    'weighted',
    [
      { targetIndexes: [0], weight: 1 },
      { targetIndexes: [1], weight: 3 },
      { targetIndexes: [2], weight: 1 },
    ],
  );

  test('the draw picks the leader by its share of the weights; the rest follow in declared order', () => {
    // Shares of [0, 1): a [0, 0.2), b [0.2, 0.8), c [0.8, 1).
    expect(names({ route: weightedRoute, boundsNanoUsd: [], draw: 0.1 })).toEqual(['p/a', 'p/b', 'p/c']);
    expect(names({ route: weightedRoute, boundsNanoUsd: [], draw: 0.2 })).toEqual(['p/b', 'p/a', 'p/c']);
    expect(names({ route: weightedRoute, boundsNanoUsd: [], draw: 0.79 })).toEqual(['p/b', 'p/a', 'p/c']);
    expect(names({ route: weightedRoute, boundsNanoUsd: [], draw: 0.85 })).toEqual(['p/c', 'p/a', 'p/b']);
    // No draw (a call that measured nothing): the first share's.
    expect(names({ route: weightedRoute, boundsNanoUsd: [] })).toEqual(['p/a', 'p/b', 'p/c']);
    expect(orderCandidates({ route: weightedRoute, boundsNanoUsd: [], draw: 0.5 }).reason).toBe(
      'weighted draw 0.500 over 3 eligible candidates picked p/b (weight 3 of 5); the rest in declared order',
    );
  });

  // Tolerance: 5 percentage points of 1,000 draws. The widest share (60 %) has a standard deviation of about 1.5
  // points, so a correct rule falls outside this with odds far below one in a million.
  test('1,000 draws from a uniform source lead within 5 points of each weight share', () => {
    const counts: Record<string, number> = { 'p/a': 0, 'p/b': 0, 'p/c': 0 };
    for (let i = 0; i < 1000; i += 1) {
      const draw = randomInt(0, 2 ** 32) / 2 ** 32;
      counts[names({ route: weightedRoute, boundsNanoUsd: [], draw })[0]!]! += 1;
    }
    expect(Math.abs(counts['p/a']! / 1000 - 0.2)).toBeLessThanOrEqual(0.05);
    expect(Math.abs(counts['p/b']! / 1000 - 0.6)).toBeLessThanOrEqual(0.05);
    expect(Math.abs(counts['p/c']! / 1000 - 0.2)).toBeLessThanOrEqual(0.05);
  });

  test('a weighted nested route picks inside its share with the rest of the draw', () => {
    expect(weightedPick([1, 1], 0.75)).toEqual({ leader: 1, within: 0.5 });
    const nested = route([target('a'), target('x', { weight: 1 }), target('y', { weight: 3 })], 'weighted', [
      { targetIndexes: [0], weight: 1 },
      { targetIndexes: [1, 2], weight: 1, route: 'pool', strategy: 'weighted' },
    ]);
    // 0.55 falls at 0.1 of pool's share: inside the pool, x's quarter.
    expect(orderCandidates({ route: nested, boundsNanoUsd: [], draw: 0.55 }).candidates).toEqual([
      { index: 1, name: 'route:pool', route: 'pool', targetIndexes: [1, 2] },
      { index: 0, name: 'p/a', targetIndexes: [0] },
    ]);
    // 0.9 falls at 0.8 of pool's share: y's three quarters.
    expect(
      orderCandidates({ route: nested, boundsNanoUsd: [], draw: 0.9 }).candidates[0]!.targetIndexes,
    ).toEqual([2, 1]);
  });
});

describe('require', () => {
  test('capabilities: a model declaring no support is rejected with the reason; undeclared passes', () => {
    const targets = [
      target('a', { supports: { tools: false } }),
      target('b'),
      target('c', { supports: { tools: true } }),
    ];
    const order = orderCandidates({
      route: route(targets),
      require: { capabilities: ['tools'] },
      boundsNanoUsd: [],
    });
    expect(order.candidates.map((entry) => entry.name)).toEqual(['p/b', 'p/c']);
    expect(order.rejected).toEqual([
      { candidate: 'p/a', reason: 'does not support tools (require.capabilities)' },
    ]);
    expect(order.rejectedBy).toEqual(['require.capabilities']);
    expect(order.reason).toBe(
      'declared order of 2 eligible candidates: p/b first; 1 rejected by require.capabilities',
    );
  });

  test('maxLatencyMs: measured latency above it, or unmeasured with a timeout above it, is rejected', () => {
    const targets = [target('a'), target('b', { timeoutMs: 1_000 }), target('c')];
    const order = orderCandidates({
      route: route(targets),
      require: { maxLatencyMs: 2_000 },
      boundsNanoUsd: [],
      observations: [
        { latencyMs: 2_500, recentFailures: 0 },
        undefined,
        { latencyMs: 1_500, recentFailures: 0 },
      ],
    });
    expect(order.candidates.map((entry) => entry.name)).toEqual(['p/b', 'p/c']);
    expect(order.rejected).toEqual([
      { candidate: 'p/a', reason: 'measured 2500 ms typical latency, above require.maxLatencyMs 2000' },
    ]);
    const unmeasured = orderCandidates({
      route: route(targets),
      require: { maxLatencyMs: 2_000 },
      boundsNanoUsd: [],
    });
    expect(unmeasured.rejected.map((verdict) => verdict.reason)).toEqual([
      'no latency measured, and its timeout 30000 ms is above require.maxLatencyMs 2000',
      'no latency measured, and its timeout 30000 ms is above require.maxLatencyMs 2000',
    ]);
  });

  test('maxCostUsd: a worst-case bound above it is rejected', () => {
    const order = orderCandidates({
      route: route(three, 'cheapest'),
      require: { maxCostUsd: 0.001 },
      boundsNanoUsd: [2_000_000, 1_000_000, 500_000],
    });
    expect(order.candidates.map((entry) => entry.name)).toEqual(['p/c', 'p/b']);
    expect(order.rejected).toEqual([
      { candidate: 'p/a', reason: 'may cost up to 0.002000 USD, above require.maxCostUsd 0.001' },
    ]);
  });

  test('a nested route keeps its eligible targets, and is rejected whole only when none is left', () => {
    const nested = route([target('a'), target('x'), target('y')], 'ordered', [
      { targetIndexes: [0], weight: 1 },
      { targetIndexes: [1, 2], weight: 1, route: 'pool' },
    ]);
    const partly = orderCandidates({
      route: nested,
      require: { maxCostUsd: 0.001 },
      boundsNanoUsd: [1, 5_000_000, 1],
    });
    expect(partly.candidates[1]).toEqual({ index: 1, name: 'route:pool', route: 'pool', targetIndexes: [2] });
    expect(partly.rejected).toEqual([
      {
        candidate: 'p/x',
        reason: 'may cost up to 0.005000 USD, above require.maxCostUsd 0.001 (in route:pool)',
      },
    ]);
    const whole = orderCandidates({
      route: nested,
      require: { maxCostUsd: 0.001 },
      boundsNanoUsd: [1, 5_000_000, 5_000_000],
    });
    expect(whole.candidates.map((entry) => entry.name)).toEqual(['p/a']);
    expect(whole.rejected).toEqual([
      {
        candidate: 'route:pool',
        reason:
          'every target rejected: p/x may cost up to 0.005000 USD, above require.maxCostUsd 0.001; p/y may cost up to 0.005000 USD, above require.maxCostUsd 0.001',
      },
    ]);
  });

  test('every candidate rejected: no order, and the reason names the requirements', () => {
    const order = orderCandidates({
      route: route([target('a', { supports: { images: false } }), target('b')]),
      require: { capabilities: ['images'], maxCostUsd: 0.001 },
      boundsNanoUsd: [1, 9_000_000],
    });
    expect(order.candidates).toEqual([]);
    expect(order.rejectedBy).toEqual(['require.capabilities', 'require.maxCostUsd']);
    expect(order.reason).toBe(
      'no eligible candidate: every one was rejected by require.capabilities, require.maxCostUsd',
    );
  });
});

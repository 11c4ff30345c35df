// The plan follows the call's candidate order: strategy, nested routes, prefer and require, and says why.
import { renderCallPlan } from '../../../src/cli/render-call-plan';
import { parseConfig } from '../../../src/config/load-config';
import { resolveRoute } from '../../../src/config/resolve-route';
import { planCall } from '../../../src/routing/call-plan';

const prices = { inputUsdPerMillion: 1, outputUsdPerMillion: 4 };
const config = parseConfig({
  providers: {
    openai: {
      kind: 'openai',
      apiKeyEnv: 'OPENAI_API_KEY',
      models: {
        dear: prices,
        cheap: { inputUsdPerMillion: 0.1, outputUsdPerMillion: 0.4 },
        small: { ...prices, contextWindow: 40 },
      },
    },
  },
  routes: {
    pool: {
      targets: [
        { provider: 'openai', model: 'small', retries: 2 },
        { provider: 'openai', model: 'cheap', retries: 1 },
        { provider: 'openai', model: 'dear' },
      ],
    },
    outer: { strategy: 'cheapest', targets: [{ provider: 'openai', model: 'dear' }, { route: 'pool' }] },
    fast: {
      strategy: 'fastest',
      targets: [
        { provider: 'openai', model: 'dear' },
        { provider: 'openai', model: 'cheap' },
      ],
    },
  },
});
const request = { messages: [{ role: 'user' as const, content: 'Say hello' }], maxOutputTokens: 64 };
const attempts = (plan: ReturnType<typeof planCall>) =>
  plan.attempts.map((attempt) => [attempt.model, attempt.retry, attempt.via, attempt.skip?.reason]);

test("cheapest with a nested route: the pool leads at its cheapest target, tried in the pool's own order", () => {
  const plan = planCall(resolveRoute(config, 'outer'), request);
  expect(plan.explanation).toEqual({
    strategy: 'cheapest',
    considered: ['route:pool', 'openai/dear'],
    reason: expect.stringMatching(
      /^cheapest of 2 eligible candidates: route:pool may cost up to 0\.0000\d+ USD$/,
    ),
    rejected: [],
  });
  // small is passed over (its window: one entry, not its retries) and cheap runs with its retry; the pool's dear
  // is not planned.
  expect(attempts(plan)).toEqual([
    ['small', 0, 'pool', 'context_window'],
    ['cheap', 0, 'pool', undefined],
    ['cheap', 1, 'pool', undefined],
    ['dear', 0, undefined, undefined],
  ]);
  const rendered = renderCallPlan(plan);
  expect(rendered).toContain('strategy');
  expect(rendered).toContain('openai/cheap (route:pool)');
});

test('fastest without measurements: declared order, and the reason says the plan has none', () => {
  const plan = planCall(resolveRoute(config, 'fast'), request);
  expect(attempts(plan).map(([model]) => model)).toEqual(['dear', 'cheap']);
  expect(plan.explanation.reason).toContain('no measurements');
});

test('prefer and require: the order and rejections a call would get, rendered with their reasons', () => {
  const plan = planCall(resolveRoute(config, 'fast'), request, {
    prefer: 'cost',
    require: { maxCostUsd: 0.0001 },
  });
  expect(plan.explanation.strategy).toBe('cheapest');
  expect(attempts(plan).map(([model]) => model)).toEqual(['cheap']);
  expect(plan.explanation.rejected).toEqual([
    { candidate: 'openai/dear', reason: expect.stringContaining('above require.maxCostUsd 0.0001') },
  ]);
  expect(renderCallPlan(plan)).toMatch(/rejected\s+openai\/dear: may cost up to/);
});

test('a plain ordered route plans as before: declared order, each target with its retries', () => {
  const plan = planCall(resolveRoute(config, 'pool'), request, 30_000);
  expect(plan.deadlineMs).toBe(30_000);
  expect(attempts(plan).map(([model, retry]) => [model, retry])).toEqual([
    ['small', 0],
    ['small', 1],
    ['small', 2],
    ['cheap', 0],
    ['cheap', 1],
    ['dear', 0],
  ]);
  expect(plan.explanation.reason).toBe('declared order of 3 eligible candidates: openai/small first');
});

// beginCall's views of the route's other targets: only a healthy, closed breaker is passed on, and nothing is read.
import { createBeginCall } from '../../../src/activities/begin-call';
import type { AdmitTargetInput, AdmitTargetResult } from '../../../src/activities/breaker-types';
import { parseConfig } from '../../../src/config/load-config';
import { resolveRoute } from '../../../src/config/resolve-route';
import { AdmitDecision } from '../../../src/routing/breaker-admission';
import { BreakerStatus } from '../../../src/routing/breaker-state';

const config = parseConfig({
  providers: {
    a: {
      kind: 'openai',
      apiKeyEnv: 'A_KEY',
      models: {
        first: { inputUsdPerMillion: 1, outputUsdPerMillion: 2 },
        healthy: { inputUsdPerMillion: 1, outputUsdPerMillion: 2 },
        failing: { inputUsdPerMillion: 1, outputUsdPerMillion: 2 },
        open: { inputUsdPerMillion: 1, outputUsdPerMillion: 2 },
        unseen: { inputUsdPerMillion: 1, outputUsdPerMillion: 2 },
      },
    },
  },
  routes: {
    walk: {
      targets: ['first', 'healthy', 'failing', 'open', 'unseen'].map((model) => ({ provider: 'a', model })),
    },
    alone: { targets: [{ provider: 'a', model: 'first' }] },
  },
});

/** What the worker's view says of each model, as the breaker access would without reading anything. */
const views: Record<string, AdmitTargetResult | undefined> = {
  first: {
    decision: AdmitDecision.allow,
    decidedBy: 'hint',
    status: BreakerStatus.closed,
    healthyUntilMs: 5_000,
  },
  healthy: {
    decision: AdmitDecision.allow,
    decidedBy: 'hint',
    status: BreakerStatus.closed,
    healthyUntilMs: 7_000,
  },
  // Closed with failures: admitted, but its outcome must reach the breaker, so the call asks when it gets there.
  failing: { decision: AdmitDecision.allow, decidedBy: 'hint', status: BreakerStatus.closed },
  open: { decision: AdmitDecision.deny, decidedBy: 'hint', status: BreakerStatus.open, retryAtMs: 9_000 },
  unseen: undefined,
};

function beginCallWith(peekHeldAdmission?: (input: AdmitTargetInput) => AdmitTargetResult | undefined) {
  return createBeginCall({
    resolveRoute: async (reference) => resolveRoute(config, reference),
    peekAdmission: async (input) => views[input.model],
    ...(peekHeldAdmission ? { peekHeldAdmission } : {}),
    observe: () => ({ recentFailures: 0 }),
  });
}

test('only the other targets whose breaker the worker sees closed with no failures are passed on, by index', async () => {
  const asked: string[] = [];
  const result = await beginCallWith((input) => {
    asked.push(input.model);
    return views[input.model];
  })({ route: 'walk', hasBudget: false, firstCaller: 'call#1' });
  expect(result.firstAdmission).toEqual(views.first);
  expect(result.healthyUntilMsByTarget).toEqual({ 1: 7_000 });
  // The first target is admitted on its own; every other one is looked at once.
  expect(asked).toEqual(['healthy', 'failing', 'open', 'unseen']);
});

test('no views: a route of one target, or a worker that cannot look without reading', async () => {
  const alone = await beginCallWith(() => views.healthy)({
    route: 'alone',
    hasBudget: false,
    firstCaller: 'call#1',
  });
  expect(alone).not.toHaveProperty('healthyUntilMsByTarget');
  const blind = await beginCallWith()({ route: 'walk', hasBudget: false, firstCaller: 'call#1' });
  expect(blind).not.toHaveProperty('healthyUntilMsByTarget');
});

// One budget scope under 100 concurrent routed calls spread over two worker processes: the ledger grants exactly
// what the budget holds, refuses the rest before any provider call, and surfaces no RESOURCE_EXHAUSTED.
import { RoutedCallError } from '../../src/client/errors';
import { GenerationRequestSchema } from '../../src/config/request';
import { estimateInputTokens } from '../../src/routing/estimate-tokens';
import type { RoutedCallResult } from '../../src/routing/routing-record';
import { eventually } from '../support/eventually';
import { startClusterHarness, workflowTaskIdentities, type ClusterHarness } from '../support/cluster-harness';
import { uniqueName } from '../support/temporal';
import { fakeProviders, TEST_PRICES } from '../support/test-config';

const metered = uniqueName('gpt-metered');
const scope = uniqueName('cluster-team');
const CALLERS = 100;
const request = { messages: [{ role: 'user' as const, content: 'Say hello' }], maxOutputTokens: 64 };

// The attempt's bound, from the config's prices (nano-USD per token = USD per million × 1000).
const inputTokens = estimateInputTokens(GenerationRequestSchema.parse(request));
const BOUND =
  inputTokens * TEST_PRICES.inputUsdPerMillion * 1_000 +
  request.maxOutputTokens * TEST_PRICES.outputUsdPerMillion * 1_000;
/** A budget for 37.5 attempts: exactly 37 fit. */
const FITTING = 37;
const LIMIT_USD = (37.5 * BOUND) / 1e9;

let harness: ClusterHarness;
beforeAll(async () => {
  harness = await startClusterHarness({
    label: 'ledger',
    config: (fake) => ({
      providers: { openai: fakeProviders(fake, { openai: [metered], anthropic: [] }).openai },
      routes: { metered: { targets: [{ provider: 'openai', model: metered, timeoutMs: 30_000 }] } },
      defaultRoute: 'metered',
      budgets: { [scope]: { limitUsd: LIMIT_USD } },
    }),
  });
}, 300_000);
afterAll(async () => harness?.close());

type Outcome = { readonly served: RoutedCallResult } | { readonly refused: RoutedCallError };

test(`${CALLERS} concurrent callers on one scope over two workers: exactly ${FITTING} granted, no over-grant, no error but refusals`, async () => {
  const { fake, switchyard, client } = harness;
  // Each answer bills exactly its bound, so a settled call frees nothing and the count is exact however the
  // reservations interleave with the settles.
  fake.scriptAlways(metered, {
    kind: 'answer',
    text: 'metered answer',
    usage: { inputTokens, cachedInputTokens: 0, outputTokens: request.maxOutputTokens },
  });

  const outcomes: Outcome[] = await Promise.all(
    Array.from({ length: CALLERS }, async () => {
      try {
        return { served: await switchyard.generate({ route: 'metered', request, budget: scope }) };
      } catch (error) {
        // Anything but a typed refusal (a RESOURCE_EXHAUSTED, a timeout) fails the test here.
        if (error instanceof RoutedCallError) return { refused: error };
        throw error;
      }
    }),
  );

  const served = outcomes.flatMap((outcome) => ('served' in outcome ? [outcome.served] : []));
  const refused = outcomes.flatMap((outcome) => ('refused' in outcome ? [outcome.refused] : []));
  expect(served).toHaveLength(FITTING);
  expect(refused).toHaveLength(CALLERS - FITTING);
  for (const result of served) expect(result.record.totalCostNanoUsd).toBe(BOUND);
  for (const refusal of refused) {
    expect(refusal.type).toBe('BudgetExceeded');
    expect(refusal.record?.attempts).toEqual([
      expect.objectContaining({
        model: metered,
        outcome: 'skipped',
        skipReason: 'over_budget',
        costNanoUsd: 0,
      }),
    ]);
  }
  // Refused calls never reached the provider.
  expect(fake.requestsFor(metered)).toHaveLength(FITTING);

  const snapshot = await eventually(
    'every grant to be settled',
    async () => (await switchyard.ledgers.get(scope))!,
    (ledger) => ledger.totals.settled === FITTING,
  );
  expect(snapshot).toMatchObject({
    spentNanoUsd: FITTING * BOUND,
    reservedNanoUsd: 0,
    overdraftNanoUsd: 0,
    openReservations: [],
    totals: { granted: FITTING, settled: FITTING, released: 0, expired: 0, overdrafts: 0 },
  });
  expect(snapshot.spentNanoUsd).toBeLessThanOrEqual(snapshot.limitNanoUsd!);

  // The callers were served by both worker processes, all against the one ledger entity.
  const identities = (
    await Promise.all(
      outcomes
        .map((outcome) =>
          'served' in outcome ? outcome.served.record.workflowId : outcome.refused.workflowId,
        )
        .map((id) => workflowTaskIdentities(client, id)),
    )
  ).flat();
  const pids = new Set(identities.map((identity) => harness.workerOf(identity)?.pid));
  expect(pids).toEqual(new Set(harness.workers.map((worker) => worker.pid)));
});

// A worker process SIGKILLed while its attempt is out at the provider: the cluster notices by the attempt's
// heartbeat timeout, the other worker process takes the call over and fails it over, and the ledger charges the
// lost attempt's bound once.
import { temporal } from '@temporalio/proto';
import { GenerationRequestSchema } from '../../src/config/request';
import { estimateInputTokens } from '../../src/routing/estimate-tokens';
import { eventually } from '../support/eventually';
import { startClusterHarness, workflowTaskIdentities, type ClusterHarness } from '../support/cluster-harness';
import { uniqueName } from '../support/temporal';
import { fakeProviders, TEST_PRICES } from '../support/test-config';

const hanging = uniqueName('gpt-hanging');
const rescuer = uniqueName('claude-rescuer');
const scope = uniqueName('cluster-kill');
const HEARTBEAT_TIMEOUT_MS = 2_000;
const request = { messages: [{ role: 'user' as const, content: 'Say hello' }], maxOutputTokens: 64 };
const servedUsage = { inputTokens: 9, cachedInputTokens: 2, outputTokens: 13 };

// Computed from the config's prices (nano-USD per token = USD per million × 1000), not with the product's code.
const perToken = (usdPerMillion: number) => usdPerMillion * 1_000;
const LOST_BOUND =
  estimateInputTokens(GenerationRequestSchema.parse(request)) * perToken(TEST_PRICES.inputUsdPerMillion) +
  request.maxOutputTokens * perToken(TEST_PRICES.outputUsdPerMillion);
const SERVED_COST =
  servedUsage.inputTokens * perToken(TEST_PRICES.inputUsdPerMillion) +
  servedUsage.cachedInputTokens * perToken(TEST_PRICES.cachedInputUsdPerMillion) +
  servedUsage.outputTokens * perToken(TEST_PRICES.outputUsdPerMillion);

let harness: ClusterHarness;
beforeAll(async () => {
  harness = await startClusterHarness({
    label: 'worker-kill',
    config: (fake) => ({
      providers: fakeProviders(fake, { openai: [hanging], anthropic: [rescuer] }),
      routes: {
        rescue: {
          targets: [
            // Far longer than the heartbeat timeout: only the heartbeat timeout can notice the lost attempt.
            { provider: 'openai', model: hanging, timeoutMs: 120_000 },
            { provider: 'anthropic', model: rescuer, timeoutMs: 10_000 },
          ],
          heartbeatTimeoutMs: HEARTBEAT_TIMEOUT_MS,
        },
      },
      defaultRoute: 'rescue',
      budgets: { [scope]: { limitUsd: 1 } },
    }),
  });
}, 300_000);
afterAll(async () => harness?.close());

test('the worker holding an attempt is killed: the other worker process finishes the call, charged once', async () => {
  const { fake, switchyard, client } = harness;
  fake.scriptAlways(hanging, { kind: 'hang' });
  fake.scriptAlways(rescuer, { kind: 'answer', text: 'rescued', usage: servedUsage });

  const handle = await switchyard.start({ route: 'rescue', request, budget: scope });
  await eventually(
    'the first attempt to reach the provider',
    async () => fake.requestsFor(hanging).length,
    (count) => count === 1,
    { intervalMs: 50 },
  );
  // The server names the worker that holds the attempt: kill exactly that process.
  const description = await client.workflow.getHandle(handle.workflowId).describe();
  const holderIdentity = description.raw.pendingActivities?.[0]?.lastWorkerIdentity;
  const holder = harness.workerOf(holderIdentity);
  expect(holder).toBeDefined();
  const survivor = harness.workers.find((worker) => worker !== holder)!;
  await harness.killWorker(holder!);

  const { record, answer } = await handle.result();
  expect(answer.text).toBe('rescued');
  expect(record.attempts).toHaveLength(2);
  expect(record.attempts[0]).toMatchObject({
    model: hanging,
    outcome: 'failed',
    failureClass: 'timeout',
    costNanoUsd: LOST_BOUND,
    costKnown: false,
  });
  expect(record.attempts[1]).toMatchObject({
    model: rescuer,
    outcome: 'succeeded',
    costNanoUsd: SERVED_COST,
    costKnown: true,
  });
  expect(record.totalCostNanoUsd).toBe(LOST_BOUND + SERVED_COST);

  // The history shows the hand-over: the survivor ran the call's last steps, and the lost attempt ended by its
  // heartbeat timeout, not by its own 120 s one.
  const identities = await workflowTaskIdentities(client, handle.workflowId);
  expect(harness.workerOf(identities.at(-1))).toBe(survivor);
  const events = (await client.workflow.getHandle(handle.workflowId).fetchHistory()).events ?? [];
  const timeouts = events.flatMap((event) =>
    event.activityTaskTimedOutEventAttributes ? [event.activityTaskTimedOutEventAttributes] : [],
  );
  expect(timeouts.map((timedOut) => timedOut.failure?.timeoutFailureInfo?.timeoutType)).toEqual([
    temporal.api.enums.v1.TimeoutType.TIMEOUT_TYPE_HEARTBEAT,
  ]);
  // The provider saw the lost request and the served one, nothing twice.
  expect(fake.requests.map((received) => received.model)).toEqual([hanging, rescuer]);

  // The ledger charged the lost bound and the real cost, each once, and holds nothing back.
  const ledger = await eventually(
    'the ledger to settle both attempts',
    async () => (await switchyard.ledgers.get(scope))!,
    // The killed worker's allowance goes back when its lease ends, a few seconds on.
    (snapshot) => snapshot.totals.settled === 2 && snapshot.reservedNanoUsd === 0,
  );
  expect(ledger).toMatchObject({
    spentNanoUsd: LOST_BOUND + SERVED_COST,
    reservedNanoUsd: 0,
    openReservations: [],
    totals: { granted: 2, settled: 2, expired: 0 },
  });
});

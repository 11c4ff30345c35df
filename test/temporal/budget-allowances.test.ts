// Worker allowances on a real dev server, written to break them: budgeted calls reserve by claims recorded in the
// ledger's history instead of an update each; the ledger stays exact under concurrency on two workers, and an
// allowance whose worker never gives it back returns at its lease's end while its claims are charged as any.
import { randomUUID } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { LedgerMessageBatcher } from '../../src/activities/ledger-batcher';
import { createClaimSender, createLedgerSender } from '../../src/activities/reserve-budget';
import { RoutedCallError } from '../../src/client/errors';
import { Ledgers } from '../../src/client/ledgers';
import { GenerationRequestSchema } from '../../src/config/request';
import { estimateInputTokens } from '../../src/routing/estimate-tokens';
import type { AllowanceClaims } from '../../src/routing/ledger-state';
import { attemptBound, nanoToUsd } from '../../src/routing/money';
import { entityTaskQueue } from '../../src/workflows/definitions';
import { ledgerWorkflowId } from '../../src/workflows/ledger/ledger-definitions';
import { eventually } from '../support/eventually';
import { startHarness, type Harness } from '../support/harness';
import { settledLedger } from '../support/settled-ledger';
import { uniqueName } from '../support/temporal';

const request = { messages: [{ role: 'user' as const, content: 'Say hello' }], maxOutputTokens: 64 };
const oneTarget = { targets: [{ provider: 'openai', model: 'gpt-primary', timeoutMs: 5_000 }] };
const prices = { inputUsdPerMillion: 1, cachedInputUsdPerMillion: 0.5, outputUsdPerMillion: 4 };
const estimatedInputTokens = estimateInputTokens(GenerationRequestSchema.parse(request));
const bound = attemptBound(prices, estimatedInputTokens, request.maxOutputTokens);
const usageAtBound = { inputTokens: estimatedInputTokens, outputTokens: request.maxOutputTokens };

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => harness?.close());
beforeEach(() => harness.fake.reset());

/** The claims recorded in a ledger's history, by reservation id. */
async function claimedIds(scope: string): Promise<string[]> {
  const history = await harness.temporal.client.workflow.getHandle(ledgerWorkflowId(scope)).fetchHistory();
  return (history.events ?? []).flatMap((event: temporal.api.history.v1.IHistoryEvent) => {
    const signal = event.workflowExecutionSignaledEventAttributes;
    if (signal?.signalName !== 'claim') return [];
    const claims = defaultPayloadConverter.fromPayload<AllowanceClaims>(signal.input!.payloads![0]!);
    return claims.claims.map((claim) => claim.reservationId);
  });
}

test('back-to-back budgeted calls reserve by claims, not a ledger update each, and the ledger ends exact', async () => {
  const budget = uniqueName('allowance');
  const { records, snapshot } = await harness.withWorker(async (switchyard) => {
    await switchyard.ledgers.setLimit(budget, { limitUsd: nanoToUsd(bound * 1_000) });
    const records = [];
    for (let index = 0; index < 12; index += 1) {
      records.push((await switchyard.generate({ route: oneTarget, request, budget })).record);
    }
    return { records, snapshot: await settledLedger(switchyard.ledgers, budget) };
  });
  const claimed = await claimedIds(budget);
  // The first call reserves with an update that also asks for the allowance; the others claim from it.
  expect(claimed.length).toBeGreaterThanOrEqual(10);
  const spent = records.reduce((total, record) => total + record.totalCostNanoUsd, 0);
  expect(spent).toBeGreaterThan(0);
  expect(snapshot).toMatchObject({
    spentNanoUsd: spent,
    reservedNanoUsd: 0,
    openReservations: [],
    totals: { granted: 12, expired: 0 },
  });
});

test('100 concurrent calls on two workers against a budget for 40 worst cases: exactly 40 reach the provider', async () => {
  const budget = uniqueName('allowance');
  harness.fake.scriptAlways('gpt-primary', { kind: 'answer', text: 'ok', usage: usageAtBound, delayMs: 100 });
  // Two workers of their own (on two task queues), each with its own allowances on the one scope.
  const { outcomes, snapshot } = await harness.withWorker(async (first) =>
    harness.withWorker(async (second) => {
      await first.ledgers.setLimit(budget, { limitUsd: nanoToUsd(bound * 40) });
      // Warm both workers' allowances first, so most of the burst is granted from them.
      await Promise.all(
        [first, second].map((client) => client.generate({ route: oneTarget, request, budget })),
      );
      const outcomes = await Promise.allSettled(
        Array.from({ length: 98 }, (_, index) =>
          (index % 2 ? first : second).generate({ route: oneTarget, request, budget }),
        ),
      );
      return { outcomes, snapshot: await settledLedger(first.ledgers, budget) };
    }),
  );
  const served = outcomes.filter((outcome) => outcome.status === 'fulfilled').length + 2;
  const others = outcomes.filter(
    (outcome) =>
      outcome.status === 'rejected' &&
      !(outcome.reason instanceof RoutedCallError && outcome.reason.type === 'BudgetExceeded'),
  );
  expect(others).toEqual([]);
  expect(served).toBe(40);
  expect(harness.fake.counters('gpt-primary').requests).toBe(40);
  expect(snapshot).toMatchObject({ spentNanoUsd: 40 * bound, reservedNanoUsd: 0, overdraftNanoUsd: 0 });
  expect((await claimedIds(budget)).length).toBeGreaterThan(0);
});

test('an allowance its worker never gives back returns at its lease’s end; its claims stay held and are charged as any reservation', async () => {
  const scope = uniqueName('allowance');
  await harness.withWorker(async (_switchyard, taskQueue) => {
    const batcher = new LedgerMessageBatcher(
      createLedgerSender(harness.temporal.client, entityTaskQueue(taskQueue), harness.config),
    );
    const ledgers = new Ledgers({ client: harness.temporal.client, taskQueue: entityTaskQueue(taskQueue) });
    await ledgers.setLimit(scope, { limitUsd: nanoToUsd(100 * bound) });
    const allowanceId = `allowance:${scope}#1`;
    const granted = await batcher.reserve(scope, {
      reservationId: allowanceId,
      amountNanoUsd: 10 * bound,
      holder: 'worker gone',
      leaseMs: 1_000,
      allowance: true,
    });
    expect(granted).toMatchObject({ granted: true, allowance: true });
    // The worker claims for one call of a workflow that does not exist, then dies: no settle, no give-back.
    const sendClaims = createClaimSender(harness.temporal.client);
    const claim = { amountNanoUsd: bound, holder: 'switchyard-call-nobody', leaseMs: 1_500 };
    const call = `switchyard-call-nobody/${randomUUID()}`;
    await sendClaims(scope, {
      allowanceId,
      claims: [{ reservationId: `${call}#1`, ...claim }],
    });
    const afterLease = await eventually(
      `the allowance on ${scope} to go back`,
      async () => (await ledgers.get(scope))!,
      (snapshot) => !snapshot.openReservations.some((open) => open.allowance),
      { timeoutMs: 30_000 },
    );
    // A claim recorded after the allowance went back holds nothing (its worker would have asked the ledger).
    await sendClaims(scope, {
      allowanceId,
      claims: [{ reservationId: `${call}#2`, ...claim }],
    });
    expect(afterLease.spentNanoUsd + afterLease.reservedNanoUsd).toBe(bound);
    // The claim's own lease ends with no record to read: charged in full, as a lost reservation always is.
    const closed = await eventually(
      `the claim on ${scope} to be charged`,
      async () => (await ledgers.get(scope))!,
      (snapshot) => snapshot.reservedNanoUsd === 0,
      { timeoutMs: 30_000 },
    );
    expect(closed).toMatchObject({ spentNanoUsd: bound, totals: { granted: 1, expired: 1 } });
  });
});

test('a ledger due to continue as new refuses asks and waits for open allowances to end: no run starts with one', async () => {
  const scope = uniqueName('allowance');
  await harness.withWorker(async (_switchyard, taskQueue) => {
    const entities = entityTaskQueue(taskQueue);
    const ledger = await harness.temporal.client.workflow.start('ledgerWorkflow', {
      taskQueue: entities,
      workflowId: ledgerWorkflowId(scope),
      args: [{ scope, continueAsNewAfterMessages: 3 }],
    });
    const batcher = new LedgerMessageBatcher(
      createLedgerSender(harness.temporal.client, entities, harness.config),
    );
    const ask = (id: string) =>
      batcher.reserve(scope, {
        reservationId: id,
        amountNanoUsd: bound,
        holder: 'worker w',
        leaseMs: 3_000,
        allowance: true,
      });
    expect(await ask('allowance:w#1')).toMatchObject({ granted: true, allowance: true });
    // Three messages make the run due; with the allowance open it must not continue yet, and refuses asks.
    await batcher.reserve(scope, {
      reservationId: `${scope}-c1`,
      amountNanoUsd: bound,
      holder: 'a call',
      leaseMs: 60_000,
    });
    await batcher.reserve(scope, {
      reservationId: `${scope}-c2`,
      amountNanoUsd: bound,
      holder: 'a call',
      leaseMs: 60_000,
    });
    expect(await ask('allowance:w#2')).toMatchObject({ granted: false });
    expect((await ledger.describe()).runId).toBe(ledger.firstExecutionRunId);
    // Its worker gives it back: the ledger continues as new, carrying the calls' reservations and no allowance.
    await batcher.release(scope, 'allowance:w#1');
    await eventually(
      `the ledger of ${scope} to continue as new`,
      async () => (await ledger.describe()).runId,
      (runId) => runId !== ledger.firstExecutionRunId,
      { timeoutMs: 30_000 },
    );
    const ledgers = new Ledgers({ client: harness.temporal.client, taskQueue: entities });
    const snapshot = (await ledgers.get(scope))!;
    expect(snapshot.openReservations.map((open) => open.reservationId).sort()).toEqual([
      `${scope}-c1`,
      `${scope}-c2`,
    ]);
  });
});

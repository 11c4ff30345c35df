// Leases that run out without a settle, on a real dev server: the ledger charges what the holder's record says.
import { LedgerMessageBatcher } from '../../src/activities/ledger-batcher';
import { createLedgerSender } from '../../src/activities/reserve-budget';
import { Ledgers } from '../../src/client/ledgers';
import type { LedgerSnapshot } from '../../src/routing/ledger-snapshot';
import { entityTaskQueue } from '../../src/workflows/definitions';
import { eventually } from '../support/eventually';
import { startHarness, type Harness } from '../support/harness';
import { uniqueName } from '../support/temporal';

const request = { messages: [{ role: 'user' as const, content: 'Say hello' }], maxOutputTokens: 64 };
/** What a lost settle's reservation holds: far more than the attempt really cost. */
const BOUND = 5_000_000;
const LEASE_MS = 1_000;

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => harness?.close());
beforeEach(() => harness.fake.reset());

/** Reserves on `scope` as an attempt would, and never settles: the settle was lost with its worker. */
async function reserveAndLoseTheSettle(taskQueue: string, scope: string, reservationId: string) {
  const batcher = new LedgerMessageBatcher(
    createLedgerSender(harness.temporal.client, entityTaskQueue(taskQueue), harness.config),
  );
  const decision = await batcher.reserve(scope, {
    reservationId,
    amountNanoUsd: BOUND,
    holder: reservationId.split('/')[0]!,
    leaseMs: LEASE_MS,
  });
  expect(decision.granted).toBe(true);
}

function settledLedger(ledgers: Ledgers, scope: string): Promise<LedgerSnapshot> {
  return eventually(
    `ledger ${scope} to close its reservations`,
    async () => (await ledgers.get(scope))!,
    (snapshot) => snapshot.reservedNanoUsd === 0,
    { timeoutMs: 30_000 },
  );
}

test('a lost settle is charged exactly what the holder’s record says the attempt cost', async () => {
  const scope = uniqueName('reconcile');
  await harness.withWorker(async (switchyard, taskQueue) => {
    // A finished call whose first attempt cost C; its reservation's settle never reached the ledger.
    const { record } = await switchyard.generate({ route: 'support', request });
    const { runId } = await harness.temporal.client.workflow.getHandle(record.workflowId).describe();
    const cost = record.attempts[0]!.costNanoUsd;
    expect(cost).toBeGreaterThan(0);
    expect(cost).toBeLessThan(BOUND);
    await reserveAndLoseTheSettle(taskQueue, scope, `${record.workflowId}/${runId}#1`);
    const ledgers = new Ledgers({ client: harness.temporal.client, taskQueue: entityTaskQueue(taskQueue) });
    const snapshot = await settledLedger(ledgers, scope);
    expect(snapshot).toMatchObject({ spentNanoUsd: cost, totals: { granted: 1, settled: 1, expired: 0 } });
  });
});

test('a reservation whose holder left no record is charged in full; one whose attempt never ran costs nothing', async () => {
  const scope = uniqueName('reconcile');
  await harness.withWorker(async (switchyard, taskQueue) => {
    const { record } = await switchyard.generate({ route: 'support', request });
    const { runId } = await harness.temporal.client.workflow.getHandle(record.workflowId).describe();
    // No such workflow: nobody can say what was sent, so the whole reservation.
    await reserveAndLoseTheSettle(taskQueue, scope, `switchyard-call-nobody/${runId}#1`);
    // The call has no attempt 7: that reservation was given back before anything was sent.
    await reserveAndLoseTheSettle(taskQueue, scope, `${record.workflowId}/${runId}#7`);
    const ledgers = new Ledgers({ client: harness.temporal.client, taskQueue: entityTaskQueue(taskQueue) });
    const snapshot = await settledLedger(ledgers, scope);
    expect(snapshot).toMatchObject({ spentNanoUsd: BOUND, totals: { granted: 2, settled: 1, expired: 1 } });
  });
});

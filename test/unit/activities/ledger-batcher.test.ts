// The per-worker reservation batcher: one update in flight per scope, coalescing, joining, splitting, retries.
import { ApplicationFailure } from '@temporalio/common';
import { LedgerMessageBatcher, type SendLedgerBatch } from '../../../src/activities/ledger-batcher';
import type { ReservationDecision, ReservationRequest } from '../../../src/routing/ledger-state';

function request(id: string): ReservationRequest {
  return { reservationId: id, amountNanoUsd: 10, holder: 'test', leaseMs: 60_000 };
}

function grant(request: ReservationRequest): ReservationDecision {
  return {
    granted: true,
    reservationId: request.reservationId,
    amountNanoUsd: request.amountNanoUsd,
    leaseExpiresAt: 0,
  };
}

/** A fake ledger whose answers the test releases by hand, recording every batch and the peak in flight per scope. */
function gatedLedger() {
  const batches: { scope: string; ids: string[] }[] = [];
  const open: (() => void)[] = [];
  const inFlight = new Map<string, number>();
  let peakPerScope = 0;
  const send: SendLedgerBatch = async (scope, { requests }) => {
    batches.push({ scope, ids: requests.map((each) => each.reservationId) });
    inFlight.set(scope, (inFlight.get(scope) ?? 0) + 1);
    peakPerScope = Math.max(peakPerScope, inFlight.get(scope)!);
    await new Promise<void>((resolve) => open.push(resolve));
    inFlight.set(scope, inFlight.get(scope)! - 1);
    return requests.map(grant);
  };
  const answerAll = async () => {
    while (open.length) {
      open.splice(0).forEach((resolve) => resolve());
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  return { send, batches, answerAll, peak: () => peakPerScope };
}

test('an uncontended reservation goes out at once, alone', async () => {
  const ledger = gatedLedger();
  const batcher = new LedgerMessageBatcher(ledger.send);
  const decision = batcher.reserve('team', request('a'));
  expect(ledger.batches).toEqual([{ scope: 'team', ids: ['a'] }]);
  await ledger.answerAll();
  await expect(decision).resolves.toMatchObject({ granted: true, reservationId: 'a' });
  expect(batcher.activeScopes).toBe(0);
});

test('reservations arriving while one is in flight leave together in the next update, never two at once', async () => {
  const ledger = gatedLedger();
  const batcher = new LedgerMessageBatcher(ledger.send);
  const decisions = Array.from({ length: 100 }, (_, index) => batcher.reserve('team', request(`r${index}`)));
  await ledger.answerAll();
  const results = await Promise.all(decisions);
  expect(results.map((result) => result.reservationId)).toEqual(
    Array.from({ length: 100 }, (_, index) => `r${index}`),
  );
  expect(ledger.batches.map((batch) => batch.ids.length)).toEqual([1, 99]);
  expect(ledger.peak()).toBe(1);
});

test('scopes do not wait for each other', async () => {
  const ledger = gatedLedger();
  const batcher = new LedgerMessageBatcher(ledger.send);
  const both = [batcher.reserve('a', request('1')), batcher.reserve('b', request('2'))];
  expect(ledger.batches.map((batch) => batch.scope)).toEqual(['a', 'b']);
  await ledger.answerAll();
  await Promise.all(both);
});

test('a repeated id joins the queued request instead of reserving again', async () => {
  const ledger = gatedLedger();
  const batcher = new LedgerMessageBatcher(ledger.send);
  const first = batcher.reserve('team', request('busy'));
  const queued = batcher.reserve('team', request('x'));
  const retried = batcher.reserve('team', request('x'));
  expect(retried).toBe(queued);
  await ledger.answerAll();
  await Promise.all([first, queued]);
  expect(ledger.batches.map((batch) => batch.ids)).toEqual([['busy'], ['x']]);
});

test('a long queue is split into updates of at most maxBatchSize, sent one after another', async () => {
  const ledger = gatedLedger();
  const batcher = new LedgerMessageBatcher(ledger.send, { maxBatchSize: 4 });
  const all = Array.from({ length: 10 }, (_, index) => batcher.reserve('team', request(`r${index}`)));
  await ledger.answerAll();
  await Promise.all(all);
  expect(ledger.batches.map((batch) => batch.ids.length)).toEqual([1, 4, 4, 1]);
  expect(ledger.peak()).toBe(1);
});

test('a transient failure is retried with the same batch; a lasting one reaches every caller in it', async () => {
  let calls = 0;
  const flaky = new LedgerMessageBatcher(
    async (_scope, { requests }) => {
      calls += 1;
      if (calls === 1) throw new Error('RESOURCE_EXHAUSTED');
      return requests.map(grant);
    },
    { retryDelayMs: 1 },
  );
  await expect(flaky.reserve('team', request('a'))).resolves.toMatchObject({ granted: true });
  expect(calls).toBe(2);

  let tries = 0;
  const down = new LedgerMessageBatcher(
    async () => {
      tries += 1;
      throw new Error('unavailable');
    },
    { retryDelayMs: 1, maxTries: 3 },
  );
  await expect(down.reserve('team', request('a'))).rejects.toThrow('unavailable');
  expect(tries).toBe(3);
});

test('a non-retryable failure is not retried', async () => {
  let tries = 0;
  const batcher = new LedgerMessageBatcher(async () => {
    tries += 1;
    throw ApplicationFailure.create({ type: 'InvalidLedgerMessage', message: 'bad', nonRetryable: true });
  });
  await expect(batcher.reserve('team', request('a'))).rejects.toThrow('bad');
  expect(tries).toBe(1);
});

test('settles and releases travel with the reservations, closes first, one update in flight per scope', async () => {
  const batches: { settled: string[]; released: string[]; reserved: string[] }[] = [];
  let release: (() => void) | undefined;
  const batcher = new LedgerMessageBatcher(async (_scope, { requests, settlements, releases }) => {
    batches.push({
      settled: settlements.map((settlement) => settlement.reservationId),
      released: releases.map((each) => each.reservationId),
      reserved: requests.map((each) => each.reservationId),
    });
    if (batches.length === 1) await new Promise<void>((resolve) => (release = resolve));
    return requests.map(grant);
  });
  const first = batcher.reserve('team', request('a'));
  // While the first update is in flight, a settle, a release and a reservation queue up: they leave together.
  const settled = batcher.settle('team', { reservationId: 'x', costNanoUsd: 3, costKnown: true });
  const released = batcher.release('team', 'y');
  const second = batcher.reserve('team', request('b'));
  // A settle sent twice (a retried attempt) joins the first instead of going twice.
  const again = batcher.settle('team', { reservationId: 'x', costNanoUsd: 3, costKnown: true });
  release!();
  await Promise.all([first, settled, released, second, again]);
  expect(batches).toEqual([
    { settled: [], released: [], reserved: ['a'] },
    { settled: ['x'], released: ['y'], reserved: ['b'] },
  ]);
});

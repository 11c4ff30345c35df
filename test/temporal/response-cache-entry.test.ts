// The response-cache entry itself on a real dev server, driven through its messages: one leader among concurrent
// lookups, a lead handed on when the leader fails, state carried over continue-as-new, refused lookups.
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { entityTaskQueue } from '../../src/workflows/definitions';
import {
  entryQuery,
  lookupUpdate,
  releaseSignal,
  responseCacheWorkflowId,
  storeSignal,
  type CacheStoreInput,
  type ResponseCacheWorkflowInput,
} from '../../src/workflows/response-cache/definitions';
import type { responseCacheWorkflow } from '../../src/workflows/response-cache/response-cache-workflow';
import { eventually } from '../support/eventually';
import { startHarness, type Harness } from '../support/harness';
import { uniqueName } from '../support/temporal';

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => harness?.close());

const answer: CacheStoreInput['answer'] = {
  text: 'stored',
  toolCalls: [],
  finishReason: { unified: 'stop', raw: 'stop' },
  usage: { inputTokens: 1, cachedInputTokens: 0, outputTokens: 1, raw: {} },
  requestId: null,
};
const ask = (caller: string) => ({ caller, ttlMs: 60_000, leaseMs: 60_000 });

function startEntry(taskQueue: string, extra: Partial<ResponseCacheWorkflowInput> = {}) {
  const keyDigest = uniqueName('digest');
  return harness.temporal.client.workflow.start<typeof responseCacheWorkflow>('responseCacheWorkflow', {
    taskQueue: entityTaskQueue(taskQueue),
    workflowId: responseCacheWorkflowId(keyDigest),
    args: [{ keyDigest, ...extra }],
  });
}

test('of 10 concurrent lookups exactly one leads; the store ends the lead and later lookups hit', async () => {
  await harness.withWorker(async (_switchyard, taskQueue) => {
    const entry = await startEntry(taskQueue);
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        entry.executeUpdate(lookupUpdate, { args: [ask(`caller-${index}`)] }),
      ),
    );
    const leaders = outcomes.flatMap((outcome, index) => (outcome.outcome === 'lead' ? [index] : []));
    expect(leaders).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome.outcome === 'wait')).toHaveLength(9);
    expect((await entry.query(entryQuery)).waiters).toHaveLength(9);
    // The waiters are no workflows: telling them fails, and the entry drops them.
    await entry.signal(storeSignal, { caller: `caller-${leaders[0]}`, answer, ttlMs: 60_000 });
    const state = await eventually(
      'the stored answer',
      () => entry.query(entryQuery),
      (read) => read.entry !== undefined,
    );
    expect(state).toMatchObject({ entry: { answer, storedBy: `caller-${leaders[0]}` }, waiters: [] });
    expect(state.leader).toBeUndefined();
    const later = await entry.executeUpdate(lookupUpdate, { args: [ask('late')] });
    expect(later).toMatchObject({ outcome: 'hit', entry: { answer } });
    // A caller whose TTL is shorter than the answer's age gets no hit: it leads.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const strict = await entry.executeUpdate(lookupUpdate, {
      args: [{ ...ask('strict'), ttlMs: 1_000 }],
    });
    expect(strict.outcome).toBe('lead');
  });
});

test('a released lead passes over waiters that cannot be told, keeps nothing, and the empty entry ends', async () => {
  await harness.withWorker(async (_switchyard, taskQueue) => {
    const entry = await startEntry(taskQueue);
    expect((await entry.executeUpdate(lookupUpdate, { args: [ask('leader')] })).outcome).toBe('lead');
    expect((await entry.executeUpdate(lookupUpdate, { args: [ask('gone')] })).outcome).toBe('wait');
    // Someone else's release changes nothing.
    await entry.signal(releaseSignal, { caller: 'not-the-leader' });
    expect((await entry.query(entryQuery)).leader?.caller).toBe('leader');
    await entry.signal(releaseSignal, { caller: 'leader' });
    await eventually(
      'the lead released and the dead waiter dropped',
      () => entry.query(entryQuery),
      (read) => read.leader === undefined && read.waiters.length === 0,
    );
    // Nothing was stored: the failure is not kept, and the entry ends for want of anything to hold.
    await eventually(
      'the empty entry completed',
      async () => (await entry.describe()).status.name,
      (status) => status === 'COMPLETED',
    );
  });
});

test('the leader, waiters and answer survive continue-as-new', async () => {
  await harness.withWorker(async (_switchyard, taskQueue) => {
    const entry = await startEntry(taskQueue, { continueAsNewAfterMessages: 2 });
    const firstRun = (await entry.describe()).runId;
    expect((await entry.executeUpdate(lookupUpdate, { args: [ask('leader')] })).outcome).toBe('lead');
    expect((await entry.executeUpdate(lookupUpdate, { args: [ask('waiter')] })).outcome).toBe('wait');
    const carried = await eventually(
      'a new run carrying the leader and the waiter',
      async () => ({ runId: (await entry.describe()).runId, state: await entry.query(entryQuery) }),
      (read) => read.runId !== firstRun,
    );
    expect(carried.state.leader?.caller).toBe('leader');
    expect(carried.state.waiters.map((waiter) => waiter.caller)).toEqual(['waiter']);
    await entry.signal(storeSignal, { caller: 'leader', answer, ttlMs: 60_000 });
    const hit = await eventually(
      'a hit after the store',
      () => entry.executeUpdate(lookupUpdate, { args: [ask('later')] }),
      (outcome) => outcome.outcome === 'hit',
      { timeoutMs: 15_000 },
    );
    expect(hit).toMatchObject({ outcome: 'hit', entry: { answer, storedBy: 'leader' } });
  });
});

test('a malformed lookup is refused before it touches the entry', async () => {
  await harness.withWorker(async (_switchyard, taskQueue) => {
    const entry = await startEntry(taskQueue);
    const refused = await entry
      .executeUpdate(lookupUpdate, { args: [{ caller: '', ttlMs: 0, leaseMs: 60_000 }] })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(WorkflowUpdateFailedError);
    expect(String((refused as WorkflowUpdateFailedError).cause?.message)).toContain('invalid cache lookup');
    expect((await entry.executeUpdate(lookupUpdate, { args: [ask('fine')] })).outcome).toBe('lead');
  });
});

// A schedule on the cluster: the server's own worker service fires it, a Switchyard worker process makes each
// run's routed call, and the runs are read back from the PostgreSQL visibility store.
import { eventually } from '../support/eventually';
import { startClusterHarness, type ClusterHarness } from '../support/cluster-harness';
import { uniqueName } from '../support/temporal';
import { fakeProviders } from '../support/test-config';

const nightly = uniqueName('gpt-nightly');
const scope = uniqueName('cluster-schedule');
const RUNS = 3;
const request = {
  messages: [{ role: 'user' as const, content: 'Summarise the night' }],
  maxOutputTokens: 64,
};

let harness: ClusterHarness;
beforeAll(async () => {
  harness = await startClusterHarness({
    label: 'schedule',
    config: (fake) => ({
      providers: { openai: fakeProviders(fake, { openai: [nightly], anthropic: [] }).openai },
      routes: { nightly: { targets: [{ provider: 'openai', model: nightly, timeoutMs: 10_000 }] } },
      defaultRoute: 'nightly',
      budgets: { [scope]: { limitUsd: 10 } },
    }),
  });
}, 300_000);
afterAll(async () => harness?.close());

test(`a 2-second interval schedule makes ${RUNS} routed calls, each charged once, listed with its answer`, async () => {
  const { fake, switchyard } = harness;
  fake.scriptAlways(nightly, { kind: 'answer', text: 'the night was quiet' });
  const id = uniqueName('cluster-nightly');
  const created = await switchyard.schedules.create({
    id,
    every: '2s',
    call: { route: 'nightly', request },
    budget: scope,
    note: 'cluster suite',
  });
  expect(created).toMatchObject({ id, paused: false });
  try {
    await eventually(
      `${RUNS} runs of ${id} to finish`,
      () => switchyard.schedules.results(id, { limit: 50 }),
      (runs) => runs.filter((run) => run.status === 'COMPLETED').length >= RUNS,
    );
    await switchyard.schedules.pause(id, { note: 'enough runs' });
    // Every run the schedule took, read back once visibility has caught up with all of them.
    const paused = await switchyard.schedules.describe(id);
    expect(paused.paused).toBe(true);
    const runs = await eventually(
      `the ${paused.runsTaken} runs of the paused schedule to be listed, finished`,
      () => switchyard.schedules.results(id, { limit: 50 }),
      (listed) => listed.length === paused.runsTaken && listed.every((run) => run.status !== 'RUNNING'),
    );
    expect(runs.length).toBeGreaterThanOrEqual(RUNS);
    for (const run of runs) {
      expect(run.status).toBe('COMPLETED');
      expect(run.answer?.text).toBe('the night was quiet');
      expect(run.record?.servedBy?.model).toBe(nightly);
      expect(run.scheduledAt).toBeInstanceOf(Date);
    }
    // Runs are named by their scheduled time: no run was started twice.
    expect(new Set(runs.map((run) => run.workflowId)).size).toBe(runs.length);
    // Each run called the provider once and was charged once, to the schedule's scope.
    expect(fake.requestsFor(nightly)).toHaveLength(runs.length);
    const costs = runs.reduce((sum, run) => sum + run.record!.totalCostNanoUsd, 0);
    const ledger = await eventually(
      'the ledger to settle every run',
      async () => (await switchyard.ledgers.get(scope))!,
      // The worker's allowance goes back once idle, a moment after the last run.
      (snapshot) => snapshot.totals.settled === runs.length && snapshot.reservedNanoUsd === 0,
    );
    expect(ledger).toMatchObject({ spentNanoUsd: costs, reservedNanoUsd: 0 });
    expect((await switchyard.schedules.describe(id)).runsTaken).toBe(runs.length);
  } finally {
    await switchyard.schedules.delete(id).catch(() => undefined);
  }
});

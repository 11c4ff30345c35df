// Scheduled generations on a real dev server: triggered runs and their results, pause, overlap, updates, refusals.
import { setTimeout as delay } from 'node:timers/promises';
import { ScheduleNotFoundError } from '@temporalio/client';
import { InvalidRequestError } from '../../src/client/errors';
import type { ScheduledRun, Schedules } from '../../src/client/schedules';
import { SwitchyardClient } from '../../src/client/switchyard-client';
import { DEFAULT_SCHEDULED_PATIENCE_MS } from '../../src/config/schedule';
import { eventually, nextSecondAfter } from '../support/eventually';
import { startHarness, type Harness } from '../support/harness';
import { uniqueName } from '../support/temporal';
import { settledLedger } from '../support/settled-ledger';
import { TRIGGERED_ONLY } from '../support/schedule-interval';

const request = {
  messages: [{ role: 'user' as const, content: 'Write the daily digest' }],
  maxOutputTokens: 64,
};

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => harness?.close());
beforeEach(() => harness.fake.reset());

/** Runs `body` with a schedule id, and deletes the schedule afterwards whatever happened. */
async function withScheduleId<T>(schedules: Schedules, body: (id: string) => Promise<T>): Promise<T> {
  const id = uniqueName('schedule');
  try {
    return await body(id);
  } finally {
    await schedules.delete(id).catch(() => undefined);
  }
}

const finished = (run: ScheduledRun) => run.status !== 'RUNNING';

function resultsOf(schedules: Schedules, id: string, count: number): Promise<ScheduledRun[]> {
  return eventually(
    `${count} finished runs of ${id}`,
    () => schedules.results(id),
    (runs) => runs.length === count && runs.every(finished),
  );
}

test('a schedule triggered twice makes two routed calls whose results are listable, newest first', async () => {
  await harness.withWorker(async (switchyard) => {
    const { schedules } = switchyard;
    await withScheduleId(schedules, async (id) => {
      const created = await schedules.create({
        id,
        every: '1h',
        call: { route: 'support', request },
        budget: 'team-digest',
        note: 'daily digest for the docs team',
      });
      expect(created).toMatchObject({
        id,
        every: 3_600_000,
        overlap: 'skip',
        catchupWindow: 600_000,
        paused: false,
        note: 'daily digest for the docs team',
        budget: 'team-digest',
        taskQueue: switchyard.taskQueue,
      });
      // Unattended calls wait out outages: a default patience is set on the scheduled call.
      expect(created.call).toMatchObject({
        budget: 'team-digest',
        patienceMs: DEFAULT_SCHEDULED_PATIENCE_MS,
      });
      expect(created.nextRunTimes.length).toBeGreaterThan(0);

      await schedules.trigger(id);
      const [first] = await resultsOf(schedules, id, 1);
      await nextSecondAfter(first!.scheduledAt ?? first!.startedAt);
      await schedules.trigger(id);
      const runs = await resultsOf(schedules, id, 2);

      expect(runs.map((run) => run.status)).toEqual(['COMPLETED', 'COMPLETED']);
      expect(runs[1]!.workflowId).toBe(first!.workflowId);
      expect(runs[0]!.startedAt.getTime()).toBeGreaterThanOrEqual(runs[1]!.startedAt.getTime());
      expect(new Set(runs.map((run) => run.callWorkflowId)).size).toBe(2);
      for (const run of runs) {
        expect(run.workflowId).toMatch(new RegExp(`^switchyard-schedule-${id}-`));
        expect(run.answer?.text).toContain('Write the daily digest');
        expect(run.record?.servedBy).toMatchObject({ provider: 'openai', model: 'gpt-primary' });
        expect(run.error).toBeUndefined();
        // The routed call is an ordinary routed call: same record, readable with inspect / `switchyard show`.
        const call = await switchyard.inspect(run.callWorkflowId);
        expect(call).toMatchObject({ status: 'COMPLETED', record: { workflowId: run.callWorkflowId } });
      }
      expect(harness.fake.requestsFor('gpt-primary')).toHaveLength(2);
      const ledger = await settledLedger(switchyard.ledgers, 'team-digest');
      expect(ledger.spentNanoUsd).toBeGreaterThan(0);

      const described = await schedules.describe(id);
      expect(described.runsTaken).toBe(2);
      expect(described.recentRuns.map((run) => run.workflowId)).toEqual(runs.map((run) => run.workflowId));
    });
  });
});

test('pause stops runs, trigger still runs a paused schedule, and unpause resumes', async () => {
  await harness.withWorker(async (switchyard) => {
    const { schedules } = switchyard;
    await withScheduleId(schedules, async (id) => {
      await schedules.create({ id, every: '2s', call: { route: 'support', request } });
      await eventually(
        'a first scheduled run',
        () => schedules.describe(id),
        (view) => view.runsTaken >= 1,
      );
      const paused = await schedules.pause(id, { note: 'provider migration' });
      expect(paused).toMatchObject({ paused: true, note: 'provider migration' });
      expect(paused.nextRunTimes).toEqual([]);
      const settled = await eventually(
        'no run in flight',
        () => schedules.describe(id),
        (view) => view.runningWorkflowIds.length === 0,
      );
      // Several intervals pass while paused: no run is taken.
      await delay(6_000);
      expect((await schedules.describe(id)).runsTaken).toBe(settled.runsTaken);

      await schedules.trigger(id);
      await eventually(
        'the triggered run',
        () => schedules.describe(id),
        (view) => view.runsTaken === settled.runsTaken + 1,
      );

      const resumed = await schedules.unpause(id);
      expect(resumed).toMatchObject({ paused: false, note: 'provider migration' });
      await eventually(
        'runs after unpause',
        () => schedules.describe(id),
        (view) => view.runsTaken >= settled.runsTaken + 2,
      );
    });
  });
});

test('overlap skip: a run that comes due while one still runs is skipped, not piled up', async () => {
  // The first request hangs until its 5 s timeout, then the call fails over: the run is long enough to overlap.
  harness.fake.script('gpt-primary', { kind: 'hang' });
  await harness.withWorker(async (switchyard) => {
    const { schedules } = switchyard;
    await withScheduleId(schedules, async (id) => {
      await schedules.create({ id, every: TRIGGERED_ONLY, call: { route: 'support', request } });
      await schedules.trigger(id);
      await eventually(
        'the first run waiting on its hung attempt',
        async () => harness.fake.counters('gpt-primary').requests,
        (requests) => requests === 1,
      );
      await schedules.trigger(id);
      await eventually(
        'the second run skipped',
        () => schedules.describe(id),
        (view) => view.runsSkippedByOverlap === 1,
      );
      const runs = await resultsOf(schedules, id, 1);
      expect(runs[0]).toMatchObject({
        status: 'COMPLETED',
        record: { fallbacks: 1, servedBy: { provider: 'anthropic', model: 'claude-primary' } },
      });
      expect((await schedules.describe(id)).runsTaken).toBe(1);
      expect(harness.fake.requestsFor('claude-primary')).toHaveLength(1);
    });
  });
});

test('overlap buffer_one: a run that comes due while one still runs starts when it ends', async () => {
  harness.fake.script('gpt-primary', { kind: 'hang' });
  await harness.withWorker(async (switchyard) => {
    const { schedules } = switchyard;
    await withScheduleId(schedules, async (id) => {
      await schedules.create({
        id,
        every: TRIGGERED_ONLY,
        overlap: 'buffer_one',
        call: { route: 'support', request },
      });
      await schedules.trigger(id);
      await eventually(
        'the first run waiting on its hung attempt',
        async () => harness.fake.counters('gpt-primary').requests,
        (requests) => requests === 1,
      );
      await schedules.trigger(id);
      const [second, first] = await resultsOf(schedules, id, 2);
      expect(first!.record?.fallbacks).toBe(1);
      expect(second!.record?.fallbacks).toBe(0);
      // Buffered, not overlapped: the second started only after the first had ended.
      expect(second!.startedAt.getTime()).toBeGreaterThanOrEqual(first!.closedAt!.getTime());
      expect((await schedules.describe(id)).runsSkippedByOverlap).toBe(0);
    });
  });
});

test('update changes what is named and keeps the rest', async () => {
  const switchyard = new SwitchyardClient({
    client: harness.temporal.client,
    taskQueue: uniqueName('unpolled'),
    config: harness.config,
  });
  const { schedules } = switchyard;
  await withScheduleId(schedules, async (id) => {
    await schedules.create({
      id,
      every: '1h',
      call: { route: 'support', request, patienceMs: 60_000 },
      budget: 'team-a',
      deliver: { directory: '/tmp/switchyard-digests' },
      paused: true,
    });
    const cron = await schedules.update(id, {
      cron: '0 9 * * MON-FRI',
      timezone: 'Europe/Berlin',
      note: 'weekdays',
    });
    expect(cron).toMatchObject({
      cron: '0 9 * * MON-FRI',
      timezone: 'Europe/Berlin',
      note: 'weekdays',
      paused: true,
      budget: 'team-a',
      deliver: { directory: '/tmp/switchyard-digests' },
      call: { route: 'support', patienceMs: 60_000, budget: 'team-a' },
    });
    expect(cron.every).toBeUndefined();

    const changed = await schedules.update(id, (current) => ({
      every: '30m',
      call: { ...current.call, request: { ...current.call.request, system: 'Be brief.' } },
      budget: null,
      deliver: null,
      overlap: 'buffer_one',
    }));
    expect(changed).toMatchObject({ every: 1_800_000, overlap: 'buffer_one', note: 'weekdays' });
    expect(changed.timezone).toBeUndefined();
    expect(changed.cron).toBeUndefined();
    expect(changed.deliver).toBeUndefined();
    expect(changed.call.budget).toBeUndefined();
    expect(changed.call).toMatchObject({ patienceMs: 60_000, request: { system: 'Be brief.' } });

    await expect(schedules.update(id, { cron: 'every monday' })).rejects.toMatchObject({ field: 'cron' });
    expect((await schedules.describe(id)).every).toBe(1_800_000);

    const listed = await schedules.list();
    expect(listed.find((view) => view.id === id)).toMatchObject({ every: 1_800_000 });
  });
});

test('bad specs are refused with the field named, and nothing is created', async () => {
  const switchyard = new SwitchyardClient({
    client: harness.temporal.client,
    taskQueue: uniqueName('unpolled'),
    config: harness.config,
  });
  const { schedules } = switchyard;
  const cases = [
    { spec: { cron: '0 25 * * *' }, field: 'cron', message: 'hour 25 is out of range 0-23' },
    { spec: { cron: '0 9 * *' }, field: 'cron', message: 'a cron expression has 5 fields' },
    {
      spec: { cron: '0 9 * * *', timezone: 'Europe/Nowhere' },
      field: 'timezone',
      message: 'unknown time zone',
    },
    { spec: { every: '1 fortnight' }, field: 'every', message: 'is not a duration' },
    {
      spec: { every: '1h', call: { route: 'nope', request } },
      field: 'call.route',
      message: 'unknown route "nope"',
    },
    { spec: {}, field: 'every', message: 'give either an interval (every) or a cron expression' },
  ];
  for (const { spec, field, message } of cases) {
    const id = uniqueName('refused');
    const attempt = schedules.create({ id, call: { route: 'support', request }, ...spec });
    await expect(attempt).rejects.toBeInstanceOf(InvalidRequestError);
    await expect(attempt).rejects.toMatchObject({ field });
    await expect(attempt).rejects.toThrow(message);
    await expect(schedules.describe(id)).rejects.toBeInstanceOf(ScheduleNotFoundError);
  }

  await withScheduleId(schedules, async (id) => {
    await schedules.create({ id, every: '1h', call: { route: 'support', request }, paused: true });
    await expect(
      schedules.create({ id, every: '2h', call: { route: 'support', request } }),
    ).rejects.toMatchObject({
      field: 'id',
    });
  });
});

test('a scheduled generation during a full outage waits it out and succeeds once the provider recovers', async () => {
  harness.fake.outage('gpt-primary');
  harness.fake.outage('claude-primary');
  const route = {
    targets: [
      { provider: 'openai', model: 'gpt-primary', timeoutMs: 5_000 },
      { provider: 'anthropic', model: 'claude-primary', timeoutMs: 5_000 },
    ],
    breaker: { failureThreshold: 1, cooldownMs: 1_500 },
  };
  await harness.withWorker(async (switchyard) => {
    const { schedules } = switchyard;
    await withScheduleId(schedules, async (id) => {
      await schedules.create({ id, every: TRIGGERED_ONLY, call: { route, request } });
      await schedules.trigger(id);
      // Both targets fail once and both breakers open; nothing more is sent while they are open.
      await eventually(
        'both targets tried',
        async () => harness.fake.requests.length,
        (count) => count >= 2,
      );
      const openedAt = Date.now();
      harness.fake.recover('gpt-primary');
      harness.fake.recover('claude-primary');
      const [run] = await resultsOf(schedules, id, 1);
      expect(run!.status).toBe('COMPLETED');
      expect(run!.record?.rounds).toBeGreaterThanOrEqual(2);
      expect(run!.record?.servedBy?.model).toBe('gpt-primary');
      expect(harness.fake.requests).toHaveLength(3);
      expect(harness.fake.requests[2]!.receivedAt).toBeGreaterThanOrEqual(openedAt);
    });
  });
});

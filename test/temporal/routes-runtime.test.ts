// Routes changed at runtime on a real dev server: a change reaches calls without a worker restart while a call in
// flight keeps its version, the audit trail lists both, and a route in use or over the attempt cap is refused.
import { setTimeout as delay } from 'node:timers/promises';
import { InvalidRequestError } from '../../src/client/invalid-request-error';
import { RouteInUseError, Routes } from '../../src/client/routes';
import { entityTaskQueue } from '../../src/workflows/definitions';
import { routeRegistryStartOptions } from '../../src/workflows/route-registry/definitions';
import { routeRegistryWorkflow } from '../../src/workflows/route-registry/route-registry-workflow';
import { expectRoutedCallError } from '../support/expect-failure';
import { eventually } from '../support/eventually';
import { startHarness, type Harness } from '../support/harness';
import { uniqueName } from '../support/temporal';

/** Workers read the registry again after this long (milliseconds); the default is 2 s. */
const REFRESH_MS = 200;
/** Long enough for every worker's copy to be older than {@link REFRESH_MS}: a call started after it sees a change. */
const PICKUP_WAIT_MS = REFRESH_MS + 300;

const request = { messages: [{ role: 'user' as const, content: 'Say hello' }], maxOutputTokens: 64 };
const onOpenAI = { targets: [{ provider: 'openai', model: 'gpt-primary', timeoutMs: 10_000 }] };
const onAnthropic = { targets: [{ provider: 'anthropic', model: 'claude-primary', timeoutMs: 10_000 }] };

let harness: Harness;
const savedRefresh = process.env.SWITCHYARD_ROUTE_REFRESH_MS;
beforeAll(async () => {
  // The harness's workers read the refresh interval from the environment.
  process.env.SWITCHYARD_ROUTE_REFRESH_MS = String(REFRESH_MS);
  harness = await startHarness((config) => ({
    ...config,
    routes: { ...config.routes, spare: onOpenAI as never },
  }));
});
afterAll(async () => {
  if (savedRefresh === undefined) delete process.env.SWITCHYARD_ROUTE_REFRESH_MS;
  else process.env.SWITCHYARD_ROUTE_REFRESH_MS = savedRefresh;
  await harness?.close();
});
beforeEach(() => harness.fake.reset());

test('a route changed while a call runs: the call keeps its version, later calls get the new one, no restart', async () => {
  // The first call's answer is held back, so the route changes while it runs.
  harness.fake.script('gpt-primary', { kind: 'answer', text: 'served by version 1', delayMs: 1_500 });
  harness.fake.script('claude-primary', { kind: 'answer', text: 'served by version 2' });

  await harness.withWorker(async (switchyard) => {
    const first = await switchyard.routes.set('live', onOpenAI, { by: 'alice' });
    expect(first).toMatchObject({ name: 'live', version: 1, source: 'runtime' });
    // A route the config lacks: the client finds it among the runtime routes before starting the call.
    const before = await switchyard.start({ route: 'live', request });
    await eventually(
      'the first call at its provider',
      async () => harness.fake.counters('gpt-primary').requests,
      (requests) => requests === 1,
    );

    const second = await switchyard.routes.set('live', onAnthropic, { by: 'bob' });
    expect(second.version).toBe(2);
    await delay(PICKUP_WAIT_MS);
    const after = await switchyard.generate({ route: 'live', request });

    const kept = await before.result();
    expect(kept.answer.text).toBe('served by version 1');
    expect(kept.record).toMatchObject({ route: 'live', routeVersion: 1 });
    expect(kept.record.servedBy).toMatchObject({ provider: 'openai', model: 'gpt-primary' });
    expect(after.answer.text).toBe('served by version 2');
    expect(after.record).toMatchObject({ route: 'live', routeVersion: 2 });
    expect(after.record.servedBy).toMatchObject({ provider: 'anthropic', model: 'claude-primary' });
    // Each version's target got exactly its own call.
    expect(harness.fake.counters('gpt-primary').requests).toBe(1);
    expect(harness.fake.counters('claude-primary').requests).toBe(1);

    const shown = await switchyard.routes.show('live');
    expect(shown).toMatchObject({ version: 2, by: 'bob', spec: { targets: [{ model: 'claude-primary' }] } });
    expect(shown.history.map(({ version, action, by }) => ({ version, action, by }))).toEqual([
      { version: 1, action: 'set', by: 'alice' },
      { version: 2, action: 'set', by: 'bob' },
    ]);
    expect(shown.history[0]!.spec?.targets).toMatchObject([{ model: 'gpt-primary' }]);

    // A config route untouched at runtime records no version; overridden, it records its runtime one.
    const untouched = await switchyard.generate({ route: 'support', request });
    expect(untouched.record.routeVersion).toBeUndefined();
    const listed = await switchyard.routes.list();
    expect(listed.map(({ name, version, source }) => ({ name, version, source }))).toEqual([
      { name: 'live', version: 2, source: 'runtime' },
      { name: 'spare', version: 0, source: 'config' },
      { name: 'support', version: 0, source: 'config' },
    ]);
  });
});

test('deleting a route in use is refused naming its users; once unused it is hidden from calls', async () => {
  const scheduleId = uniqueName('routes-user');
  await harness.withWorker(async (switchyard, taskQueue) => {
    const defaultRefusal = await switchyard.routes.delete('support').catch((error: unknown) => error);
    expect(defaultRefusal).toBeInstanceOf(RouteInUseError);
    expect((defaultRefusal as RouteInUseError).message).toContain("the config's defaultRoute");

    await switchyard.schedules.create({
      id: scheduleId,
      every: '1h',
      paused: true,
      call: { route: 'spare', request },
    });
    try {
      // The gateway's keys come from whoever builds the client (the CLI reads the key file).
      const routes = new Routes({
        client: switchyard.temporal,
        taskQueue,
        config: harness.config,
        schedules: switchyard.schedules,
        gatewayKeys: () => [
          { id: '0123456789ab', label: 'docs team', routes: ['spare'] },
          { id: 'ba9876543210', routes: ['spare'], revokedAt: '2026-01-01T00:00:00.000Z' },
        ],
      });
      const refusal = (await routes
        .delete('spare', { by: 'alice' })
        .catch((error: unknown) => error)) as RouteInUseError;
      expect(refusal).toBeInstanceOf(RouteInUseError);
      expect(refusal.users.map(({ kind, id }) => ({ kind, id }))).toEqual([
        { kind: 'schedule', id: scheduleId },
        { kind: 'gateway-key', id: '0123456789ab' },
      ]);
      expect(refusal.message).toContain(`schedule "${scheduleId}"`);
      expect(refusal.message).toContain('gateway key 0123456789ab (docs team)');
    } finally {
      await switchyard.schedules.delete(scheduleId);
    }

    // Nothing uses it now: deleting it hides the config's route, and a call naming it is refused by the worker.
    const deleted = await switchyard.routes.delete('spare', { by: 'alice' });
    expect(deleted).toMatchObject({ name: 'spare', version: 1, deleted: true });
    expect(deleted.history).toMatchObject([{ version: 1, action: 'delete', by: 'alice' }]);
    expect((await switchyard.routes.list()).map((route) => route.name)).toEqual(['support']);
    await delay(PICKUP_WAIT_MS);
    const error = await expectRoutedCallError(switchyard.generate({ route: 'spare', request }));
    expect(error.type).toBe('InvalidRequest');
    expect(error.message).toContain('unknown route "spare"');
    expect(harness.fake.counters('gpt-primary').requests).toBe(0);

    // Schedules see the runtime routes too: a deleted route cannot be scheduled, one set only at runtime can.
    const refusedSchedule = await switchyard.schedules
      .create({
        id: uniqueName('routes-hidden'),
        every: '1h',
        paused: true,
        call: { route: 'spare', request },
      })
      .catch((error: unknown) => error);
    expect(refusedSchedule).toBeInstanceOf(InvalidRequestError);
    expect((refusedSchedule as InvalidRequestError).field).toBe('call.route');
    await switchyard.routes.set('nightly-only', onOpenAI, { by: 'alice' });
    const nightlyId = uniqueName('routes-runtime-only');
    await switchyard.schedules.create({
      id: nightlyId,
      every: '1h',
      paused: true,
      call: { route: 'nightly-only', request },
    });
    await switchyard.schedules.delete(nightlyId);
  });
});

test('a spec over the attempt cap, or naming a model the config lacks, is refused before anything is written', async () => {
  await harness.withWorker(async (switchyard) => {
    const overCap = {
      targets: [
        { provider: 'openai', model: 'gpt-primary', retries: 4 },
        { provider: 'anthropic', model: 'claude-primary', retries: 4 },
        { provider: 'openai', model: 'gpt-secondary', retries: 1 },
      ],
    };
    const tooMany = (await switchyard.routes
      .set('greedy', overCap)
      .catch((error: unknown) => error)) as InvalidRequestError;
    expect(tooMany).toBeInstanceOf(InvalidRequestError);
    expect(tooMany.field).toBe('spec.targets');
    expect(tooMany.message).toContain('up to 12 attempts in total');

    const unknownModel = { targets: [{ provider: 'openai', model: 'gpt-nine' }] };
    const missing = (await switchyard.routes
      .set('greedy', unknownModel)
      .catch((error: unknown) => error)) as InvalidRequestError;
    expect(missing.field).toBe('spec.targets.0.model');
    // Nothing was written: the registry has no such route.
    await expect(switchyard.routes.show('greedy')).rejects.toThrow('no route named "greedy"');
  });
});

test('the registry keeps every route, version and audit entry across continue-as-new', async () => {
  await harness.withWorker(async (switchyard, taskQueue) => {
    // Started ahead of the first change, with a run of two changes, so the third lands on the next run.
    const started = await switchyard.temporal.workflow.start(routeRegistryWorkflow, {
      ...routeRegistryStartOptions(taskQueue, entityTaskQueue(taskQueue)),
      args: [{ continueAsNewAfterChanges: 2 }],
    });
    await switchyard.routes.set('rolling', onOpenAI, { by: 'one' });
    await switchyard.routes.set('rolling', onAnthropic, { by: 'two' });
    await switchyard.routes.set('other', onOpenAI);
    await switchyard.routes.delete('rolling', { by: 'three' });

    const description = await switchyard.temporal.workflow.getHandle(started.workflowId).describe();
    expect(description.runId).not.toBe(started.firstExecutionRunId);
    const rolling = await switchyard.routes.show('rolling');
    expect(rolling).toMatchObject({ version: 3, deleted: true });
    expect(rolling.history.map(({ version, action, by }) => `${version} ${action} ${by}`)).toEqual([
      '1 set one',
      '2 set two',
      '3 delete three',
    ]);
    expect((await switchyard.routes.show('other')).version).toBe(1);
  });
});

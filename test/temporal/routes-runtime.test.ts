// Routes changed at runtime on a real dev server: a change reaches calls without a worker restart while a call in
// flight keeps its version, the audit trail lists both, and a route in use or over the attempt cap is refused.
import { setTimeout as delay } from 'node:timers/promises';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { InvalidRequestError } from '../../src/client/invalid-request-error';
import { RouteInUseError, Routes } from '../../src/client/routes';
import { entityTaskQueue } from '../../src/workflows/definitions';
import { RouteSpecSchema } from '../../src/config/route';
import { jsonBytes, REGISTRY_STATE_MAX_BYTES } from '../../src/config/route-registry-budget';
import {
  deleteRouteUpdate,
  ROUTE_REGISTRY_CONFLICT,
  routeQuery,
  routeRegistryStartOptions,
  routeRegistryWorkflowId,
  setRouteUpdate,
  snapshotQuery,
} from '../../src/workflows/route-registry/definitions';
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

test('many large changes keep the registry running within its byte budget, with the newest audit entries', async () => {
  await harness.withWorker(async (switchyard, taskQueue) => {
    const started = await switchyard.temporal.workflow.start(routeRegistryWorkflow, {
      ...routeRegistryStartOptions(taskQueue, entityTaskQueue(taskQueue)),
      args: [{ continueAsNewAfterChanges: 50 }],
    });
    const registry = switchyard.temporal.workflow.getHandle(started.workflowId);
    // About 14 KB each as JSON. The registry checks a spec's shape only (the client checks its models), so these
    // go to it directly: 150 of them kept in full would be over Temporal's 2 MB payload limit.
    const large = (change: number) =>
      RouteSpecSchema.parse({
        targets: Array.from({ length: 10 }, (_, index) => ({
          provider: 'openai',
          model: `change-${change}-target-${index}-`.padEnd(1_300, 'x'),
        })),
      });
    const names = ['heavy-a', 'heavy-b', 'heavy-c'];
    for (let change = 1; change <= 150; change += 1) {
      const changed = await registry.executeUpdate(setRouteUpdate, {
        args: [{ name: names[change % 3]!, spec: large(change), by: `change ${change}` }],
      });
      // The route's newest entries only, not its whole trail.
      expect(changed.history.length).toBeLessThanOrEqual(10);
      expect(changed.history.at(-1)!.by).toBe(`change ${change}`);
    }

    const description = await registry.describe();
    expect(description.status.name).toBe('RUNNING');
    expect(description.runId).not.toBe(started.firstExecutionRunId);
    const kept = await Promise.all(names.map((name) => registry.query(routeQuery, name)));
    let bytes = 0;
    for (const [index, route] of kept.entries()) {
      expect(route).toMatchObject({ version: 50 });
      // Its last change: 150, 148, 149 for heavy-a, -b, -c.
      const last = [150, 148, 149][index]!;
      expect(route!.spec!.targets[0]).toMatchObject({ model: expect.stringContaining(`change-${last}-`) });
      const versions = route!.history.map((entry) => entry.version);
      // Trimmed to the budget: the newest entries, consecutive, ending with the current one.
      expect(versions.length).toBeGreaterThan(1);
      expect(versions.length).toBeLessThan(50);
      expect(versions).toEqual(Array.from(versions, (_, at) => 51 - versions.length + at));
      bytes += jsonBytes(route);
    }
    expect(bytes).toBeLessThanOrEqual(REGISTRY_STATE_MAX_BYTES);

    // One spec over its own limit is refused naming spec and its size.
    const oversized = await registry
      .executeUpdate(setRouteUpdate, {
        args: [
          {
            name: 'heavy-a',
            spec: RouteSpecSchema.parse({ targets: [{ provider: 'openai', model: 'x'.repeat(20_000) }] }),
          },
        ],
      })
      .catch((error: unknown) => error);
    expect(oversized).toBeInstanceOf(WorkflowUpdateFailedError);
    expect((oversized as WorkflowUpdateFailedError).cause?.message).toMatch(
      /spec of route "heavy-a" takes \d+ bytes as JSON, over the limit of 16384/,
    );
    expect((await registry.query(routeQuery, 'heavy-a'))!.version).toBe(50);
  });
});

test('two changes checked against the same routes: the registry refuses the second, the client checks it again', async () => {
  await harness.withWorker(async (switchyard, taskQueue) => {
    await switchyard.routes.set('inner', onOpenAI);
    const registry = switchyard.temporal.workflow.getHandle(routeRegistryWorkflowId(taskQueue));
    // Both checked against one snapshot: nesting "inner" applies, deleting it is then refused on the counter.
    const snapshot = await registry.query(snapshotQuery);
    expect(snapshot.registryVersion).toBe(1);
    await registry.executeUpdate(setRouteUpdate, {
      args: [
        {
          name: 'outer',
          spec: RouteSpecSchema.parse({ targets: [{ route: 'inner' }] }),
          expectedRegistryVersion: snapshot.registryVersion,
        },
      ],
    });
    const stale = await registry
      .executeUpdate(deleteRouteUpdate, {
        args: [{ name: 'inner', expectedRegistryVersion: snapshot.registryVersion }],
      })
      .catch((error: unknown) => error);
    expect(stale).toBeInstanceOf(WorkflowUpdateFailedError);
    const cause = (stale as WorkflowUpdateFailedError).cause as ApplicationFailure;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect(cause.type).toBe(ROUTE_REGISTRY_CONFLICT);
    expect(cause.message).toContain('registry version 2, not 1');
    expect((await registry.query(snapshotQuery)).routes.inner).toMatchObject({ version: 1 });

    // Through the client: another change lands between its check and its send (the schedules are read in
    // between). The client reads the routes again and checks again.
    await switchyard.routes.set('lonely', onOpenAI);
    const racing = (race: () => Promise<unknown>) => {
      let checks = 0;
      const routes = new Routes({
        client: switchyard.temporal,
        taskQueue,
        config: harness.config,
        schedules: {
          list: async () => {
            checks += 1;
            if (checks === 1) await race();
            return [];
          },
        },
      });
      return { routes, checks: () => checks };
    };
    // A route nesting "lonely" appears meanwhile: the second check finds it in use.
    const nesting = racing(() => switchyard.routes.set('nester', { targets: [{ route: 'lonely' }] }));
    const refusal = await nesting.routes.delete('lonely').catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(RouteInUseError);
    expect((refusal as RouteInUseError).users).toMatchObject([{ kind: 'route', id: 'nester' }]);
    expect(nesting.checks()).toBe(2);
    expect((await switchyard.routes.show('lonely')).deleted).toBe(false);

    // An unrelated change meanwhile: the second check passes and the deletion applies.
    const unrelated = racing(() => switchyard.routes.set('elsewhere', onAnthropic));
    await switchyard.routes.set('lonely-too', onOpenAI);
    const deleted = await unrelated.routes.delete('lonely-too');
    expect(deleted).toMatchObject({ deleted: true, version: 2 });
    expect(unrelated.checks()).toBe(2);
    expect((await registry.query(snapshotQuery)).routes.elsewhere).toMatchObject({ version: 1 });
  });
});

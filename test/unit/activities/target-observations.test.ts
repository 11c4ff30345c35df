// A worker's target measurements: windows, the median, breaker-counted failures, the key cap, and beginCall's use of them.
import { ApplicationFailure } from '@temporalio/common';
import type { createProviderCall } from '../../../src/activities/call-provider';
import type { AttemptInput, AttemptSuccess } from '../../../src/activities/attempt-types';
import { createBeginCall } from '../../../src/activities/begin-call';
import {
  ObservationSettingsError,
  observedProviderCall,
  TargetObservations,
} from '../../../src/activities/target-observations';
import { ALL_FAILURE_CLASSES, countsOnBreaker } from '../../../src/config/failure-class';
import { parseConfig } from '../../../src/config/load-config';
import { resolveRoute } from '../../../src/config/resolve-route';

const fast = { provider: 'a', model: 'fast' };
const slow = { provider: 'a', model: 'slow' };

/** A store on a clock the test moves by hand. */
function storeAt(startMs = 1_000_000, settings: ConstructorParameters<typeof TargetObservations>[0] = {}) {
  const clock = { nowMs: startMs };
  const store = new TargetObservations({ ...settings, clock: () => clock.nowMs });
  return { store, clock };
}

test('a target nothing was recorded for has no latency and no failures', () => {
  const { store } = storeAt();
  expect(store.observe(fast)).toEqual({ recentFailures: 0 });
  expect(store.size).toBe(0);
});

test('the latency is the median of the answers, not their mean: one slow outlier does not move it', () => {
  const { store } = storeAt();
  for (const latencyMs of [100, 120, 110, 90, 9_000]) store.recordAnswer(fast, latencyMs);
  expect(store.observe(fast)).toEqual({ latencyMs: 110, recentFailures: 0 });
  // An even count: the mean of the middle two, rounded to a whole millisecond.
  store.recordAnswer(fast, 101);
  expect(store.observe(fast).latencyMs).toBe(106);
});

test('the latency reads only the last `latencySamples` answers', () => {
  const { store } = storeAt(0, { latencySamples: 3 });
  for (const latencyMs of [5_000, 5_000, 5_000, 10, 20, 30]) store.recordAnswer(slow, latencyMs);
  expect(store.observe(slow).latencyMs).toBe(20);
});

test('answers older than the window are forgotten; a target seen only long ago has no latency', () => {
  const { store, clock } = storeAt(0, { windowMs: 60_000 });
  store.recordAnswer(slow, 4_000);
  clock.nowMs = 30_000;
  store.recordAnswer(slow, 200);
  store.recordAnswer(slow, 300);
  expect(store.observe(slow).latencyMs).toBe(300);
  clock.nowMs = 60_001; // the first answer is now 60.001 s old
  expect(store.observe(slow).latencyMs).toBe(250);
  clock.nowMs = 90_001;
  expect(store.observe(slow)).toEqual({ recentFailures: 0 });
});

test('failures are counted in the sliding window and only when their class counts on the breaker', () => {
  const { store, clock } = storeAt(0, { windowMs: 60_000 });
  for (const failureClass of ALL_FAILURE_CLASSES) store.recordFailure(fast, failureClass);
  const counted = ALL_FAILURE_CLASSES.filter(countsOnBreaker);
  expect(counted.length).toBeGreaterThan(0);
  expect(counted.length).toBeLessThan(ALL_FAILURE_CLASSES.length);
  expect(store.observe(fast).recentFailures).toBe(counted.length);
  clock.nowMs = 40_000;
  store.recordFailure(fast, 'timeout');
  clock.nowMs = 60_001;
  expect(store.observe(fast).recentFailures).toBe(1);
  clock.nowMs = 100_001;
  expect(store.observe(fast).recentFailures).toBe(0);
});

test('a refusal, an invalid request or a cancellation alone leaves a target unmeasured', () => {
  const { store } = storeAt();
  store.recordFailure(fast, 'refused');
  store.recordFailure(fast, 'invalid_request');
  store.recordFailure(fast, 'cancelled');
  expect(store.observe(fast)).toEqual({ recentFailures: 0 });
  expect(store.size).toBe(0);
});

test('the failure count saturates at `failureSamples`', () => {
  const { store } = storeAt(0, { failureSamples: 5 });
  for (let index = 0; index < 12; index += 1) store.recordFailure(fast, 'unavailable');
  expect(store.observe(fast).recentFailures).toBe(5);
});

test('beyond `maxTargets` keys the least recently recorded one is dropped, however many models are called', () => {
  const { store } = storeAt(0, { maxTargets: 3 });
  store.recordAnswer({ provider: 'a', model: 'm0' }, 10);
  store.recordAnswer({ provider: 'a', model: 'm1' }, 11);
  store.recordAnswer({ provider: 'a', model: 'm2' }, 12);
  // Recording m0 again makes m1 the least recent.
  store.recordFailure({ provider: 'a', model: 'm0' }, 'timeout');
  store.recordAnswer({ provider: 'a', model: 'm3' }, 13);
  expect(store.size).toBe(3);
  expect(store.observe({ provider: 'a', model: 'm1' })).toEqual({ recentFailures: 0 });
  expect(store.observe({ provider: 'a', model: 'm0' })).toEqual({ latencyMs: 10, recentFailures: 1 });
  for (let index = 0; index < 10_000; index += 1)
    store.recordAnswer({ provider: 'p', model: `x${index}` }, 1);
  expect(store.size).toBe(3);
});

test('provider and model are kept apart: a slash in a name does not merge two targets', () => {
  const { store } = storeAt();
  store.recordAnswer({ provider: 'a/b', model: 'c' }, 100);
  expect(store.observe({ provider: 'a', model: 'b/c' })).toEqual({ recentFailures: 0 });
});

test('a latency that is not a finite non-negative number is ignored', () => {
  const { store } = storeAt();
  store.recordAnswer(fast, Number.NaN);
  store.recordAnswer(fast, -5);
  expect(store.observe(fast)).toEqual({ recentFailures: 0 });
});

test('a setting that is not a positive whole number is refused, naming it', () => {
  expect(() => new TargetObservations({ windowMs: 0 })).toThrow(ObservationSettingsError);
  expect(() => new TargetObservations({ latencySamples: 2.5 })).toThrow(/latencySamples/);
  expect(() => new TargetObservations({ maxTargets: -1 })).toThrow(/maxTargets/);
});

describe('observedProviderCall', () => {
  type ProviderCall = ReturnType<typeof createProviderCall>;
  const input = { target: { provider: 'a', model: 'fast' } } as unknown as AttemptInput;
  const context = {} as Parameters<ProviderCall>[1];

  test('an answer is recorded with the latency the call measured, and passed on unchanged', async () => {
    const { store } = storeAt();
    const success = { result: {}, latencyMs: 42 } as unknown as AttemptSuccess;
    const call = observedProviderCall(async () => success, store);
    await expect(call(input, context)).resolves.toBe(success);
    expect(store.observe(fast)).toEqual({ latencyMs: 42, recentFailures: 0 });
  });

  test('a classified failure is recorded by its class and rethrown as it was', async () => {
    const { store } = storeAt();
    const failure = ApplicationFailure.create({ type: 'unavailable', message: 'down', nonRetryable: true });
    const call = observedProviderCall(async () => Promise.reject(failure), store);
    await expect(call(input, context)).rejects.toBe(failure);
    const refusal = ApplicationFailure.create({ type: 'refused', message: 'no', nonRetryable: true });
    await expect(
      observedProviderCall(async () => Promise.reject(refusal), store)(input, context),
    ).rejects.toBe(refusal);
    expect(store.observe(fast)).toEqual({ recentFailures: 1 });
  });

  test('an error that is no classified failure is not recorded', async () => {
    const { store } = storeAt();
    const odd = ApplicationFailure.create({ type: 'SomethingElse', message: 'odd' });
    await expect(observedProviderCall(async () => Promise.reject(odd), store)(input, context)).rejects.toBe(
      odd,
    );
    await expect(
      observedProviderCall(async () => Promise.reject(new Error('bug')), store)(input, context),
    ).rejects.toThrow('bug');
    expect(store.size).toBe(0);
  });
});

describe('beginCall observations', () => {
  const providers = {
    a: {
      kind: 'openai',
      apiKeyEnv: 'A_KEY',
      models: {
        fast: { inputUsdPerMillion: 1, outputUsdPerMillion: 2 },
        slow: { inputUsdPerMillion: 1, outputUsdPerMillion: 2 },
      },
    },
  };
  const config = parseConfig({
    providers,
    routes: {
      pool: {
        strategy: 'fastest',
        targets: [
          { provider: 'a', model: 'fast' },
          { provider: 'a', model: 'slow' },
        ],
      },
      outer: { strategy: 'fewest_failures', targets: [{ provider: 'a', model: 'slow' }, { route: 'pool' }] },
      plain: {
        targets: [
          { provider: 'a', model: 'fast' },
          { provider: 'a', model: 'slow' },
        ],
      },
    },
  });

  function beginCallWith(store: TargetObservations, draw?: () => number) {
    return createBeginCall({
      resolveRoute: async (reference) => resolveRoute(config, reference),
      peekAdmission: async () => undefined,
      observe: (target) => store.observe(target),
      ...(draw ? { draw } : {}),
    });
  }

  test('with observe: one observation per route target, by index (a nested route flattened), and a draw in [0, 1)', async () => {
    const { store } = storeAt();
    store.recordAnswer(fast, 80);
    store.recordAnswer(slow, 900);
    store.recordFailure(slow, 'timeout');
    const result = await beginCallWith(store)({
      route: 'outer',
      hasBudget: false,
      firstCaller: 'call#1',
      observe: true,
    });
    expect(result.route.targets.map((target) => target.model)).toEqual(['slow', 'fast', 'slow']);
    expect(result.observations).toEqual([
      { latencyMs: 900, recentFailures: 1 },
      { latencyMs: 80, recentFailures: 0 },
      { latencyMs: 900, recentFailures: 1 },
    ]);
    expect(result.draw).toBeGreaterThanOrEqual(0);
    expect(result.draw).toBeLessThan(1);
  });

  test('the draw is whatever the random source gave, also when the route needs a budget the call lacks', async () => {
    const { store } = storeAt();
    const budgeted = parseConfig({
      providers,
      routes: { paid: { requireBudget: true, targets: [{ provider: 'a', model: 'fast' }] } },
    });
    const beginCall = createBeginCall({
      resolveRoute: async (reference) => resolveRoute(budgeted, reference),
      peekAdmission: async () => {
        throw new Error('no admission without a budget');
      },
      observe: (target) => store.observe(target),
      draw: () => 0.25,
    });
    const result = await beginCall({ route: 'paid', hasBudget: false, firstCaller: 'c#1', observe: true });
    expect(result).toMatchObject({ observations: [{ recentFailures: 0 }], draw: 0.25 });
    expect(result).not.toHaveProperty('firstAdmission');
  });

  test('a named route whose strategy reads measurements is observed though the call did not ask', async () => {
    const { store } = storeAt();
    store.recordAnswer(slow, 700);
    const result = await beginCallWith(
      store,
      () => 0.5,
    )({ route: 'pool', hasBudget: false, firstCaller: 'c#1' });
    expect(result).toMatchObject({
      observations: [{ recentFailures: 0 }, { latencyMs: 700, recentFailures: 0 }],
      draw: 0.5,
    });
  });

  test('a plain ordered route without observe: neither observations nor a draw, and nothing is read from the store', async () => {
    const { store } = storeAt();
    store.recordAnswer(fast, 80);
    const observe = jest.fn(() => ({ recentFailures: 0 }));
    const draw = jest.fn(() => 0.5);
    const beginCall = createBeginCall({
      resolveRoute: async (reference) => resolveRoute(config, reference),
      peekAdmission: async () => undefined,
      observe,
      draw,
    });
    const result = await beginCall({ route: 'plain', hasBudget: false, firstCaller: 'c#1' });
    expect(Object.keys(result)).toEqual(['route']);
    expect(observe).not.toHaveBeenCalled();
    expect(draw).not.toHaveBeenCalled();
  });
});

// A worker's copy of the runtime routes: one registry read per refresh interval, shared by concurrent calls, the
// last copy kept when a read fails (none but the config's before any read succeeded).
import {
  createRouteRegistryReader,
  routeRefreshMsFromEnvironment,
} from '../../../src/activities/route-registry-reader';
import type { RuntimeRoutes } from '../../../src/config/runtime-routes';

const version = (n: number): RuntimeRoutes => ({
  live: { version: n, changedAt: '2026-01-01T00:00:00.000Z' },
});

function fakeRegistry() {
  let nowMs = 1_000;
  let reads = 0;
  let next: () => Promise<RuntimeRoutes> = async () => version(1);
  const reader = createRouteRegistryReader({
    refreshMs: 2_000,
    now: () => nowMs,
    read: () => {
      reads += 1;
      return next();
    },
  });
  return {
    reader,
    get reads() {
      return reads;
    },
    advance: (ms: number) => (nowMs += ms),
    answer: (value: () => Promise<RuntimeRoutes>) => (next = value),
  };
}

test('calls within the refresh interval use the copy; the first call after it reads again', async () => {
  const registry = fakeRegistry();
  expect(await registry.reader.current()).toEqual(version(1));
  registry.answer(async () => version(2));
  registry.advance(1_999);
  expect(await registry.reader.current()).toEqual(version(1));
  expect(registry.reads).toBe(1);
  registry.advance(1);
  expect(await registry.reader.current()).toEqual(version(2));
  expect(registry.reads).toBe(2);
});

test('calls arriving while a read is under way share it', async () => {
  const registry = fakeRegistry();
  let release!: (routes: RuntimeRoutes) => void;
  registry.answer(() => new Promise((resolve) => (release = resolve)));
  const waiting = Promise.all([1, 2, 3].map(() => registry.reader.current()));
  release(version(4));
  expect(await waiting).toEqual([version(4), version(4), version(4)]);
  expect(registry.reads).toBe(1);
});

test('a failed read keeps the last copy until the next interval', async () => {
  const registry = fakeRegistry();
  expect(await registry.reader.current()).toEqual(version(1));
  registry.answer(async () => {
    throw new Error('registry unreachable');
  });
  registry.advance(2_000);
  expect(await registry.reader.current()).toEqual(version(1));
  registry.advance(1_000);
  expect(await registry.reader.current()).toEqual(version(1));
  // Read again only once another interval has passed since the failed read.
  expect(registry.reads).toBe(2);
  registry.answer(async () => version(5));
  registry.advance(1_000);
  // The call starting the read after a failure goes on with the copy; once the read is back, calls get it.
  expect(await registry.reader.current()).toEqual(version(1));
  expect(await registry.reader.current()).toEqual(version(5));
  expect(registry.reads).toBe(3);
});

test('a failed read with no copy yet gives no runtime routes for one interval instead of failing', async () => {
  const registry = fakeRegistry();
  registry.answer(async () => {
    throw new Error('registry unreachable');
  });
  // The config's routes alone: the call goes on rather than fail on the registry.
  expect(await registry.reader.current()).toEqual({});
  registry.advance(1_999);
  registry.answer(async () => version(6));
  expect(await registry.reader.current()).toEqual({});
  expect(registry.reads).toBe(1);
  registry.advance(1);
  // The registry is still failing as far as the reader knows: this call goes on with the empty copy while the
  // read runs, and the next one gets what it read.
  expect(await registry.reader.current()).toEqual({});
  expect(registry.reads).toBe(2);
  expect(await registry.reader.current()).toEqual(version(6));
  expect(registry.reads).toBe(2);
});

test('while the registry is failing, calls do not wait on the read retried each interval', async () => {
  const registry = fakeRegistry();
  expect(await registry.reader.current()).toEqual(version(1));
  registry.answer(async () => {
    throw new Error('registry unreachable');
  });
  registry.advance(2_000);
  expect(await registry.reader.current()).toEqual(version(1));
  // The next read hangs (a registry that does not answer): calls keep the last copy without waiting for it.
  registry.answer(() => new Promise<RuntimeRoutes>(() => {}));
  registry.advance(2_000);
  expect(await registry.reader.current()).toEqual(version(1));
  expect(await registry.reader.current()).toEqual(version(1));
  expect(registry.reads).toBe(3);
});

test('SWITCHYARD_ROUTE_REFRESH_MS: a whole number of milliseconds up to a minute, else refused naming it', () => {
  const saved = process.env.SWITCHYARD_ROUTE_REFRESH_MS;
  try {
    delete process.env.SWITCHYARD_ROUTE_REFRESH_MS;
    expect(routeRefreshMsFromEnvironment()).toBe(2_000);
    process.env.SWITCHYARD_ROUTE_REFRESH_MS = '0';
    expect(routeRefreshMsFromEnvironment()).toBe(0);
    process.env.SWITCHYARD_ROUTE_REFRESH_MS = '2s';
    expect(() => routeRefreshMsFromEnvironment()).toThrow(
      'SWITCHYARD_ROUTE_REFRESH_MS must be a whole number',
    );
  } finally {
    if (saved === undefined) delete process.env.SWITCHYARD_ROUTE_REFRESH_MS;
    else process.env.SWITCHYARD_ROUTE_REFRESH_MS = saved;
  }
});

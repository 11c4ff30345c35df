// The gateway's view of the routes: the config's with the runtime ones overlaid, one read per refresh interval
// shared by concurrent requests, and the last copy kept for an interval when a read fails.
import { parseConfig } from '../../../src/config/load-config';
import type { RuntimeRoutes } from '../../../src/config/runtime-routes';
import { createGatewayRoutes } from '../../../src/gateway/gateway-routes';
import { TEST_CONFIG } from '../cli/cli-test-io';

const config = parseConfig(TEST_CONFIG);
const changedAt = '2026-01-01T00:00:00.000Z';
/** `live` added, `cheap` hidden, `support` overridden to one target. */
const changed: RuntimeRoutes = {
  live: { version: 1, changedAt, spec: { targets: [{ provider: 'openai', model: 'gpt-4o-mini' }] } as never },
  cheap: { version: 1, changedAt },
  support: {
    version: 2,
    changedAt,
    spec: { targets: [{ provider: 'anthropic', model: 'claude-haiku-4-5' }] } as never,
  },
};

function fakeRegistry() {
  let nowMs = 1_000;
  const asked: number[] = [];
  let next: () => Promise<RuntimeRoutes> = async () => changed;
  const routes = createGatewayRoutes({
    config,
    refreshMs: 2_000,
    now: () => nowMs,
    read: (maxAgeMs) => {
      asked.push(maxAgeMs);
      return next();
    },
  });
  return {
    routes,
    asked,
    advance: (ms: number) => (nowMs += ms),
    answer: (value: () => Promise<RuntimeRoutes>) => (next = value),
  };
}

test('requests are checked against the config with the runtime routes overlaid', async () => {
  const { routes } = fakeRegistry();
  const current = await routes.current();
  expect(Object.keys(current.routes).sort()).toEqual(['live', 'support']);
  expect(current.routes.support!.targets).toMatchObject([
    { provider: 'anthropic', model: 'claude-haiku-4-5' },
  ]);
  // Defaults are filled in on a runtime spec, as the workers read it.
  expect(current.routes.live!.maxAttempts).toBe(config.routes.cheap!.maxAttempts);
  expect(current.defaultRoute).toBe('support');
  // One overlay per copy: the same config object while the copy is the same.
  expect(await routes.current()).toBe(current);
});

test('no runtime routes: the config as it is', async () => {
  const registry = fakeRegistry();
  registry.answer(async () => ({}));
  expect(await registry.routes.current()).toBe(config);
});

test('concurrent requests share one read, each asking for a copy at most the refresh interval old', async () => {
  const registry = fakeRegistry();
  let release!: (routes: RuntimeRoutes) => void;
  registry.answer(() => new Promise((resolve) => (release = resolve)));
  const pending = Promise.all([
    registry.routes.current(),
    registry.routes.current(),
    registry.routes.current(),
  ]);
  release(changed);
  const [first, second, third] = await pending;
  expect(second).toBe(first);
  expect(third).toBe(first);
  expect(registry.asked).toEqual([2_000]);
});

test('a failed read keeps the last copy for an interval, then reads again; before any copy, the config alone', async () => {
  const registry = fakeRegistry();
  registry.answer(async () => {
    throw new Error('registry unreachable');
  });
  expect(await registry.routes.current()).toBe(config);
  registry.advance(1_999);
  expect(await registry.routes.current()).toBe(config);
  expect(registry.asked).toHaveLength(1);

  registry.answer(async () => changed);
  registry.advance(1);
  const read = await registry.routes.current();
  expect(Object.keys(read.routes).sort()).toEqual(['live', 'support']);
  expect(registry.asked).toHaveLength(2);

  registry.answer(async () => {
    throw new Error('registry unreachable');
  });
  expect(await registry.routes.current()).toBe(read);
  registry.advance(500);
  expect(await registry.routes.current()).toBe(read);
  expect(registry.asked).toHaveLength(3);
});

// The reliability suite's config: the test providers plus a worker-kill route and budget. Test side.
import type { Config } from '../../src/config/config';
import { parseConfig } from '../../src/config/load-config';
import type { FakeProvider } from '../../src/fake-provider';
import { testConfig } from './test-config';

/** Route of the worker-kill test: a slow first target that a dead worker leaves hanging, then a quick one. */
export const WORKER_KILL_ROUTE = 'worker-kill';
/** Budget scope the worker-kill calls are charged to; declared in the config with {@link WORKER_KILL_LIMIT_USD}. */
export const WORKER_KILL_SCOPE = 'reliability-worker-kill';
export const WORKER_KILL_LIMIT_USD = 1;
/** Heartbeat timeout of the worker-kill route, in milliseconds: what notices the dead worker. */
export const WORKER_KILL_HEARTBEAT_TIMEOUT_MS = 2_000;
/** The first target's own timeout, in milliseconds: far longer than the heartbeat timeout, so it never fires. */
export const WORKER_KILL_TARGET_TIMEOUT_MS = 60_000;

export function reliabilityConfig(fake: Pick<FakeProvider, 'openaiBaseURL' | 'anthropicBaseURL'>): Config {
  const base = testConfig(fake as FakeProvider);
  return parseConfig({
    ...base,
    routes: {
      ...base.routes,
      [WORKER_KILL_ROUTE]: {
        targets: [
          { provider: 'openai', model: 'gpt-primary', timeoutMs: WORKER_KILL_TARGET_TIMEOUT_MS },
          { provider: 'anthropic', model: 'claude-primary', timeoutMs: 10_000 },
        ],
        heartbeatTimeoutMs: WORKER_KILL_HEARTBEAT_TIMEOUT_MS,
        // Every run loses one attempt on the first target; the breaker must not open and skip it in a later run.
        breaker: { failureThreshold: 1_000, cooldownMs: 30_000 },
      },
    },
    budgets: { [WORKER_KILL_SCOPE]: { limitUsd: WORKER_KILL_LIMIT_USD } },
  });
}

// An attempt its worker loses before it sends (a worker so loaded that the attempt does not start within the
// heartbeat timeout) is the worker's failure, not the provider's: it is recorded `worker_lost`, costs nothing,
// leaves the breaker untouched, is asked again of the same target, and, when the stalled worker wakes up, its
// attempt does not send. The stall is an activity interceptor that holds the call's first attempt before it runs,
// as an overloaded event loop does.
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { setTimeout as delay } from 'node:timers/promises';
import { createProviderRegistry } from '../../src/activities/provider-registry';
import { SwitchyardClient } from '../../src/client/switchyard-client';
import type { Config } from '../../src/config/config';
import { parseConfig } from '../../src/config/load-config';
import { startFakeProvider, type FakeProvider } from '../../src/fake-provider';
import type { RoutedCallResult } from '../../src/routing/routing-record';
import { createSwitchyardWorker } from '../../src/worker';
import {
  bundleSwitchyardWorkflows,
  connectForTest,
  uniqueName,
  type TemporalTestContext,
} from '../support/temporal';
import { TEST_API_KEYS, TEST_PRICES } from '../support/test-config';
import type { WorkflowBundlePath } from '@temporalio/worker';

/** Longer than the route's heartbeat timeout, so the server gives the stalled attempt up. */
const STALL_MS = 4_000;
const HEARTBEAT_TIMEOUT_MS = 1_000;

let temporal: TemporalTestContext;
let fake: FakeProvider;
let bundle: WorkflowBundlePath;
let config: Config;
const model = uniqueName('gpt-stalled');
const scope = uniqueName('lost-scope');
/** One queue for both cases: the ledger and breaker entities answer queries only while a worker polls it. */
const taskQueue = uniqueName('switchyard-lost');

beforeAll(async () => {
  [temporal, fake, bundle] = await Promise.all([
    connectForTest(),
    startFakeProvider(),
    bundleSwitchyardWorkflows(),
  ]);
  config = parseConfig({
    providers: {
      openai: {
        kind: 'openai',
        apiKeyEnv: 'OPENAI_TEST_KEY',
        baseURL: fake.openaiBaseURL,
        models: { [model]: TEST_PRICES },
      },
    },
    routes: {
      // One target, and one counted failure opens its breaker: a lost attempt taken for the provider's
      // failure would fail the call and open the breaker of a provider that never failed.
      single: {
        targets: [{ provider: 'openai', model, timeoutMs: 10_000 }],
        heartbeatTimeoutMs: HEARTBEAT_TIMEOUT_MS,
        breaker: { failureThreshold: 1, cooldownMs: 600_000 },
      },
    },
    budgets: { [scope]: { limitUsd: 1 } },
    defaultRoute: 'single',
  });
});

afterAll(async () => {
  await fake?.close();
  await temporal?.close();
});

/** Holds the first attempt of each call for {@link STALL_MS} before it runs, as a stalled worker would. */
function stallFirstAttemptOfEachCall(): ActivityInterceptorsFactory {
  const stalled = new Set<string>();
  return (context) => ({
    inbound: {
      async execute(input, next) {
        const call = context.info.workflowExecution?.workflowId ?? '';
        if (context.info.activityType === 'attemptTarget' && !stalled.has(call)) {
          stalled.add(call);
          await delay(STALL_MS);
        }
        return next(input);
      },
    },
  });
}

test.each([
  ['with a budget scope', scope],
  ['without one', undefined],
])(
  'an attempt lost before it sent, %s: worker_lost, free, the breaker untouched, asked again, never sent',
  async (_name, budget) => {
    const worker = await createSwitchyardWorker({
      config,
      connection: temporal.nativeConnection,
      taskQueue,
      workflowBundle: bundle,
      providers: createProviderRegistry(config, { ...TEST_API_KEYS }),
      workerOptions: { interceptors: { activity: [stallFirstAttemptOfEachCall()] } },
    });
    const switchyard = new SwitchyardClient({ client: temporal.client, taskQueue, config });
    const before = fake.requestsFor(model).length;
    await worker.runUntil(
      (async () => {
        const ledgerBefore = await switchyard.ledgers.get(scope);
        const handle = await switchyard.start({
          route: 'single',
          request: { messages: [{ role: 'user', content: 'hello' }], maxOutputTokens: 32 },
          ...(budget ? { budget } : {}),
        });
        const result: RoutedCallResult = await handle.result();
        // The stalled attempt wakes up after the call ended: it must find itself given up and send nothing.
        await delay(STALL_MS + 1_500);

        const [lost, answered] = result.record.attempts;
        expect(result.record.attempts).toHaveLength(2);
        expect(lost).toMatchObject({
          outcome: 'failed',
          failureClass: 'worker_lost',
          targetIndex: 0,
          costNanoUsd: 0,
          costKnown: true,
        });
        expect(answered).toMatchObject({ outcome: 'succeeded', targetIndex: 0 });
        // The provider was asked once: by the attempt that answered, not by the stalled one after it woke.
        expect(fake.requestsFor(model).length - before).toBe(1);
        // Nothing reached the breaker: the target's breaker never opened, and holds no failure.
        const breaker = await switchyard.breakers.get(`openai/${model}`);
        expect(breaker.state.status).toBe('closed');
        expect(breaker.state.consecutiveFailures).toBe(0);
        if (budget) {
          // The ledger and the record agree: it charged the answer, and holds nothing for the lost attempt.
          const ledger = (await switchyard.ledgers.get(scope))!;
          expect(ledger.spentNanoUsd - (ledgerBefore?.spentNanoUsd ?? 0)).toBe(
            result.record.totalCostNanoUsd,
          );
          expect(ledger.reservedNanoUsd).toBe(0);
          expect(ledger.openReservations).toHaveLength(0);
        }
      })(),
    );
  },
);

// A call whose admission outlives its deadline ends DeadlineExceeded with nothing sent. Before the fix its attempt
// got a negative timeout: Temporal refused it, the workflow task failed, and the retried task restarted the
// deadline's clock, so the call ran on (and succeeded) long after its deadline.
import { WorkflowNotFoundError } from '@temporalio/client';
import type { WorkflowBundlePath } from '@temporalio/worker';
import { setTimeout as delay } from 'node:timers/promises';
import { createProviderRegistry } from '../../src/activities/provider-registry';
import { RoutedCallError } from '../../src/client/errors';
import { SwitchyardClient } from '../../src/client/switchyard-client';
import { startFakeProvider, type FakeProvider } from '../../src/fake-provider';
import { breakerWorkflowId } from '../../src/workflows/breaker/definitions';
import { createSwitchyardWorker } from '../../src/worker';
import { eventually } from '../support/eventually';
import {
  bundleSwitchyardWorkflows,
  connectForTest,
  uniqueName,
  type TemporalTestContext,
} from '../support/temporal';
import { TEST_API_KEYS, testConfig } from '../support/test-config';

const DEADLINE_MS = 1_500;
/** The ledger answers this long after the call started: well past the deadline and its attempt grace. */
const LEDGER_LATE_BY_MS = 4_000;
/** Only bounds a call that never ends; a correct one ends within seconds of the ledger's answer. */
const STUCK_AFTER_MS = 45_000;

let temporal: TemporalTestContext;
let fake: FakeProvider;
let bundle: WorkflowBundlePath;

beforeAll(async () => {
  [temporal, fake, bundle] = await Promise.all([
    connectForTest(),
    startFakeProvider(),
    bundleSwitchyardWorkflows(),
  ]);
});

afterAll(async () => {
  await fake?.close();
  await temporal?.close();
});

test('a reservation granted after the deadline is released and the call ends DeadlineExceeded, sending nothing', async () => {
  const config = testConfig(fake);
  try {
    await temporal.client.workflow
      .getHandle(breakerWorkflowId('openai', 'gpt-secondary'))
      .terminate('test isolation');
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
  }
  const taskQueue = uniqueName('switchyard-test');
  const worker = await createSwitchyardWorker({
    config,
    connection: temporal.nativeConnection,
    taskQueue,
    workflowBundle: bundle,
    providers: createProviderRegistry(config, { ...TEST_API_KEYS }),
  });
  const [callWorker, entityWorker] = worker.workers;
  const switchyard = new SwitchyardClient({ client: temporal.client, taskQueue, config });
  const budget = uniqueName('team');

  // Only the routed-call worker runs at first: the ledger cannot answer the reservation, as if it were very busy.
  const callsRunning = callWorker!.run();
  let entitiesRunning: Promise<void> | undefined;
  try {
    const handle = await switchyard.start({
      route: {
        targets: [{ provider: 'openai', model: 'gpt-secondary', timeoutMs: 5_000 }],
        deadlineMs: DEADLINE_MS,
      },
      request: { messages: [{ role: 'user', content: 'Say hello' }], maxOutputTokens: 32 },
      budget,
    });
    await delay(LEDGER_LATE_BY_MS);
    entitiesRunning = entityWorker!.run();

    const stuckTimer = new AbortController();
    const outcome = await Promise.race([
      handle.result().then(
        () => 'succeeded',
        (error: unknown) => error,
      ),
      delay(STUCK_AFTER_MS, 'stuck', { signal: stuckTimer.signal }).catch(() => 'timer stopped'),
    ]);
    // The losing timer must not keep the test process alive.
    stuckTimer.abort();
    expect(outcome).toBeInstanceOf(RoutedCallError);
    const error = outcome as RoutedCallError;
    expect(error.type).toBe('DeadlineExceeded');
    expect(error.record?.attempts ?? []).toEqual([]);
    expect(fake.requestsFor('gpt-secondary')).toHaveLength(0);
    // The late grant was given back, not left to expire or charged.
    const snapshot = await eventually(
      'reservation released',
      async () => (await switchyard.ledgers.get(budget))!,
      (ledger) => ledger.openReservations.length === 0,
      { timeoutMs: 30_000 },
    );
    expect(snapshot.spentNanoUsd).toBe(0);
    expect(snapshot.totals).toMatchObject({ granted: 1, released: 1, settled: 0, expired: 0 });
  } finally {
    callWorker!.shutdown();
    if (entitiesRunning) entityWorker!.shutdown();
    await Promise.allSettled([callsRunning, ...(entitiesRunning ? [entitiesRunning] : [])]);
  }
});

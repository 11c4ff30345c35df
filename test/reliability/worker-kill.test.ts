// A worker process SIGKILLed while its attempt is out at the provider: another worker takes the call over, the
// heartbeat timeout notices the lost attempt, the call fails over, and the ledger charges the lost bound once.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import { WorkflowNotFoundError } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { WorkflowBundlePath } from '@temporalio/worker';
import { createProviderRegistry } from '../../src/activities/provider-registry';
import { SwitchyardClient } from '../../src/client/switchyard-client';
import type { Config } from '../../src/config/config';
import type { Prices } from '../../src/config/resolved-route';
import { GenerationRequestSchema } from '../../src/config/request';
import { startFakeProvider, type FakeBilledUsage, type FakeProvider } from '../../src/fake-provider';
import type { LedgerSnapshot } from '../../src/routing/ledger-snapshot';
import { estimateInputTokens } from '../../src/routing/estimate-tokens';
import type { RoutingRecord } from '../../src/routing/routing-record';
import { createSwitchyardWorker, type SwitchyardWorker } from '../../src/worker';
import { breakerWorkflowId, stateQuery } from '../../src/workflows/breaker/definitions';
import { ledgerWorkflowId } from '../../src/workflows/ledger/ledger-definitions';
import { eventually } from '../support/eventually';
import {
  reliabilityConfig,
  WORKER_KILL_HEARTBEAT_TIMEOUT_MS,
  WORKER_KILL_ROUTE,
  WORKER_KILL_SCOPE,
  WORKER_KILL_TARGET_TIMEOUT_MS,
} from '../support/reliability-config';
import {
  bundleSwitchyardWorkflows,
  connectForTest,
  uniqueName,
  type TemporalTestContext,
} from '../support/temporal';
import { TEST_API_KEYS } from '../support/test-config';
import { startWorkerProcess } from '../support/worker-process';

const RUNS = Number(process.env.SWITCHYARD_KILL_RUNS ?? 20);
/**
 * The doomed worker's sticky-queue timeout, in milliseconds. After the kill, the call's next workflow task waits
 * this long on the dead worker's sticky queue before another worker may take it (production default 10 s);
 * shortened so that 20 runs stay cheap. It has no part in noticing the lost attempt: the heartbeat timeout does.
 */
const STICKY_TIMEOUT_MS = 1_000;
/**
 * Generous bound from the kill to the server timing the attempt out, in milliseconds: the heartbeat timeout plus
 * a margin for a loaded machine, and still far inside the attempt's own 60 s timeout. A correctness bound.
 */
const NOTICED_WITHIN_MS = WORKER_KILL_HEARTBEAT_TIMEOUT_MS + 30_000;

/** A run whose call has not ended after this long, in milliseconds, did not hold (and the next run goes on). */
const RUN_TIMEOUT_MS = 120_000;

const request = { messages: [{ role: 'user' as const, content: 'Say hello' }], maxOutputTokens: 64 };
/** What the second target bills for the served answer. */
const servedUsage = { inputTokens: 9, cachedInputTokens: 2, outputTokens: 13 };

let context: TemporalTestContext;
let fake: FakeProvider;
let config: Config;
let bundle: WorkflowBundlePath;
/**
 * The worker that lives through every run: it hosts the breaker and ledger entities. Each run's call is taken
 * over by a second worker started on the run's queue after the kill, so until the kill the doomed process is
 * the only worker that can take the call or its attempt.
 */
let survivor: SwitchyardWorker;
let survivorRunning: Promise<void>;
let switchyard: SwitchyardClient;
/** What the warm-up call cost, in nano-USD. */
let warmUpCost: number;
const children = new Set<ChildProcess>();

// Computed here from the config's prices, not with the product's money functions.
function nanoUsdPerToken(usdPerMillion: number): number {
  return usdPerMillion * 1_000;
}
function pricesOf(provider: string, model: string): Prices {
  const prices = config.providers[provider]!.models[model]!;
  // A model without a cached-input price bills cached tokens at the input price.
  return {
    ...prices,
    cachedInputUsdPerMillion: prices.cachedInputUsdPerMillion ?? prices.inputUsdPerMillion,
  };
}
function lostAttemptBound(): number {
  const prices = pricesOf('openai', 'gpt-primary');
  const inputTokens = estimateInputTokens(GenerationRequestSchema.parse(request));
  return Math.ceil(
    inputTokens * nanoUsdPerToken(prices.inputUsdPerMillion) +
      request.maxOutputTokens * nanoUsdPerToken(prices.outputUsdPerMillion),
  );
}
function billedCost(billed: FakeBilledUsage): number {
  const prices = pricesOf('anthropic', 'claude-primary');
  return Math.ceil(
    billed.inputTokens * nanoUsdPerToken(prices.inputUsdPerMillion) +
      billed.cachedInputTokens * nanoUsdPerToken(prices.cachedInputUsdPerMillion) +
      billed.outputTokens * nanoUsdPerToken(prices.outputUsdPerMillion),
  );
}

async function terminateIfRunning(workflowId: string): Promise<void> {
  try {
    await context.client.workflow.getHandle(workflowId).terminate('reliability test isolation');
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
  }
}

beforeAll(async () => {
  [context, fake, bundle] = await Promise.all([
    connectForTest(),
    startFakeProvider(),
    bundleSwitchyardWorkflows(),
  ]);
  config = reliabilityConfig(fake);

  // Entities are shared per server: start from fresh ones, hosted by this file's surviving worker. Once they run
  // there, the doomed workers' own entity queues stay empty (update- and signal-with-start join a running entity
  // where it is), so a run's queues can be abandoned after its kill without stranding a breaker or the ledger.
  const models = Object.entries(config.providers).flatMap(([provider, { models }]) =>
    Object.keys(models).map((model) => breakerWorkflowId(provider, model)),
  );
  await Promise.all([...models, ledgerWorkflowId(WORKER_KILL_SCOPE)].map(terminateIfRunning));
  const taskQueue = uniqueName('reliability-kill-survivor');
  survivor = await createSwitchyardWorker({
    config,
    connection: context.nativeConnection,
    taskQueue,
    workflowBundle: bundle,
    providers: createProviderRegistry(config, { ...TEST_API_KEYS }),
  });
  survivorRunning = survivor.run();
  switchyard = new SwitchyardClient({ client: context.client, taskQueue, config });

  // A live system before the first kill: the ledger and the first target's breaker exist on the survivor's queue.
  fake.script('gpt-primary', { kind: 'error', error: 'server_error' });
  const warmUp = await switchyard.generate({ route: WORKER_KILL_ROUTE, request, budget: WORKER_KILL_SCOPE });
  expect(warmUp.record.servedBy?.model).toBe('claude-primary');
  warmUpCost = warmUp.record.totalCostNanoUsd;
  await eventually('the first breaker to exist', breakerCounts, (counts) => counts.countedFailures === 1);
});

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  survivor?.shutdown();
  await survivorRunning;
  await fake?.close();
  await context?.close();
});

/** A worker process polling a queue of its own, so that nothing but it can take a call started there. */
interface DoomedWorker {
  readonly taskQueue: string;
  readonly child: ChildProcess;
}

/** Starts the real worker in its own process on a fresh queue and waits until it polls. */
async function startDoomedWorker(): Promise<DoomedWorker> {
  const taskQueue = uniqueName('reliability-kill-run');
  const child = await startWorkerProcess({
    script: 'test/support/reliability-worker-process.ts',
    environment: {
      RELIABILITY_TASK_QUEUE: taskQueue,
      RELIABILITY_FAKE_URL: fake.url,
      // The run's shared bundle file: webpack in every child would cost seconds per run.
      RELIABILITY_BUNDLE_PATH: bundle.codePath,
      RELIABILITY_STICKY_TIMEOUT_MS: String(STICKY_TIMEOUT_MS),
    },
    onSpawn: (spawned) => children.add(spawned),
  });
  return { taskQueue, child };
}

async function kill(child: ChildProcess): Promise<void> {
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
  children.delete(child);
}

async function breakerCounts() {
  const snapshot = await context.client.workflow
    .getHandle(breakerWorkflowId('openai', 'gpt-primary'))
    .query(stateQuery);
  return { ...snapshot.state.counts, status: snapshot.state.status, transitions: snapshot.state.transitions };
}

async function ledger(): Promise<LedgerSnapshot> {
  return (await switchyard.ledgers.get(WORKER_KILL_SCOPE))!;
}

function epochMs(time: { seconds?: unknown; nanos?: number | null } | null | undefined): number {
  return Number(time?.seconds ?? 0) * 1_000 + Math.floor((time?.nanos ?? 0) / 1_000_000);
}

function within<T>(timeoutMs: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

interface RunReport {
  readonly noticedAfterMs: number;
  /** What the run should have added to the ledger: the lost bound plus the served answer's cost, in nano-USD. */
  readonly chargedNanoUsd: number;
}

/** One run: a doomed worker takes the call and its first attempt, dies, and a fresh worker finishes it. */
async function killDuringAttempt({ taskQueue, child: doomed }: DoomedWorker): Promise<RunReport> {
  fake.reset();
  fake.script('gpt-primary', { kind: 'hang' });
  fake.script('claude-primary', {
    kind: 'answer',
    text: 'served after the kill',
    usage: servedUsage,
  });
  const ledgerBefore = await ledger();
  const breakerBefore = await breakerCounts();

  // Until the kill, the doomed process is the only worker on its queue: the call and its attempt are its.
  const calls = new SwitchyardClient({ client: context.client, taskQueue, config });
  const handle = await calls.start({ route: WORKER_KILL_ROUTE, request, budget: WORKER_KILL_SCOPE });
  await eventually(
    'the first attempt to reach the provider',
    async () => fake.requestsFor('gpt-primary').length,
    (count) => count === 1,
    { intervalMs: 50 },
  );
  const doomedPid = doomed.pid!;
  const killedAtMs = Date.now();
  await kill(doomed);

  const takeover = await createSwitchyardWorker({
    config,
    connection: context.nativeConnection,
    taskQueue,
    workflowBundle: bundle,
    providers: createProviderRegistry(config, { ...TEST_API_KEYS }),
  });
  const { record } = await takeover.runUntil(within(RUN_TIMEOUT_MS, 'the call to end', handle.result()));

  const bound = lostAttemptBound();
  const served = billedCost(fake.billed('claude-primary'));
  expectRecord(record, bound, served);
  const noticedAfterMs = await expectHistory(handle.workflowId, doomedPid, killedAtMs);

  // The provider saw exactly the lost request and the served one.
  expect(fake.requests.map((received) => [received.model, received.scenario])).toEqual([
    ['gpt-primary', 'hang'],
    ['claude-primary', 'answer'],
  ]);
  expect(fake.billed('claude-primary')).toEqual({ answers: 1, ...servedUsage });

  // The ledger charged the lost bound and the real cost, each once, and holds nothing back.
  // A killed worker's allowance goes back when its lease ends, a few seconds on.
  const ledgerAfter = await eventually('the ledger to settle both attempts', ledger, (snapshot) => {
    return snapshot.totals.settled >= ledgerBefore.totals.settled + 2 && snapshot.reservedNanoUsd === 0;
  });
  expect(ledgerAfter.spentNanoUsd - ledgerBefore.spentNanoUsd).toBe(bound + served);
  expect(ledgerAfter.reservedNanoUsd).toBe(0);
  expect(ledgerAfter.openReservations).toEqual([]);
  expect(ledgerAfter.totals).toEqual({
    ...ledgerBefore.totals,
    granted: ledgerBefore.totals.granted + 2,
    settled: ledgerBefore.totals.settled + 2,
  });
  expect(ledgerAfter.limitNanoUsd).toBe(ledgerBefore.limitNanoUsd);

  // The breaker of the first target counted the lost attempt once; the second target never reached one.
  const breakerAfter = await eventually('the breaker to count the lost attempt', breakerCounts, (counts) => {
    return counts.countedFailures > breakerBefore.countedFailures;
  });
  expect(breakerAfter).toEqual({ ...breakerBefore, countedFailures: breakerBefore.countedFailures + 1 });
  return { noticedAfterMs, chargedNanoUsd: bound + served };
}

function expectRecord(record: RoutingRecord, bound: number, served: number): void {
  expect(record.attempts).toHaveLength(2);
  expect(record.attempts[0]).toMatchObject({
    attempt: 1,
    provider: 'openai',
    model: 'gpt-primary',
    outcome: 'failed',
    failureClass: 'timeout',
    message: 'attempt lost: no heartbeat from its worker',
    costNanoUsd: bound,
    costKnown: false,
  });
  expect(record.attempts[1]).toMatchObject({
    attempt: 2,
    provider: 'anthropic',
    model: 'claude-primary',
    outcome: 'succeeded',
    costNanoUsd: served,
    costKnown: true,
  });
  expect(record.servedBy).toEqual({ targetIndex: 1, provider: 'anthropic', model: 'claude-primary' });
  expect(record.totalCostNanoUsd).toBe(bound + served);
}

/**
 * The history shows the structure: the lost attempt ran in the killed process and ended by its HEARTBEAT
 * timeout after the kill (not by its 60 s start-to-close), and the second attempt ran elsewhere. Returns how
 * long after the kill the server noticed, in milliseconds.
 */
async function expectHistory(workflowId: string, doomedPid: number, killedAtMs: number): Promise<number> {
  const events = (await context.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const scheduled = events.filter((event) => event.activityTaskScheduledEventAttributes);
  expect(scheduled.map((event) => event.activityTaskScheduledEventAttributes!.activityType?.name)).toEqual([
    'attemptTarget',
    'attemptTarget',
  ]);
  const lostId = scheduled[0]!.eventId!.toString();
  const startedBy = (scheduledId: string) =>
    events.find(
      (event) => event.activityTaskStartedEventAttributes?.scheduledEventId?.toString() === scheduledId,
    )?.activityTaskStartedEventAttributes?.identity;
  expect(startedBy(lostId)).toMatch(new RegExp(`^${doomedPid}@`));
  expect(startedBy(scheduled[1]!.eventId!.toString())).not.toMatch(new RegExp(`^${doomedPid}@`));

  const timedOut = events.filter((event) => event.activityTaskTimedOutEventAttributes);
  expect(timedOut).toHaveLength(1);
  const attributes = timedOut[0]!.activityTaskTimedOutEventAttributes!;
  expect(attributes.scheduledEventId?.toString()).toBe(lostId);
  expect(attributes.failure?.timeoutFailureInfo?.timeoutType).toBe(
    temporal.api.enums.v1.TimeoutType.TIMEOUT_TYPE_HEARTBEAT,
  );
  const noticedAfterMs = epochMs(timedOut[0]!.eventTime) - killedAtMs;
  expect(noticedAfterMs).toBeGreaterThan(0);
  expect(noticedAfterMs).toBeLessThan(NOTICED_WITHIN_MS);
  expect(NOTICED_WITHIN_MS).toBeLessThan(WORKER_KILL_TARGET_TIMEOUT_MS);
  expect(events.some((event) => event.workflowExecutionCompletedEventAttributes)).toBe(true);
  return noticedAfterMs;
}

test(
  `a worker killed mid-attempt, ${RUNS} times: failover by heartbeat timeout, the lost bound charged once`,
  async () => {
    const failures: string[] = [];
    const noticed: number[] = [];
    let charged = 0;
    // A worker process takes seconds to load: the next run's starts while this run's call is under way.
    let next: Promise<DoomedWorker> | undefined = startDoomedWorker();
    for (let run = 1; run <= RUNS; run += 1) {
      const current: Promise<DoomedWorker> = next!;
      next = run < RUNS ? startDoomedWorker() : undefined;
      // A failed start is reported by its own run, not as an unhandled rejection meanwhile.
      next?.catch(() => undefined);
      try {
        const report = await killDuringAttempt(await current);
        noticed.push(report.noticedAfterMs);
        charged += report.chargedNanoUsd;
      } catch (error) {
        failures.push(`run ${run}: ${error instanceof Error ? error.message : String(error)}`);
        // Let a stuck call's leftovers drain before the next run reads the shared ledger.
        await delay(WORKER_KILL_HEARTBEAT_TIMEOUT_MS);
      }
    }
    const held = RUNS - failures.length;
    noticed.sort((a, b) => a - b);
    const median = noticed.length ? noticed[Math.floor(noticed.length / 2)] : undefined;
    console.log(
      `[reliability] worker-kill: ${held}/${RUNS} runs held (heartbeat timeout ${WORKER_KILL_HEARTBEAT_TIMEOUT_MS} ms; ` +
        `lost attempt timed out a median ${median ?? '-'} ms after the kill)`,
    );
    expect(failures).toEqual([]);
    expect(held).toBe(RUNS);

    // Across the whole file: every lost bound and every served answer charged once, nothing open.
    const final = await eventually(
      'the ledger to hold nothing',
      ledger,
      (snapshot) => snapshot.reservedNanoUsd === 0,
    );
    expect(final.spentNanoUsd).toBe(warmUpCost + charged);
    expect(final.openReservations).toEqual([]);
    expect(final.totals.expired).toBe(0);
  },
  RUNS * (RUN_TIMEOUT_MS + 30_000),
);

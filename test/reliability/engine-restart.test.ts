// The engine stopped and restarted on its SQLite file while calls, an open breaker and a ledger are live: every
// call ends, the breaker is as it was, and the ledger charged every attempt once across the restart.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type WorkflowBundlePath } from '@temporalio/worker';
import { createProviderRegistry } from '../../src/activities/provider-registry';
import { RoutedCallError } from '../../src/client/errors';
import type { RoutedCallHandle } from '../../src/client/switchyard-client';
import { SwitchyardClient } from '../../src/client/switchyard-client';
import type { Config } from '../../src/config/config';
import { parseConfig } from '../../src/config/load-config';
import { startDevServer, type DevServer } from '../../src/engine';
import { freePort } from '../../src/engine/free-port';
import { startFakeProvider, type FakeBilledUsage, type FakeProvider } from '../../src/fake-provider';
import type { LedgerSnapshot } from '../../src/routing/ledger-snapshot';
import type { RoutingRecord } from '../../src/routing/routing-record';
import { createSwitchyardWorker, type SwitchyardWorker } from '../../src/worker';
import { breakerWorkflowId, stateQuery } from '../../src/workflows/breaker/definitions';
import { eventually } from '../support/eventually';
import { bundleSwitchyardWorkflows, uniqueName } from '../support/temporal';
import { fakeProviders, TEST_API_KEYS, TEST_PRICES as PRICES } from '../support/test-config';

const SCOPE = 'restart-team';
const request = { messages: [{ role: 'user' as const, content: 'Say hello' }], maxOutputTokens: 64 };
const usage = { inputTokens: 9, cachedInputTokens: 2, outputTokens: 13 };
/** How long the fake holds each answer of the held calls, in milliseconds: they are out when the engine stops. */
const HELD_DELAY_MS = 3_000;
/** The backoff call's Retry-After, in milliseconds (the walk's longest wait): its timer spans the stop. */
const RETRY_AFTER_MS = 10_000;
const HELD_CALLS = 3;
/** Cooldown of the open breaker, in milliseconds: far beyond the test, so nothing may legitimately move it. */
const LONG_COOLDOWN_MS = 600_000;

function restartConfig(fake: FakeProvider): Config {
  // Breakers of the live calls never open (threshold 1000) and share the open breaker's cooldown.
  const quiet = { failureThreshold: 1_000, cooldownMs: LONG_COOLDOWN_MS };
  return parseConfig({
    providers: fakeProviders(fake, {
      openai: ['open-model', 'held-model', 'backoff-model', 'patient-model'],
      anthropic: ['fallback-model'],
    }),
    routes: {
      'open-it': {
        targets: [{ provider: 'openai', model: 'open-model', timeoutMs: 5_000 }],
        breaker: { failureThreshold: 1, cooldownMs: LONG_COOLDOWN_MS },
      },
      held: {
        targets: [
          { provider: 'openai', model: 'open-model', timeoutMs: 5_000 },
          { provider: 'openai', model: 'held-model', timeoutMs: 30_000 },
          { provider: 'anthropic', model: 'fallback-model', timeoutMs: 10_000 },
        ],
        // The open breaker's own threshold: each route judges the shared counts by its own policy, so a route
        // with a higher one would still call the open target.
        breaker: { failureThreshold: 1, cooldownMs: LONG_COOLDOWN_MS },
      },
      backoff: {
        targets: [{ provider: 'openai', model: 'backoff-model', timeoutMs: 10_000, retries: 1 }],
        breaker: quiet,
      },
      patient: {
        targets: [{ provider: 'openai', model: 'patient-model', timeoutMs: 5_000 }],
        breaker: quiet,
      },
    },
    budgets: { [SCOPE]: { limitUsd: 1 } },
  });
}

let fake: FakeProvider;
let bundle: WorkflowBundlePath;
let directory: string;
beforeAll(async () => {
  // While the engine is down the worker's native client retries and warns on every call: expected here.
  Runtime.install({
    logger: new DefaultLogger('ERROR'),
    telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } },
  });
  [fake, bundle] = await Promise.all([startFakeProvider(), bundleSwitchyardWorkflows()]);
  directory = mkdtempSync(path.join(tmpdir(), 'switchyard-restart-'));
});
afterAll(async () => {
  await fake?.close();
  if (directory) rmSync(directory, { recursive: true, force: true });
});

/** An engine on its own port and SQLite file, restartable in place. */
class Engine {
  private server: DevServer | undefined;
  private constructor(
    readonly dbFilename: string,
    readonly port: number,
  ) {}

  static async start(name: string): Promise<Engine> {
    const engine = new Engine(path.join(directory, `${name}.db`), await freePort());
    await engine.restart();
    return engine;
  }

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  async restart(): Promise<void> {
    this.server = await startDevServer({ headless: true, port: this.port, dbFilename: this.dbFilename });
  }

  /** Stops the engine: SIGTERM and a wait for it to exit (`clean`), or SIGKILL (`kill`). */
  async stop(how: 'clean' | 'kill'): Promise<void> {
    const server = this.server!;
    if (how === 'clean') return server.stop();
    const exited = new Promise((resolve) => server.process.once('exit', resolve));
    server.process.kill('SIGKILL');
    await exited;
  }
}

interface LiveCall {
  readonly kind: 'opening' | 'held' | 'backoff' | 'patient';
  readonly handle: RoutedCallHandle;
}

type Ended = { readonly kind: LiveCall['kind']; readonly type: string; readonly record: RoutingRecord };

async function ended(call: LiveCall): Promise<Ended> {
  try {
    const { record } = await call.handle.result();
    return { kind: call.kind, type: 'succeeded', record };
  } catch (error) {
    if (error instanceof RoutedCallError && error.record)
      return { kind: call.kind, type: error.type, record: error.record };
    throw error;
  }
}

/** What the fake billed, priced by hand from {@link PRICES} (nano-USD per token = USD per million × 1000). */
function costOfUsage(tally: FakeBilledUsage): number {
  return Math.ceil(
    tally.inputTokens * PRICES.inputUsdPerMillion * 1_000 +
      tally.cachedInputTokens * PRICES.cachedInputUsdPerMillion * 1_000 +
      tally.outputTokens * PRICES.outputUsdPerMillion * 1_000,
  );
}

function costOf(records: readonly RoutingRecord[]): number {
  return records.reduce((sum, record) => sum + record.totalCostNanoUsd, 0);
}

/** Requests each model should have received according to the records: one per attempt that was not a skip. */
function requestsByModel(records: readonly RoutingRecord[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const attempt of records.flatMap((record) => record.attempts)) {
    if (attempt.outcome === 'skipped') continue;
    counts[attempt.model] = (counts[attempt.model] ?? 0) + 1;
  }
  return counts;
}

/** Every call's end, or a failure naming what was awaited when they take longer than `timeoutMs`. */
function within(timeoutMs: number, what: () => string, calls: readonly LiveCall[]): Promise<Ended[]> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what()}: not within ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([Promise.all(calls.map(ended)), expired]).finally(() => clearTimeout(timer));
}

async function restartScenario(how: 'clean' | 'kill'): Promise<void> {
  fake.reset();
  const config = restartConfig(fake);
  const engine = await Engine.start(`engine-${how}`);
  const connection = await Connection.connect({ address: engine.address });
  const client = new Client({ connection });
  const nativeConnection = await NativeConnection.connect({ address: engine.address });
  const taskQueue = uniqueName('restart');
  const worker: SwitchyardWorker = await createSwitchyardWorker({
    config,
    connection: nativeConnection,
    taskQueue,
    workflowBundle: bundle,
    providers: createProviderRegistry(config, { ...TEST_API_KEYS }),
  });
  let workerError: unknown;
  const workerRunning = worker.run().catch((error: unknown) => {
    workerError = error;
  });
  const switchyard = new SwitchyardClient({ client, taskQueue, config });
  const openBreaker = () =>
    client.workflow.getHandle(breakerWorkflowId('openai', 'open-model')).query(stateQuery);
  const ledger = async (): Promise<LedgerSnapshot> => (await switchyard.ledgers.get(SCOPE))!;

  try {
    // Open one breaker with a failed call.
    fake.script('open-model', { kind: 'error', error: 'server_error' });
    const opening = await switchyard.start({ route: 'open-it', request, budget: SCOPE });
    const openingEnded = await ended({ kind: 'opening', handle: opening });
    expect(openingEnded.type).toBe('AllTargetsFailed');
    await eventually('the breaker to open', openBreaker, (snapshot) => snapshot.state.status === 'open');

    // Live calls: held at the provider, waiting out a Retry-After, waiting out an outage with patience.
    fake.scriptAlways('held-model', { kind: 'answer', text: 'held', usage, delayMs: HELD_DELAY_MS });
    fake.scriptAlways('fallback-model', { kind: 'answer', text: 'fallback', usage });
    fake.script('backoff-model', { kind: 'error', error: 'rate_limited', retryAfterMs: RETRY_AFTER_MS });
    fake.scriptAlways('backoff-model', { kind: 'answer', text: 'after backoff', usage });
    fake.outage('patient-model');
    fake.scriptAlways('patient-model', { kind: 'answer', text: 'patient', usage });
    const calls: LiveCall[] = [
      ...(await Promise.all(
        Array.from({ length: HELD_CALLS }, async () => ({
          kind: 'held' as const,
          handle: await switchyard.start({ route: 'held', request, budget: SCOPE }),
        })),
      )),
      { kind: 'backoff', handle: await switchyard.start({ route: 'backoff', request, budget: SCOPE }) },
      {
        kind: 'patient',
        handle: await switchyard.start({ route: 'patient', request, budget: SCOPE, patienceMs: 180_000 }),
      },
    ];
    await eventually(
      'every live call to be out at the provider or waiting',
      async () => ({
        held: fake.requestsFor('held-model').length,
        backoff: fake.counters('backoff-model').failed,
        patient: fake.requestsFor('patient-model').length,
      }),
      (seen) => seen.held === HELD_CALLS && seen.backoff === 1 && seen.patient >= 1,
      { intervalMs: 50 },
    );
    const breakerBefore = await openBreaker();
    const ledgerBefore = await ledger();
    const stoppedAt = Date.now();
    await engine.stop(how);
    fake.recover('patient-model');
    await engine.restart();
    const downtimeMs = Date.now() - stoppedAt;

    // Once the worker answers again, the breaker reads exactly as before and the ledger lost nothing.
    const breakerAfter = await eventually('the breaker to answer after the restart', openBreaker, () => true);
    expect(breakerAfter).toEqual(breakerBefore);
    const ledgerAfter = await ledger();
    expect(ledgerAfter.limitNanoUsd).toBe(ledgerBefore.limitNanoUsd);
    expect(ledgerAfter.spentNanoUsd).toBeGreaterThanOrEqual(ledgerBefore.spentNanoUsd);
    expect(ledgerAfter.totals.granted).toBeGreaterThanOrEqual(ledgerBefore.totals.granted);

    // Every call ends in a defined state.
    const outcomes = await within(150_000, () => `the calls to end (worker: ${String(workerError)})`, calls);
    expect(workerError).toBeUndefined();
    const byKind = (kind: LiveCall['kind']) => outcomes.filter((outcome) => outcome.kind === kind);
    for (const outcome of outcomes) expect(outcome.type).toBe('succeeded');
    const heldServedBy = byKind('held').map((outcome) => outcome.record.servedBy?.model);
    for (const served of heldServedBy) expect(['held-model', 'fallback-model']).toContain(served);
    for (const outcome of byKind('held')) {
      expect(outcome.record.attempts[0]).toMatchObject({ model: 'open-model', skipReason: 'circuit_open' });
    }
    const [backoff] = byKind('backoff');
    expect(backoff!.record.attempts.map((attempt) => attempt.failureClass ?? attempt.outcome)).toEqual([
      'rate_limited',
      'succeeded',
    ]);
    const backoffRequests = fake.requestsFor('backoff-model');
    expect(backoffRequests[1]!.receivedAt - backoffRequests[0]!.receivedAt).toBeGreaterThanOrEqual(
      RETRY_AFTER_MS,
    );
    const [patient] = byKind('patient');
    expect(patient!.record.rounds).toBeGreaterThan(1);
    expect(patient!.record.attempts.at(-1)).toMatchObject({ model: 'patient-model', outcome: 'succeeded' });

    // The ledger charged every attempt of every call exactly once, across the restart.
    const records = [openingEnded.record, ...outcomes.map((outcome) => outcome.record)];
    const final = await eventually('the ledger to settle every attempt', ledger, (snapshot) => {
      return snapshot.reservedNanoUsd === 0 && snapshot.spentNanoUsd >= costOf(records);
    });
    expect(final.spentNanoUsd).toBe(costOf(records));
    expect(final.openReservations).toEqual([]);
    expect(final.limitNanoUsd).toBe(ledgerBefore.limitNanoUsd);
    expect(final.totals.expired).toBe(0);
    // Each reservation open when the engine stopped was closed by the attempt that held it, at most its amount.
    // A worker's allowance held nobody's attempt: what its claims took are reservations of their own.
    const attemptsOpen = ledgerBefore.openReservations.filter((reservation) => !reservation.allowance);
    expect(attemptsOpen.length).toBeGreaterThan(0);
    for (const reservation of attemptsOpen) {
      const [holder, attemptNumber] = [
        reservation.holder,
        Number(reservation.reservationId.split('#').at(-1)),
      ];
      const attempt = records
        .find((record) => record.workflowId === holder)
        ?.attempts.find((candidate) => candidate.attempt === attemptNumber);
      expect(attempt?.outcome).not.toBe('skipped');
      expect(attempt!.costNanoUsd).toBeLessThanOrEqual(reservation.amountNanoUsd);
    }
    // Never less than the provider billed: an answer lost with the engine was charged its bound instead.
    const billed = Object.keys(config.providers.openai!.models)
      .map((model) => fake.billed(model))
      .concat(fake.billed('fallback-model'));
    expect(final.spentNanoUsd).toBeGreaterThanOrEqual(
      billed.reduce((sum, tally) => sum + costOfUsage(tally), 0),
    );
    // No request was sent twice: the provider saw exactly the attempts the records show.
    const received: Record<string, number> = {};
    for (const seen of fake.requests) received[seen.model!] = (received[seen.model!] ?? 0) + 1;
    expect(received).toEqual(requestsByModel(records));
    // And the open breaker is still as it was at the end.
    expect(await openBreaker()).toEqual(breakerBefore);

    const lost = outcomes
      .flatMap((outcome) => outcome.record.attempts)
      .filter((attempt) => !attempt.costKnown);
    console.log(
      `[reliability] engine-restart: ${how} stop, ${outcomes.length}/${calls.length} live calls ended ` +
        `(held: ${heldServedBy.filter((model) => model === 'held-model').length} served by the held target, ` +
        `${heldServedBy.filter((model) => model === 'fallback-model').length} failed over; ` +
        `${lost.length} attempts lost and charged their bound; the backoff timer ` +
        `${backoffRequests[1]!.receivedAt > stoppedAt ? 'spanned' : 'fired before'} the stop); ` +
        `engine down ${downtimeMs} ms; breaker ` +
        `${breakerBefore.state.status} with ${breakerBefore.state.transitions.length} transitions unchanged; ` +
        `ledger spent ${ledgerBefore.spentNanoUsd} → ${final.spentNanoUsd} nano-USD (reserved ` +
        `${ledgerBefore.reservedNanoUsd} → ${final.reservedNanoUsd}, limit ${final.limitNanoUsd}) = sum of records; ` +
        `worker ${workerError ? `failed (${String(workerError)})` : 'reconnected'}`,
    );
  } finally {
    worker.shutdown();
    await workerRunning;
    await connection.close();
    await nativeConnection.close();
    await engine.stop('clean');
  }
}

test('a clean engine stop and restart on the same SQLite file: calls end, breaker and ledger intact', async () => {
  await restartScenario('clean');
}, 300_000);

test('an engine killed (SIGKILL) and restarted on the same SQLite file: calls end, breaker and ledger intact', async () => {
  await restartScenario('kill');
}, 300_000);

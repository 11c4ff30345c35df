// `npm run histories:record [-- --only name,name]`: runs each workflow path once on a private dev server and
// writes its history to test/fixtures/histories for the replay test. Fixtures no scenario records any more (those
// of workflow versions still registered for old runs, such as `routedCallWorkflow`) are kept. Script side.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { createProviderRegistry } from '../src/activities/provider-registry';
import { SwitchyardClient } from '../src/client/switchyard-client';
import { assistantMessageOf } from '../src/config/conversation';
import type { Config } from '../src/config/config';
import { parseConfig } from '../src/config/load-config';
import { startDevServer } from '../src/engine';
import { startFakeProvider, type FakeProvider } from '../src/fake-provider';
import { createSwitchyardWorker } from '../src/worker';
import type { breakerWorkflow } from '../src/workflows/breaker/breaker-workflow';
import { breakerWorkflowId, stateQuery } from '../src/workflows/breaker/definitions';
import { entityTaskQueue, ROUTED_CALL_WORKFLOW_TYPE } from '../src/workflows/definitions';
import {
  claimSignal,
  ledgerWorkflowId,
  reserveUpdate,
  settleSignal,
} from '../src/workflows/ledger/ledger-definitions';
import type { ledgerWorkflow } from '../src/workflows/ledger/ledger-workflow';
import {
  FIXTURE_DIRECTORY,
  FIXTURE_INDEX_FILE,
  fixturePath,
  historyToFixtureJson,
  readFixtureIndex,
  secretsIn,
  type HistoryFixture,
  type HistoryFixtureIndex,
} from '../test/support/replay-fixtures';
import { fakeProviders, TEST_API_KEYS } from '../test/support/test-config';
import {
  cancelWatch,
  lateAnswerAfterCancel,
  LATE_MODEL,
  LOST_HEARTBEAT_TIMEOUT_MS,
  stallFirstLostAttempt,
  STALLED_MODEL,
  WATCH_ANSWER_MODEL,
  WATCH_CANCEL_MODEL,
  WATCH_HEARTBEAT_TIMEOUT_MS,
  WATCH_TARGET_TIMEOUT_MS,
  watchThenAnswer,
  workerLost,
} from './record-histories-lost-and-cancelled';
import { runIdOf, type Recorded, type ScenarioContext } from './record-histories-scenario';
import {
  HANDED_HEARTBEAT_TIMEOUT_MS,
  HANDED_MODEL,
  handedThenLost,
  holdHandedAttempts,
} from './record-histories-handed';

/** A fixed queue: the server is this script's own, and a fixed name keeps re-recorded fixtures comparable. */
const TASK_QUEUE = 'switchyard-recorder';
const request = { messages: [{ role: 'user' as const, content: 'Say hello' }], maxOutputTokens: 64 };
const answer = { kind: 'answer' as const, text: 'hello', usage: { inputTokens: 10, outputTokens: 5 } };
/** Breaker cooldown of the breaker and patience scenarios, in milliseconds: short, so recording is quick. */
const COOLDOWN_MS = 1_500;
/** Test-only ledger window, in milliseconds, standing in for the configured day. */
const LEDGER_WINDOW_MS = 3_000;

/**
 * The test config's providers and keys, with models of their own per scenario (the fake provider scripts by
 * model, and each breaker entity belongs to one model).
 */
function recorderConfig(fake: FakeProvider): Config {
  const target = (provider: string, model: string) => ({ provider, model, timeoutMs: 5_000 });
  const config = parseConfig({
    providers: fakeProviders(fake, {
      openai: [
        'failover-primary',
        'breaker-model',
        'ledger-primary',
        'patience-primary',
        'digest',
        'stream-primary',
        'conversation-text-only',
        STALLED_MODEL,
        LATE_MODEL,
        WATCH_CANCEL_MODEL,
        WATCH_ANSWER_MODEL,
        HANDED_MODEL,
      ],
      anthropic: [
        'failover-secondary',
        'ledger-secondary',
        'patience-secondary',
        'stream-secondary',
        'conversation-thinking',
      ],
    }),
    routes: {
      failover: {
        targets: [target('openai', 'failover-primary'), target('anthropic', 'failover-secondary')],
      },
      breaker: {
        targets: [target('openai', 'breaker-model')],
        breaker: { failureThreshold: 1, cooldownMs: COOLDOWN_MS },
      },
      ledger: { targets: [target('openai', 'ledger-primary'), target('anthropic', 'ledger-secondary')] },
      patience: {
        targets: [target('openai', 'patience-primary'), target('anthropic', 'patience-secondary')],
        breaker: { failureThreshold: 1, cooldownMs: COOLDOWN_MS },
      },
      digest: { targets: [target('openai', 'digest')] },
      stream: { targets: [target('openai', 'stream-primary'), target('anthropic', 'stream-secondary')] },
      conversation: {
        targets: [target('openai', 'conversation-text-only'), target('anthropic', 'conversation-thinking')],
      },
      lost: {
        targets: [target('openai', STALLED_MODEL)],
        heartbeatTimeoutMs: LOST_HEARTBEAT_TIMEOUT_MS,
        breaker: { failureThreshold: 1, cooldownMs: COOLDOWN_MS },
      },
      // A heartbeat every 3.3 s: the answer (1.5 s) reaches the call before the cancellation reaches the attempt.
      late: { targets: [target('openai', LATE_MODEL)], heartbeatTimeoutMs: 10_000 },
      'watch-cancel': {
        targets: [{ ...target('openai', WATCH_CANCEL_MODEL), timeoutMs: WATCH_TARGET_TIMEOUT_MS }],
        heartbeatTimeoutMs: WATCH_HEARTBEAT_TIMEOUT_MS,
      },
      'watch-answer': { targets: [target('openai', WATCH_ANSWER_MODEL)] },
      handed: {
        targets: [target('openai', HANDED_MODEL), target('anthropic', 'failover-secondary')],
        heartbeatTimeoutMs: HANDED_HEARTBEAT_TIMEOUT_MS,
      },
    },
    defaultRoute: 'failover',
    budgets: {
      'recorder-failover': { limitUsd: 5 },
      'recorder-window': { limitUsd: 1, period: 'day' },
    },
  });
  // The conversation scenario's first target takes no images, so the walk passes it over before sending.
  const textOnly = config.providers.openai!.models['conversation-text-only']!;
  config.providers.openai!.models['conversation-text-only'] = { ...textOnly, supports: { images: false } };
  return config;
}

async function waitFor(what: string, condition: () => Promise<boolean>): Promise<void> {
  for (let tries = 0; tries < 600; tries += 1) {
    if (await condition()) return;
    await delay(100);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** (a) The primary answers 429 (fails over), the secondary serves; the budget reserves, releases and settles. */
async function failoverWithBudget({ switchyard, client, fake }: ScenarioContext): Promise<Recorded[]> {
  fake.script('failover-primary', { kind: 'error', error: 'rate_limited', retryAfterSeconds: 3 });
  fake.script('failover-secondary', answer);
  const handle = await switchyard.start(
    { route: 'failover', request, budget: 'recorder-failover' },
    { idempotencyKey: 'recorder-failover' },
  );
  const { record } = await handle.result();
  if (record.servedBy?.model !== 'failover-secondary' || record.fallbacks !== 1)
    throw new Error(`failover scenario went another way: ${JSON.stringify(record)}`);
  return [
    {
      name: 'routed-call-v2-failover-budget',
      scenario:
        'routed call: 429 on the primary fails over, the secondary serves; each attempt reserves and settles',
      workflowType: ROUTED_CALL_WORKFLOW_TYPE,
      workflowId: handle.workflowId,
      runId: await runIdOf(client, handle.workflowId),
    },
  ];
}

/**
 * (b) A breaker entity through closed → open → half-open → closed, driven by real routed calls, then an
 * operator reset: its second update of the run, past `continueAsNewAfterUpdates`, so the run continues as new.
 */
async function breakerCycle({ switchyard, client, fake }: ScenarioContext): Promise<Recorded[]> {
  const workflowId = breakerWorkflowId('openai', 'breaker-model');
  const breaker = await client.workflow.start<typeof breakerWorkflow>('breakerWorkflow', {
    taskQueue: entityTaskQueue(TASK_QUEUE),
    workflowId,
    args: [{ provider: 'openai', model: 'breaker-model', continueAsNewAfterUpdates: 2 }],
  });
  fake.script('breaker-model', { kind: 'error', error: 'server_error' });
  await switchyard.generate({ route: 'breaker', request }, { idempotencyKey: 'recorder-breaker-opens' }).then(
    () => Promise.reject(new Error('the breaker scenario expected its first call to fail')),
    () => undefined,
  );
  await waitFor('the breaker to open', async () => (await breaker.query(stateQuery)).state.status === 'open');
  const opened = await breaker.query(stateQuery);
  // Past the cooldown, the next call holds the half-open probe; its answer closes the breaker.
  await delay(Math.max(0, opened.state.openedAtMs! + COOLDOWN_MS - Date.now()) + 200);
  fake.script('breaker-model', answer);
  await switchyard.generate({ route: 'breaker', request }, { idempotencyKey: 'recorder-breaker-probe' });
  await waitFor('the breaker to close', async () => {
    const { state } = await breaker.query(stateQuery);
    return state.status === 'closed' && state.transitions.length === 3;
  });
  await switchyard.breakers.reset('openai/breaker-model', {
    by: 'recorder',
    detail: 'forces continue-as-new',
  });
  await waitFor(
    'the breaker to continue as new',
    async () => (await breaker.query(stateQuery)).generation === 1,
  );
  return [
    {
      name: 'breaker-cycle-continue-as-new',
      scenario: 'breaker entity: closed → open → half-open → closed, an operator reset, then continue-as-new',
      workflowType: 'breakerWorkflow',
      workflowId,
      runId: breaker.firstExecutionRunId,
    },
    {
      name: 'breaker-after-continue-as-new',
      scenario: 'breaker entity: the run after continue-as-new, started from the carried state',
      workflowType: 'breakerWorkflow',
      workflowId,
      runId: await runIdOf(client, workflowId),
    },
  ];
}

/**
 * (c) A ledger entity on a short test window: reservations from routed calls that are released (a failed
 * attempt) and settled (the answer), one abandoned reservation charged when its lease runs out, a window
 * reset on its durable timer, then continue-as-new after `continueAsNewAfterMessages`.
 */
async function ledgerWindow({ switchyard, client, fake }: ScenarioContext): Promise<Recorded[]> {
  const scope = 'recorder-window';
  const ledger = await client.workflow.start<typeof ledgerWorkflow>('ledgerWorkflow', {
    taskQueue: entityTaskQueue(TASK_QUEUE),
    workflowId: ledgerWorkflowId(scope),
    args: [{ scope, windowMs: LEDGER_WINDOW_MS, continueAsNewAfterMessages: 8 }],
  });
  fake.script('ledger-primary', { kind: 'error', error: 'server_error' });
  fake.scriptAlways('ledger-primary', answer);
  fake.scriptAlways('ledger-secondary', answer);
  let calls = 0;
  const call = () =>
    switchyard.generate(
      { route: 'ledger', request, budget: scope },
      { idempotencyKey: `recorder-ledger-${++calls}` },
    );
  // Reserve, release (the primary's 500), reserve, settle (the secondary's answer).
  await call();
  await ledger.executeUpdate(reserveUpdate, {
    args: [
      {
        requests: [
          {
            reservationId: 'recorder-abandoned#1',
            amountNanoUsd: 1_000_000,
            holder: 'a lost caller',
            leaseMs: 1_000,
          },
        ],
      },
    ],
  });
  await waitFor('the lease to expire and the window to reset', async () => {
    const snapshot = await switchyard.ledgers.get(scope);
    return snapshot?.totals.expired === 1 && snapshot.previousWindow !== null;
  });
  await waitFor('the ledger to continue as new', async () => {
    if ((await runIdOf(client, ledger.workflowId)) !== ledger.firstExecutionRunId) return true;
    await call();
    return false;
  });
  return [
    {
      name: 'ledger-window-continue-as-new',
      scenario:
        'ledger entity: reserve, release, settle, an expired lease, a window reset, then continue-as-new',
      workflowType: 'ledgerWorkflow',
      workflowId: ledger.workflowId,
      runId: ledger.firstExecutionRunId,
    },
  ];
}

/**
 * (c2) A ledger whose calls reserve from a worker's allowance: claims (carrying the settles waiting before them)
 * instead of reserve updates, an allowance given back by its worker, one abandoned (its lease ends: marked, then
 * given back in a later activation), a claim after that (void), then continue-as-new.
 */
async function ledgerAllowances({ switchyard, client, fake }: ScenarioContext): Promise<Recorded[]> {
  const scope = 'recorder-allowances';
  const ledger = await client.workflow.start<typeof ledgerWorkflow>('ledgerWorkflow', {
    taskQueue: entityTaskQueue(TASK_QUEUE),
    workflowId: ledgerWorkflowId(scope),
    args: [{ scope, continueAsNewAfterMessages: 16 }],
  });
  fake.scriptAlways('ledger-primary', answer);
  await switchyard.ledgers.setLimit(scope, { limitUsd: 10 });
  let calls = 0;
  const call = () =>
    switchyard.generate(
      { route: 'ledger', request, budget: scope },
      { idempotencyKey: `recorder-allowances-${++calls}` },
    );
  for (let index = 0; index < 4; index += 1) await call();
  const abandoned = 'recorder-allowance#1';
  const claim = (reservationId: string) => ({
    allowanceId: abandoned,
    claims: [{ reservationId, amountNanoUsd: 100_000, holder: 'a lost caller', leaseMs: 60_000 }],
  });
  await ledger.executeUpdate(reserveUpdate, {
    args: [
      {
        requests: [
          {
            reservationId: abandoned,
            amountNanoUsd: 1_000_000,
            holder: 'worker gone',
            leaseMs: 1_000,
            allowance: true,
          },
        ],
      },
    ],
  });
  await ledger.signal(claimSignal, claim('recorder-claimed#1'));
  await waitFor('the abandoned allowance to go back', async () => {
    const snapshot = await switchyard.ledgers.get(scope);
    return (
      snapshot !== undefined && !snapshot.openReservations.some((open) => open.reservationId === abandoned)
    );
  });
  await ledger.signal(claimSignal, claim('recorder-claimed#2'));
  await ledger.signal(settleSignal, {
    reservationId: 'recorder-claimed#1',
    costNanoUsd: 50_000,
    costKnown: true,
  });
  await waitFor('the ledger to continue as new', async () => {
    if ((await runIdOf(client, ledger.workflowId)) !== ledger.firstExecutionRunId) return true;
    await call();
    return false;
  });
  return [
    {
      name: 'ledger-allowances-continue-as-new',
      scenario:
        'ledger entity: calls reserving by claims from an allowance, an abandoned allowance given back after its lease, a void claim, then continue-as-new',
      workflowType: 'ledgerWorkflow',
      workflowId: ledger.workflowId,
      runId: ledger.firstExecutionRunId,
    },
  ];
}

/** (d) Both targets down: both breakers open, the call sleeps on a durable timer, walks again and is served. */
async function patience({ switchyard, client, fake }: ScenarioContext): Promise<Recorded[]> {
  fake.outage('patience-primary');
  fake.outage('patience-secondary');
  const handle = await switchyard.start(
    { route: 'patience', request, patienceMs: 60_000 },
    { idempotencyKey: 'recorder-patience' },
  );
  await waitFor('both targets to fail once', async () => fake.requests.length >= 2);
  fake.recover('patience-primary');
  fake.recover('patience-secondary');
  const { record } = await handle.result();
  if (record.rounds < 2) throw new Error(`patience scenario did not wait: ${JSON.stringify(record)}`);
  return [
    {
      name: 'routed-call-v2-patience',
      scenario:
        'routed call with patience: every target failed over, it slept, walked the route again, served',
      workflowType: ROUTED_CALL_WORKFLOW_TYPE,
      workflowId: handle.workflowId,
      runId: await runIdOf(client, handle.workflowId),
    },
  ];
}

/** (e) A schedule's run, triggered by hand: the routed call as a child, then delivery to a directory. */
async function scheduledGeneration({ switchyard, client, fake }: ScenarioContext): Promise<Recorded[]> {
  fake.scriptAlways('digest', answer);
  const directory = mkdtempSync(path.join(tmpdir(), 'switchyard-recorder-'));
  const id = 'recorder-digest';
  try {
    await switchyard.schedules.create({
      id,
      every: '1h',
      call: { route: 'digest', request },
      deliver: { directory },
      paused: true,
      note: 'recorded by npm run histories:record',
    });
    await switchyard.schedules.trigger(id);
    let workflowId: string | undefined;
    await waitFor('the triggered run', async () => {
      workflowId = (await switchyard.schedules.describe(id)).recentRuns[0]?.workflowId;
      return workflowId !== undefined;
    });
    await client.workflow.getHandle(workflowId!).result();
    if (readdirSync(directory).length !== 1) throw new Error('the scheduled run delivered no file');
    await switchyard.schedules.delete(id);
    return [
      {
        name: 'scheduled-generation-v2-child',
        scenario:
          'scheduled run: the routed call (second version) as a child workflow, then delivery to a directory',
        workflowType: 'scheduledGenerationWorkflow',
        workflowId: workflowId!,
        runId: await runIdOf(client, workflowId!),
      },
    ];
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/**
 * (f) A gateway's streamed call: the primary's pieces are pushed to a relay (a stand-in for the gateway that takes
 * them all), then its stream is cut; output had reached the caller, so the call ends StreamInterrupted.
 */
async function streamInterrupted({ switchyard, client, fake }: ScenarioContext): Promise<Recorded[]> {
  const relay = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(200).end());
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  try {
    fake.script('stream-primary', { kind: 'stream_cut', afterEvents: 3 });
    fake.scriptAlways('stream-secondary', answer);
    const { port } = relay.address() as AddressInfo;
    const handle = await switchyard.start(
      {
        route: 'stream',
        request: { ...request, messages: [{ role: 'user', content: 'one two three four five six seven' }] },
        stream: true,
        // A token that was good for this recording only.
        relay: {
          url: `http://127.0.0.1:${port}/switchyard/relay/recorder`,
          token: 'recorder-relay-token-0000',
        },
      },
      { idempotencyKey: 'recorder-stream-interrupted' },
    );
    const failure = await handle.result().then(
      () => undefined,
      (error: unknown) => error as { type?: string },
    );
    if (failure?.type !== 'StreamInterrupted' || fake.counters('stream-secondary').requests !== 0)
      throw new Error(`stream scenario went another way: ${String(failure?.type)}`);
    return [
      {
        name: 'routed-call-v2-stream-interrupted',
        scenario:
          "gateway stream: the primary's pieces reached the relay, then its stream was cut; StreamInterrupted, no failover",
        workflowType: ROUTED_CALL_WORKFLOW_TYPE,
        workflowId: handle.workflowId,
        runId: await runIdOf(client, handle.workflowId),
      },
    ];
  } finally {
    relay.closeAllConnections();
    relay.close();
  }
}

/** A 1 × 1 PNG, real image bytes (the fake provider checks them). */
const PIXEL_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/**
 * (g) A whole conversation: a tool loop turn with signed thinking and an image; the first target takes no images
 * and is passed over before sending (its patch marker in history), the second continues the loop with its thinking.
 */
async function conversation({ switchyard, client, fake }: ScenarioContext): Promise<Recorded[]> {
  fake.script('conversation-thinking', [
    {
      kind: 'answer',
      reasoning: 'Look at the picture first.',
      toolCalls: [{ name: 'describe', arguments: {} }],
    },
    { kind: 'answer', text: 'A single pixel.', usage: { inputTokens: 30, outputTokens: 5 } },
  ]);
  const tools = [{ name: 'describe', parameters: { type: 'object', properties: {} } }];
  const first = {
    messages: [
      {
        role: 'user' as const,
        content: [
          { type: 'text' as const, text: 'What is this?' },
          { type: 'image' as const, data: PIXEL_PNG, mediaType: 'image/png' as const },
        ],
      },
    ],
    tools,
    reasoning: { budgetTokens: 1024 },
    maxOutputTokens: 2048,
  };
  const turn1 = await switchyard.generate({ route: 'conversation', request: first });
  const call = turn1.answer.toolCalls[0]!;
  const handle = await switchyard.start(
    {
      route: 'conversation',
      request: {
        ...first,
        messages: [
          ...first.messages,
          assistantMessageOf(turn1.answer),
          { role: 'tool', content: [{ type: 'tool_result', callId: call.id, content: 'one white pixel' }] },
        ],
      },
    },
    { idempotencyKey: 'recorder-conversation' },
  );
  const { record } = await handle.result();
  if (
    record.servedBy?.model !== 'conversation-thinking' ||
    record.attempts[0]?.skipReason !== 'unsupported_input'
  )
    throw new Error(`conversation scenario went another way: ${JSON.stringify(record)}`);
  return [
    {
      name: 'routed-call-v2-conversation',
      scenario:
        'a tool loop turn with signed thinking and an image: a text-only target passed over (unsupported_input), the thinking target serves',
      workflowType: ROUTED_CALL_WORKFLOW_TYPE,
      workflowId: handle.workflowId,
      runId: await runIdOf(client, handle.workflowId),
    },
  ];
}

const SCENARIOS = {
  failoverWithBudget,
  breakerCycle,
  ledgerWindow,
  ledgerAllowances,
  patience,
  scheduledGeneration,
  streamInterrupted,
  conversation,
  workerLost,
  lateAnswerAfterCancel,
  cancelWatch,
  watchThenAnswer,
  handedThenLost,
};

/** The scenarios named by `--only a,b` (function names), or all of them. */
function chosenScenarios(argv: readonly string[]): ((context: ScenarioContext) => Promise<Recorded[]>)[] {
  const at = argv.indexOf('--only');
  if (at === -1) return Object.values(SCENARIOS);
  const names = (argv[at + 1] ?? '').split(',').filter(Boolean);
  const unknown = names.filter((name) => !(name in SCENARIOS));
  if (names.length === 0 || unknown.length > 0) {
    throw new Error(`--only takes scenario names from: ${Object.keys(SCENARIOS).join(', ')}`);
  }
  return names.map((name) => SCENARIOS[name as keyof typeof SCENARIOS]);
}

/**
 * Fetches every recorded run's history, checks them all, then writes them over the fixtures of the same name.
 * Every other fixture stays: an old history must keep replaying, so it is never re-recorded away.
 */
async function writeFixtures(client: Client, recorded: readonly Recorded[]): Promise<void> {
  const secrets = Object.values(TEST_API_KEYS);
  const files: { fixture: HistoryFixture; json: string }[] = [];
  for (const { runId, ...fixture } of recorded) {
    const history = await client.workflow.getHandle(fixture.workflowId, runId).fetchHistory();
    const json = `${historyToFixtureJson(history)}\n`;
    // API keys must never reach workflow history; a fixture that holds one is a bug to fix, not to commit.
    if (secretsIn(json, secrets).length > 0)
      throw new Error(`the history of ${fixture.name} contains an API key; nothing written`);
    files.push({ fixture: { ...fixture, events: history.events?.length ?? 0 }, json });
  }
  mkdirSync(FIXTURE_DIRECTORY, { recursive: true });
  for (const { fixture, json } of files) {
    writeFileSync(fixturePath(fixture.name), json);
    console.log(
      `recorded ${fixture.name}: ${fixture.workflowType} ${fixture.workflowId}, ${fixture.events} events`,
    );
  }
  const written = new Set(files.map(({ fixture }) => fixture.name));
  const kept = readFixtureIndex().histories.filter((fixture) => !written.has(fixture.name));
  for (const fixture of kept)
    console.log(`kept ${fixture.name}: ${fixture.workflowType}, ${fixture.events} events`);
  const index: HistoryFixtureIndex = {
    recordedBy: 'npm run histories:record',
    sdkVersion: (require('@temporalio/worker/package.json') as { version: string }).version,
    histories: [...kept, ...files.map(({ fixture }) => fixture)],
  };
  writeFileSync(path.join(FIXTURE_DIRECTORY, FIXTURE_INDEX_FILE), `${JSON.stringify(index, null, 2)}\n`);
}

async function main(): Promise<void> {
  // Failed attempts are part of the scenarios and log as warnings.
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const server = await startDevServer({ headless: true });
  const fake = await startFakeProvider();
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address });
  try {
    const client = new Client({ connection });
    const config = recorderConfig(fake);
    const worker = await createSwitchyardWorker({
      config,
      connection: nativeConnection,
      taskQueue: TASK_QUEUE,
      providers: createProviderRegistry(config, { ...TEST_API_KEYS }),
      workerOptions: { interceptors: { activity: [stallFirstLostAttempt(), holdHandedAttempts()] } },
    });
    const switchyard = new SwitchyardClient({ client, taskQueue: TASK_QUEUE, config });
    const recorded = await worker.runUntil(
      (async () => {
        const all: Recorded[] = [];
        for (const scenario of chosenScenarios(process.argv.slice(2))) {
          fake.reset();
          all.push(...(await scenario({ switchyard, client, fake })));
        }
        return all;
      })(),
    );
    await writeFixtures(client, recorded);
  } finally {
    await connection.close();
    await nativeConnection.close();
    await fake.close();
    await server.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

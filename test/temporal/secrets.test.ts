// Secrets and privacy end to end on a real dev server: routed calls through every failure class, with provider
// error bodies echoing the API key, the prompt and an account id, leave neither the keys nor the body text in
// any history, payload, memo, search attribute, worker log line, client error or CLI output.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';
import { setTimeout as delay } from 'node:timers/promises';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { CommandIo } from '../../src/cli/command-io';
import { ExitCode } from '../../src/cli/exit-codes';
import { main } from '../../src/cli/main';
import { RoutedCallError } from '../../src/client/errors';
import { SwitchyardClient } from '../../src/client/switchyard-client';
import type { RoutedCallInputValue } from '../../src/config/routed-call-input';
import { parseConfig } from '../../src/config/load-config';
import {
  fingerprintApiKey,
  startFakeProvider,
  type FakeProvider,
  type FakeScenario,
} from '../../src/fake-provider';
import { breakerWorkflowId } from '../../src/workflows/breaker/definitions';
import { entityTaskQueue } from '../../src/workflows/definitions';
import { ledgerWorkflowId } from '../../src/workflows/ledger/ledger-definitions';
import { eventually } from '../support/eventually';
import { FULL_INSPECT, LeakScanner, workflowText } from '../support/secrets-scan';
import {
  anthropicError,
  anthropicStreamError,
  echoText,
  keyEchoes,
  newCanaries,
  openAIError,
  openAIStreamError,
  secretsConfigFile,
  unparsableStream,
} from '../support/secrets-scenarios';
import { connectForTest, temporalAddress, uniqueName, type TemporalTestContext } from '../support/temporal';
import { TEST_API_KEYS } from '../support/test-config';
import { startWorkerProcess } from '../support/worker-process';

const MODELS = {
  openai: ['gpt-primary', 'gpt-secondary', 'gpt-fragile'],
  anthropic: ['claude-primary', 'claude-secondary'],
} as const;

let temporal: TemporalTestContext;
let fake: FakeProvider;
let directory: string;
let worker: ChildProcess | undefined;
let workerOutput = '';

beforeAll(async () => {
  [temporal, fake] = await Promise.all([connectForTest(), startFakeProvider()]);
  directory = mkdtempSync(path.join(tmpdir(), 'switchyard-secrets-'));
  // Breakers are per (provider, model) on the whole server: start from fresh ones that this test's worker owns.
  await Promise.all(
    Object.entries(MODELS).flatMap(([provider, models]) =>
      models.map(async (model) => {
        try {
          await temporal.client.workflow
            .getHandle(breakerWorkflowId(provider, model))
            .terminate('test isolation');
        } catch (error) {
          if (!(error instanceof WorkflowNotFoundError)) throw error;
        }
      }),
    ),
  );
});

afterAll(async () => {
  if (worker && worker.exitCode === null) worker.kill('SIGKILL');
  await fake?.close();
  await temporal?.close();
  if (directory) rmSync(directory, { recursive: true, force: true });
});

/** Starts the worker process: the keys live only in its environment, as in production. */
async function startWorker(configFile: string, taskQueue: string): Promise<ChildProcess> {
  return startWorkerProcess({
    script: 'test/support/secrets-worker-process.ts',
    environment: {
      ...TEST_API_KEYS,
      // The SDKs' own debug lines too: they name the provider's request id, which may carry the key.
      OPENAI_LOG: 'debug',
      ANTHROPIC_LOG: 'debug',
      TEMPORAL_ADDRESS: temporalAddress(),
      SWITCHYARD_CONFIG: configFile,
      SWITCHYARD_TASK_QUEUE: taskQueue,
    },
    readyText: 'switchyard worker polling',
    onOutput: (text) => (workerOutput += text),
    onSpawn: (child) => (worker = child),
  });
}

/** Runs `switchyard <argv>` in-process against the worker's task queue and returns what it printed. */
async function switchyard(taskQueue: string, configFile: string, argv: readonly string[]) {
  let out = '';
  let err = '';
  const io: CommandIo = {
    stdout: { write: (text: string) => (out += text) },
    stderr: { write: (text: string) => (err += text) },
    stdin: {
      isTTY: true,
      [Symbol.asyncIterator]() {
        throw new Error('stdin must not be read');
      },
    },
  };
  const code = await main(
    [...argv, '--address', temporalAddress(), '--task-queue', taskQueue, '--config', configFile],
    io,
  );
  return { code, output: `${out}\n${err}` };
}

test('no API key and no provider body text is recorded in history, logs, errors or CLI output', async () => {
  const canaries = newCanaries();
  const scopes = { team: uniqueName('secrets-team'), tiny: uniqueName('secrets-tiny') };
  const configInput = secretsConfigFile(fake, scopes);
  const configFile = path.join(directory, 'switchyard.config.json');
  writeFileSync(configFile, JSON.stringify(configInput, null, 2));
  const taskQueue = uniqueName('secrets');
  const child = await startWorker(configFile, taskQueue);
  worker = child;
  const client = new SwitchyardClient({
    client: temporal.client,
    taskQueue,
    config: parseConfig(configInput),
  });

  const echoOpenAI = echoText(canaries, 'openai');
  const echoAnthropic = echoText(canaries, 'anthropic');
  const prompt = `${canaries.prompt}: what is the capital of France?`;
  const input = (extra: Partial<RoutedCallInputValue> = {}): RoutedCallInputValue => ({
    route: 'secrets',
    request: { messages: [{ role: 'user', content: prompt }], maxOutputTokens: 50 },
    ...extra,
  });
  const workflowIds: string[] = [];
  const clientErrors: unknown[] = [];
  const outcomes: Record<string, string> = {};

  /** Runs one call with the given answers scripted per model, and checks every scripted answer was served. */
  async function call(
    name: string,
    callInput: RoutedCallInputValue,
    scripts: readonly (readonly [string, FakeScenario])[],
    options: { cancelWhenSent?: boolean; checkServed?: boolean } = {},
  ): Promise<void> {
    for (const [model, scenario] of scripts) fake.script(model, scenario);
    const before = fake.requests.length;
    const handle = await client.start(callInput, { idempotencyKey: uniqueName(name) });
    workflowIds.push(handle.workflowId);
    if (options.cancelWhenSent) {
      await eventually(
        `${name}: the request reached the provider`,
        async () => fake.requests.length,
        (count) => count > before,
      );
      await handle.cancel();
    }
    try {
      await handle.result();
      outcomes[name] = 'succeeded';
    } catch (error) {
      if (!(error instanceof RoutedCallError)) throw error;
      outcomes[name] = error.type;
      clientErrors.push(error);
      // The raw Temporal error as well, with its whole cause chain and details.
      await temporal.client.workflow
        .getHandle(handle.workflowId)
        .result()
        .catch((raw: unknown) => clientErrors.push(raw));
    }
    if (options.checkServed ?? true) {
      const served = fake.requests.slice(before).map((request) => `${request.model}:${request.scenario}`);
      expect(served).toEqual(scripts.map(([model, scenario]) => `${model}:${scenario.kind}`));
    }
  }

  // Fail over through rate limit, overload and a 401 that echoes the whole key, then succeed, on a budget.
  await call('failover', input({ budget: scopes.team }), [
    [
      'gpt-primary',
      { ...openAIError(429, 'requests', 'rate_limit_exceeded', echoOpenAI), headers: { 'retry-after': '1' } },
    ],
    ['claude-primary', anthropicError(529, 'overloaded_error', echoAnthropic)],
    ['gpt-secondary', openAIError(401, 'invalid_request_error', 'invalid_api_key', echoOpenAI)],
    ['claude-secondary', { kind: 'answer', text: 'Paris.' }],
  ]);
  // That 429's Retry-After (1 s) paused gpt-primary for every caller; the next call must find it open again.
  await delay(1_000);
  await call('quota', input(), [
    ['gpt-primary', openAIError(429, 'insufficient_quota', 'insufficient_quota', echoOpenAI)],
    ['claude-primary', anthropicError(402, 'billing_error', echoAnthropic)],
    [
      'gpt-secondary',
      { kind: 'raw', status: 502, body: `<html><body><h1>502</h1>${echoOpenAI}</body></html>` },
    ],
    ['claude-secondary', anthropicError(403, 'permission_error', echoAnthropic)],
  ]);
  await call('timeouts-and-junk', input(), [
    ['gpt-primary', openAIError(408, 'timeout', null, echoOpenAI)],
    ['claude-primary', anthropicError(504, 'timeout_error', echoAnthropic)],
    ['gpt-secondary', { kind: 'raw', status: 200, body: `upstream proxy says: ${echoOpenAI}` }],
    ['claude-secondary', { kind: 'invalid_json' }],
  ]);
  await call('invalid-request', input(), [
    ['gpt-primary', openAIError(400, 'invalid_request_error', 'invalid_value', echoOpenAI)],
  ]);
  await call('context-openai', input(), [
    ['gpt-primary', openAIError(400, 'invalid_request_error', 'context_length_exceeded', echoOpenAI)],
  ]);
  await call('context-anthropic', input(), [
    ['gpt-primary', openAIError(500, 'server_error', null, echoOpenAI)],
    [
      'claude-primary',
      anthropicError(
        400,
        'invalid_request_error',
        `prompt is too long: 215000 tokens > 200000 maximum. ${echoAnthropic}`,
      ),
    ],
  ]);
  await call('refusal-openai', input(), [['gpt-primary', { kind: 'refusal', text: echoOpenAI }]]);
  await call('refusal-anthropic', input(), [
    ['gpt-primary', openAIError(503, 'server_error', null, echoOpenAI)],
    ['claude-primary', { kind: 'refusal', text: echoAnthropic }],
  ]);
  await call('content-filter', input(), [['gpt-primary', { kind: 'content_filter' }]]);
  await call('stream', input({ stream: true }), [
    ['gpt-primary', openAIStreamError(echoOpenAI)],
    ['claude-primary', anthropicStreamError(echoAnthropic)],
    ['gpt-secondary', { kind: 'stream_cut' }],
    ['claude-secondary', { kind: 'answer', text: 'Streamed Paris.' }],
  ]);
  // Stream data that is not JSON: the SDKs log it, so this checks their logger too.
  await call('stream-junk', input({ stream: true }), [
    ['gpt-primary', unparsableStream('openai', echoOpenAI)],
    ['claude-primary', unparsableStream('anthropic', echoAnthropic)],
    ['gpt-secondary', { kind: 'answer', text: 'Streamed Paris, again.' }],
  ]);
  // The fake's own 401s: OpenAI's echoes the key's last characters, as the real one does.
  await call('fake-authentication', input(), [
    ['gpt-primary', { kind: 'error', error: 'authentication' }],
    ['claude-primary', { kind: 'error', error: 'authentication' }],
    ['gpt-secondary', { kind: 'reset' }],
    ['claude-secondary', { kind: 'answer', text: 'Paris, again.' }],
  ]);
  // The key itself as an error code, a request id and in the body, on failures, a success and a stream.
  const echoes = keyEchoes();
  await call('key-echo', input({ budget: scopes.team }), echoes.plain);
  await call('key-echo-stream', input({ stream: true }), echoes.streamed);
  await call('cancelled', input(), [['gpt-primary', { kind: 'hang' }]], { cancelWhenSent: true });
  // A hang past the target's deadline opens the fragile route's breaker; the next call finds it open.
  fake.scriptAlways('gpt-fragile', { kind: 'hang' });
  await call('timeout', input({ route: 'fragile' }), [], { checkServed: false });
  await call('circuit-open', input({ route: 'fragile' }), [], { checkServed: false });
  await call('over-budget', input({ budget: scopes.tiny }), []);

  expect(outcomes).toEqual({
    failover: 'succeeded',
    quota: 'AllTargetsFailed',
    'timeouts-and-junk': 'AllTargetsFailed',
    'invalid-request': 'InvalidRequest',
    'context-openai': 'ContextOverflow',
    'context-anthropic': 'ContextOverflow',
    'refusal-openai': 'ContentRefused',
    'refusal-anthropic': 'ContentRefused',
    'content-filter': 'ContentRefused',
    stream: 'succeeded',
    'stream-junk': 'succeeded',
    'fake-authentication': 'succeeded',
    'key-echo': 'succeeded',
    'key-echo-stream': 'succeeded',
    cancelled: 'Cancelled',
    timeout: 'AllTargetsFailed',
    'circuit-open': expect.stringMatching(/^(CircuitOpen|AllTargetsFailed)$/),
    'over-budget': 'BudgetExceeded',
  });

  // The same through the CLI: a failing `call`, then `show` of every call, the breakers and the ledgers.
  const cliOutputs: string[] = [];
  fake.script('gpt-primary', openAIError(401, 'invalid_request_error', 'invalid_api_key', echoOpenAI));
  fake.script('claude-primary', { kind: 'error', error: 'bad_request', echoApiKey: ['code', 'request_id'] });
  const cliKey = uniqueName('secrets-cli');
  const cliCall = await switchyard(taskQueue, configFile, [
    'call',
    prompt,
    '--route',
    'secrets',
    '--idempotency-key',
    cliKey,
  ]);
  expect(cliCall.code).toBe(ExitCode.callFailed);
  cliOutputs.push(cliCall.output);
  workflowIds.push(`switchyard-call-${cliKey}`);
  for (const workflowId of workflowIds) {
    for (const format of [[], ['--json']]) {
      const shown = await switchyard(taskQueue, configFile, ['show', workflowId, ...format]);
      expect(shown.code).toBe(ExitCode.ok);
      cliOutputs.push(shown.output);
    }
  }
  cliOutputs.push((await switchyard(taskQueue, configFile, ['breakers'])).output);
  for (const scope of Object.values(scopes)) {
    cliOutputs.push((await switchyard(taskQueue, configFile, ['ledger', scope])).output);
  }

  // Every run on this test's task queues: the calls and the breaker and ledger entities they used.
  const entities = entityTaskQueue(taskQueue);
  const expectedIds = [
    ...Object.values(scopes).map(ledgerWorkflowId),
    ...workflowIds,
    ...Object.entries(MODELS).flatMap(([provider, models]) =>
      models.map((model) => breakerWorkflowId(provider, model)),
    ),
  ];
  const executions = await eventually(
    'every workflow of the test is visible',
    async () => {
      const found: { workflowId: string; runId: string }[] = [];
      const query = `TaskQueue = '${taskQueue}' OR TaskQueue = '${entities}'`;
      for await (const execution of temporal.client.workflow.list({ query })) {
        found.push({ workflowId: execution.workflowId, runId: execution.runId });
      }
      return found;
    },
    (found) => expectedIds.every((id) => found.some((execution) => execution.workflowId === id)),
  );

  // Stop the worker so its last log lines are flushed before they are read.
  const exited = once(child, 'exit');
  child.kill('SIGINT');
  await exited;

  const scanner = new LeakScanner({
    openaiKey: TEST_API_KEYS.OPENAI_TEST_KEY,
    anthropicKey: TEST_API_KEYS.ANTHROPIC_TEST_KEY,
    bodyCanary: canaries.body,
    accountCanary: canaries.account,
    promptCanary: canaries.prompt,
    errorText: 'Incorrect API key provided',
  });
  // The prompt is the request itself, a payload by design: it may be in history and in `show`, nowhere else.
  const allButPrompt = ['openaiKey', 'anthropicKey', 'bodyCanary', 'accountCanary', 'errorText'];

  let events = 0;
  let historyText = '';
  for (const { workflowId, runId } of executions) {
    const read = await workflowText(temporal.client, workflowId, runId);
    expect({ workflowId, opaquePayloads: read.opaquePayloads }).toEqual({ workflowId, opaquePayloads: 0 });
    events += read.events;
    historyText += read.text;
    scanner.scan(`history ${workflowId}`, read.text, allButPrompt);
  }
  const logLines = workerOutput.split('\n').filter((line) => line.trim() !== '');
  scanner.scan('worker log', workerOutput);
  for (const [index, error] of clientErrors.entries()) {
    scanner.scan(`client error ${index}`, `${String(error)}\n${inspect(error, FULL_INSPECT)}`);
  }
  for (const [index, output] of cliOutputs.entries())
    scanner.scan(`CLI output ${index}`, output, allButPrompt);

  expect(scanner.leaks).toEqual([]);
  // The scan can see what it looks for: the prompt is in the histories, the failures and their ids are there
  // and in the log, and the keys really travelled to the provider.
  const rateLimited = fake.requests.find(
    (request) => request.scenario === 'raw' && request.model === 'gpt-primary',
  );
  const cliText = cliOutputs.join('\n');
  expect({
    promptInHistory: historyText.includes(canaries.prompt),
    failureInHistory: historyText.includes(
      'openai gpt-primary: 429 rate_limited (rate_limit_exceeded, request ',
    ),
    requestIdInHistory: historyText.includes(rateLimited!.requestId),
    failureInLog: workerOutput.includes('openai gpt-primary: 429 rate_limited'),
    debugLines: workerOutput.includes('[log] DEBUG'),
    sdkDebugLines: /\((openai|anthropic) SDK\): \[log_/.test(workerOutput),
    failureInCli: cliText.includes('rate_limited'),
  }).toEqual({
    promptInHistory: true,
    failureInHistory: true,
    requestIdInHistory: true,
    failureInLog: true,
    debugLines: true,
    sdkDebugLines: true,
    failureInCli: true,
  });
  // The fake really sent the keys back: six answers of two calls, and the CLI call's second one.
  expect(fake.requests.filter((request) => request.echoedApiKey)).toHaveLength(7);
  const keysSent = new Set(fake.requests.map((request) => request.apiKeyFingerprint));
  expect(keysSent).toEqual(
    new Set([
      fingerprintApiKey(TEST_API_KEYS.OPENAI_TEST_KEY),
      fingerprintApiKey(TEST_API_KEYS.ANTHROPIC_TEST_KEY),
    ]),
  );

  console.log(
    `[reliability] secrets: scanned ${events} events, ${logLines.length} log lines, ${clientErrors.length} errors; ` +
      `${scanner.leaks.length} leaks (${executions.length} runs, ${cliOutputs.length} CLI outputs)`,
  );
});

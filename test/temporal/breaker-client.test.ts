// Operating breakers on a real dev server: the client API (list, get, reset) and `switchyard breakers`.
import { setTimeout as delay } from 'node:timers/promises';
import { WorkflowNotFoundError } from '@temporalio/common';
import { UsageError } from '../../src/cli/cli-errors';
import type { CommandIo } from '../../src/cli/command-io';
import { breakersCommand } from '../../src/cli/commands/breakers';
import { ExitCode } from '../../src/cli/exit-codes';
import { Breakers, type BreakerView } from '../../src/client/breakers';
import { InvalidRequestError } from '../../src/client/errors';
import type { breakerWorkflow } from '../../src/workflows/breaker/breaker-workflow';
import {
  breakerWorkflowId,
  outcomeSignal,
  type BreakerOutcomeInput,
} from '../../src/workflows/breaker/definitions';
import {
  gatedInput,
  startBreakerHarness,
  uniqueKey,
  type BreakerHarness,
  type BreakerKey,
} from '../support/breaker-harness';
import { temporalAddress, uniqueName } from '../support/temporal';
import { main } from '../../src/cli/main';

let harness: BreakerHarness;
beforeAll(async () => {
  harness = await startBreakerHarness();
});
afterAll(async () => harness?.close());

const keyOf = (key: BreakerKey) => `${key.provider}/${key.model}`;

async function switchyardBreakers(argv: readonly string[]) {
  let out = '';
  let err = '';
  const io: CommandIo = {
    stdout: { write: (text: string) => (out += text) },
    stderr: { write: (text: string) => (err += text) },
    stdin: {
      isTTY: true,
      [Symbol.asyncIterator]: () => {
        throw new Error('stdin must not be read');
      },
    },
  };
  const code = await breakersCommand.run([...argv, '--address', temporalAddress()], io);
  return { code, out, err };
}

/** Visibility is eventually consistent: list until every key shows up. */
async function listUntil(breakers: Breakers, provider: string, keys: readonly string[]) {
  for (let tries = 0; tries < 100; tries += 1) {
    const views = await breakers.list({ provider });
    if (keys.every((key) => views.some((view) => view.key === key))) return views;
    await delay(100);
  }
  throw new Error(`breakers ${keys.join(', ')} never listed`);
}

/** Reports counted failures the way a worker does (signal-with-start), for a provider no call needs to reach. */
async function recordFailures(
  taskQueue: string,
  key: BreakerKey,
  count: number,
  policy: { failureThreshold: number; cooldownMs: number },
) {
  for (let index = 0; index < count; index += 1) {
    await harness.temporal.client.workflow.signalWithStart<typeof breakerWorkflow, [BreakerOutcomeInput]>(
      'breakerWorkflow',
      {
        taskQueue,
        workflowId: breakerWorkflowId(key.provider, key.model),
        args: [{ ...key }],
        signal: outcomeSignal,
        signalArgs: [
          {
            reportId: uniqueName('report'),
            caller: uniqueName('call'),
            policy,
            outcome: 'counted_failure',
            failureClass: 'unavailable',
          },
        ],
      },
    );
  }
}

test('list, get and reset through the client API', async () => {
  const provider = uniqueName('provider');
  const opened = { provider, model: 'model-a' };
  const failing = { provider, model: 'family/model-b' };
  const never = { provider, model: 'model-c' };
  const policy = { failureThreshold: 2, cooldownMs: 60_000 };
  const breakers = new Breakers(harness.temporal.client);

  await harness.withWorker({}, async (taskQueue) => {
    await recordFailures(taskQueue, opened, 2, policy);
    await recordFailures(taskQueue, failing, 1, policy);
    await harness.waitForSnapshot(opened, (s) => s.state.status === 'open');
    await harness.waitForSnapshot(failing, (s) => s.state.consecutiveFailures === 1);

    const views = (await listUntil(breakers, provider, [keyOf(opened), keyOf(failing)])) as BreakerView[];
    expect(
      views.map((view) => [view.key, view.model, view.state.status, view.state.consecutiveFailures]),
    ).toEqual([
      [keyOf(failing), 'family/model-b', 'closed', 1],
      [keyOf(opened), 'model-a', 'open', 2],
    ]);

    const view = await breakers.get(keyOf(opened));
    expect(view).toMatchObject({
      provider,
      model: 'model-a',
      exists: true,
      workflowId: `switchyard-breaker-${keyOf(opened)}`,
    });
    expect(view.state.transitions).toEqual([
      expect.objectContaining({ from: 'closed', to: 'open', reason: 'failure_threshold' }),
    ]);
    expect(await breakers.get(keyOf(never))).toMatchObject({
      exists: false,
      state: { status: 'closed', consecutiveFailures: 0 },
    });

    const reset = await breakers.reset(keyOf(opened), { by: 'ops', detail: 'provider recovered' });
    expect(reset.state).toMatchObject({ status: 'closed', consecutiveFailures: 0 });
    expect(reset.state.transitions.at(-1)).toMatchObject({
      from: 'open',
      to: 'closed',
      reason: 'reset',
      by: 'ops',
      detail: 'provider recovered',
    });

    // Resetting a key that never failed starts nothing.
    expect(await breakers.reset(keyOf(never))).toMatchObject({ exists: false });
    await expect(harness.breakerHandle(never).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
    await expect(breakers.get('no-slash')).rejects.toBeInstanceOf(InvalidRequestError);
  });
});

test('a reset reaches the workers within their hint TTL: the target is called again', async () => {
  const key = uniqueKey();
  const policy = { failureThreshold: 1, cooldownMs: 60_000 };
  harness.fake.script(key.model, { kind: 'error', error: 'server_error' });
  await harness.withWorker({ hintTtlMs: 100 }, async (taskQueue) => {
    await harness.gatedCall(taskQueue, gatedInput(key, policy));
    await harness.waitForSnapshot(key, (s) => s.state.status === 'open');
    expect((await harness.gatedCall(taskQueue, gatedInput(key, policy))).admitted).toBe(false);

    await new Breakers(harness.temporal.client).reset(keyOf(key));
    await delay(150);
    expect(await harness.gatedCall(taskQueue, gatedInput(key, policy))).toMatchObject({
      admitted: true,
      outcome: 'succeeded',
    });
  });
  expect(harness.fake.counters(key.model).requests).toBe(2);
});

test('switchyard breakers: table, --json, show and reset', async () => {
  const provider = uniqueName('provider');
  const key = { provider, model: 'model-x' };
  await harness.withWorker({}, async (taskQueue) => {
    // A failure on a lenient route, then one on a strict route: the shared streak of 2 is past the strict
    // threshold only, so the strict policy judges it open and the lenient one closed.
    await recordFailures(taskQueue, key, 1, { failureThreshold: 3, cooldownMs: 60_000 });
    await harness.waitForSnapshot(key, (s) => s.state.consecutiveFailures === 1);
    await recordFailures(taskQueue, key, 1, { failureThreshold: 1, cooldownMs: 60_000 });
    await harness.waitForSnapshot(key, (s) => s.state.status === 'open');
    await listUntil(new Breakers(harness.temporal.client), provider, [keyOf(key)]);

    const table = await switchyardBreakers(['--provider', provider]);
    expect(table.code).toBe(ExitCode.ok);
    const lines = table.out.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^BREAKER\s+STATUS\s+FAILURES\s+LAST FAILURE\s+NEXT PROBE\s+POLICIES\s+LAST TRANSITION$/,
    );
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(
      new RegExp(
        `^${keyOf(key)}\\s+open\\s+2\\s+unavailable\\s+in \\d+ s\\s+1/60s open · 3/60s closed\\s+closed → open \\(failure_threshold\\)`,
      ),
    );

    const json = await switchyardBreakers(['--json', '--provider', provider]);
    const listed = JSON.parse(json.out) as BreakerView[];
    expect(listed.map((view) => [view.key, view.state.status])).toEqual([[keyOf(key), 'open']]);
    expect(listed[0]!.policies.map((policy) => [policy.failureThreshold, policy.status])).toEqual([
      [1, 'open'],
      [3, 'closed'],
    ]);

    const opened = await switchyardBreakers(['show', keyOf(key)]);
    expect(opened.out).toMatch(/status\s+open \(as the strictest policy seen judges it\)/);
    expect(opened.out).toMatch(/POLICY\s+THRESHOLD\s+COOLDOWN\s+JUDGES IT\s+PROBE FROM\s+LAST SEEN/);
    expect(opened.out).toMatch(/1\/60s\s+1\s+60s\s+open\s+in \d+ s/);
    expect(opened.out).toMatch(/3\/60s\s+3\s+60s\s+closed\s/);

    const reset = await switchyardBreakers(['reset', keyOf(key), '--reason', 'status page green']);
    expect(reset).toMatchObject({ code: ExitCode.ok, out: `${keyOf(key)} reset: closed.\n` });

    const shown = await switchyardBreakers(['show', keyOf(key)]);
    expect(shown.out).toMatch(new RegExp(`^breaker\\s+${keyOf(key)}\n`));
    expect(shown.out).toMatch(/status\s+closed/);
    expect(shown.out).toMatch(/1\/60s\s+1\s+60s\s+closed/);
    expect(shown.out).toMatch(/open\s+closed\s+reset\s+cli\s+status page green/);

    const shownJson = JSON.parse(
      (await switchyardBreakers(['show', keyOf(key), '--json'])).out,
    ) as BreakerView;
    expect(shownJson.state.transitions.map((transition) => transition.reason)).toEqual([
      'failure_threshold',
      'reset',
    ]);
  });

  expect((await switchyardBreakers(['--provider', uniqueName('nobody')])).out).toContain('No breakers');
  await expect(switchyardBreakers(['reset', 'no-slash'])).rejects.toBeInstanceOf(UsageError);
  await expect(switchyardBreakers(['reset'])).rejects.toThrow('missing the <provider/model> to reset');
  await expect(switchyardBreakers(['frobnicate'])).rejects.toThrow('unknown action "frobnicate"');
  await expect(switchyardBreakers(['--reason', 'x'])).rejects.toThrow(
    '--reason applies to "breakers reset" only',
  );
  // `--help` is answered by the dispatcher, for every command.
  let help = '';
  const helpIo: CommandIo = {
    stdout: { write: (text: string) => (help += text) },
    stderr: { write: () => undefined },
    stdin: { isTTY: true, [Symbol.asyncIterator]: () => [][Symbol.iterator]() as never },
  };
  expect(await main(['breakers', '--help'], helpIo)).toBe(0);
  expect(help).toContain('switchyard breakers reset <provider/model>');
});

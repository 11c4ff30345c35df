// `switchyard plan --runtime-routes` on a real dev server: a route set at runtime is planned with its runtime spec
// (read through the client's routes API), a config route overridden at runtime with the override, and a route
// deleted at runtime is unknown; without the flag the config file alone is read.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { CommandIo } from '../../src/cli/command-io';
import { planCommand } from '../../src/cli/commands/plan';
import { ExitCode } from '../../src/cli/exit-codes';
import { reportError } from '../../src/cli/report-error';
import type { CallPlan } from '../../src/routing/call-plan';
import { startHarness, type Harness } from '../support/harness';
import { temporalAddress } from '../support/temporal';

let harness: Harness;
let configFile: string;
beforeAll(async () => {
  harness = await startHarness((config) => ({
    ...config,
    routes: {
      ...config.routes,
      spare: { ...config.routes.support!, targets: [config.routes.support!.targets[0]!] },
    },
  }));
  const folder = mkdtempSync(path.join(tmpdir(), 'switchyard-plan-runtime-'));
  configFile = path.join(folder, 'switchyard.config.json');
  writeFileSync(configFile, JSON.stringify(harness.config));
});
afterAll(async () => harness?.close());

/** Runs `switchyard plan <argv> --json` in-process against the dev server, the harness's config and `taskQueue`. */
async function plan(taskQueue: string, argv: readonly string[]) {
  let out = '';
  let err = '';
  const io: CommandIo = {
    stdout: { write: (text: string) => (out += text) },
    stderr: { write: (text: string) => (err += text) },
    // A terminal: nothing is read from it (the plan's prompt is the placeholder).
    stdin: Object.assign(Readable.from([]), { isTTY: true }),
  };
  const fullArgv = [
    ...argv,
    '--json',
    '--address',
    temporalAddress(),
    '--task-queue',
    taskQueue,
    '--config',
    configFile,
  ];
  let code: ExitCode;
  try {
    code = await planCommand.run(fullArgv, io);
  } catch (error) {
    // As the dispatcher reports what a command throws.
    code = reportError(error, 'plan', io);
  }
  return { code, plan: code === ExitCode.ok ? (JSON.parse(out) as CallPlan) : undefined, err };
}

const targetsOf = (planned: CallPlan | undefined) =>
  planned?.attempts.map(({ provider, model }) => `${provider}/${model}`);

test('a runtime route, an override and a deletion, planned with --runtime-routes', async () => {
  await harness.withWorker(async (switchyard, taskQueue) => {
    await switchyard.routes.set('canary', {
      targets: [
        { provider: 'anthropic', model: 'claude-secondary' },
        { provider: 'openai', model: 'gpt-secondary' },
      ],
    });
    await switchyard.routes.set('support', { targets: [{ provider: 'openai', model: 'gpt-secondary' }] });
    await switchyard.routes.delete('spare');

    const canary = await plan(taskQueue, ['--runtime-routes', '--route', 'canary']);
    expect(canary.err).toBe('');
    expect(canary.plan?.route).toBe('canary');
    expect(targetsOf(canary.plan)).toEqual(['anthropic/claude-secondary', 'openai/gpt-secondary']);

    const support = await plan(taskQueue, ['--runtime-routes', '--route', 'support']);
    expect(targetsOf(support.plan)).toEqual(['openai/gpt-secondary']);

    const spare = await plan(taskQueue, ['--runtime-routes', '--route', 'spare']);
    expect(spare.code).toBe(ExitCode.usage);
    expect(spare.err).toContain('unknown route "spare"');

    // Without the flag, the config file alone: the override is not seen and the runtime route is unknown.
    const fromFile = await plan(taskQueue, ['--route', 'support']);
    expect(targetsOf(fromFile.plan)).toEqual(['openai/gpt-primary', 'anthropic/claude-primary']);
    const unknown = await plan(taskQueue, ['--route', 'canary']);
    expect(unknown.code).toBe(ExitCode.usage);
    expect(unknown.err).toContain(
      'unknown route "canary" (configured: support, spare); a route set at runtime is planned with --runtime-routes',
    );
  });
});

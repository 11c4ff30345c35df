// `switchyard routes` on a real dev server: set from a file and from stdin, list, show the audit trail, delete.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RouteDetails } from '../../src/client/routes';
import type { CommandIo } from '../../src/cli/command-io';
import type { Command } from '../../src/cli/command';
import { callCommand } from '../../src/cli/commands/call';
import { routesCommand } from '../../src/cli/commands/routes';
import { ExitCode } from '../../src/cli/exit-codes';
import { reportError } from '../../src/cli/report-error';
import { startHarness, type Harness } from '../support/harness';
import { temporalAddress } from '../support/temporal';

let harness: Harness;
let folder: string;
let configFile: string;
beforeAll(async () => {
  harness = await startHarness();
  folder = mkdtempSync(path.join(tmpdir(), 'switchyard-routes-cli-'));
  configFile = path.join(folder, 'switchyard.config.json');
  writeFileSync(configFile, JSON.stringify(harness.config));
});
afterAll(async () => harness?.close());

/** Runs `switchyard routes <argv>` (or `command`) in-process against the dev server, the harness's config and `taskQueue`. */
async function routes(
  taskQueue: string,
  argv: readonly string[],
  stdinText?: string,
  command: Command = routesCommand,
) {
  let out = '';
  let err = '';
  const io: CommandIo = {
    stdout: { write: (text: string) => (out += text) },
    stderr: { write: (text: string) => (err += text) },
    stdin: {
      isTTY: stdinText === undefined,
      async *[Symbol.asyncIterator]() {
        if (stdinText === undefined) throw new Error('stdin must not be read');
        yield stdinText;
      },
    },
  };
  const fullArgv = [
    ...argv,
    '--address',
    temporalAddress(),
    '--task-queue',
    taskQueue,
    '--config',
    configFile,
  ];
  let code: ExitCode;
  try {
    code = await command.run(fullArgv, io);
  } catch (error) {
    // As the dispatcher reports what a command throws.
    code = reportError(error, command.name, io);
  }
  return { code, out, err };
}

test('set from a file and from stdin, list, show the audit trail, refusals, delete', async () => {
  const specFile = path.join(folder, 'cheap.json');
  writeFileSync(
    specFile,
    JSON.stringify({ targets: [{ provider: 'anthropic', model: 'claude-secondary', retries: 1 }] }),
  );
  const keysFile = path.join(folder, 'keys.json');
  writeFileSync(
    keysFile,
    JSON.stringify({
      version: 1,
      keys: [
        {
          id: '0123456789ab',
          sha256: '0'.repeat(64),
          routes: ['cheap'],
          label: 'docs team',
          createdAt: '2026-01-01T00:00:00.000Z',
        },
      ],
    }),
  );

  await harness.withWorker(async (_switchyard, taskQueue) => {
    const set = await routes(taskQueue, ['set', 'cheap', '--spec', specFile, '--by', 'carol']);
    expect(set).toMatchObject({ code: ExitCode.ok, out: 'route cheap set: version 1\n' });

    const overCap = {
      targets: [
        { provider: 'openai', model: 'gpt-primary', retries: 9 },
        { provider: 'openai', model: 'gpt-secondary', retries: 1 },
      ],
    };
    const refused = await routes(taskQueue, ['set', 'cheap', '--spec', '-'], JSON.stringify(overCap));
    expect(refused.code).toBe(ExitCode.usage);
    expect(refused.err).toContain('invalid request at spec.targets');
    expect(refused.err).toContain('up to 12 attempts in total');

    const fromStdin = { targets: [{ provider: 'openai', model: 'gpt-secondary' }] };
    const again = await routes(taskQueue, ['set', 'cheap', '--spec', '-'], JSON.stringify(fromStdin));
    expect(again).toMatchObject({ code: ExitCode.ok, out: 'route cheap set: version 2\n' });
    // A route only set at runtime is called by name: the config lacks it, the runtime routes have it.
    const called = await routes(taskQueue, ['hi', '--route', 'cheap'], undefined, callCommand);
    expect(called.code).toBe(ExitCode.ok);
    expect(called.err).toContain('openai/gpt-secondary');

    const listed = await routes(taskQueue, ['list']);
    expect(listed.code).toBe(ExitCode.ok);
    expect(listed.out).toMatch(/^cheap +2 +runtime +openai\/gpt-secondary +\S+ by cli$/m);
    expect(listed.out).toMatch(/^support +0 +config +openai\/gpt-primary, anthropic\/claude-primary/m);

    const shown = await routes(taskQueue, ['show', 'cheap']);
    expect(shown.out).toMatch(/^version +2$/m);
    expect(shown.out).toMatch(/^ +1 +set +\S+ +carol +anthropic\/claude-secondary \(\+1\)$/m);
    expect(shown.out).toMatch(/^ +2 +set +\S+ +cli +openai\/gpt-secondary$/m);

    const inUse = await routes(taskQueue, ['delete', 'cheap', '--keys', keysFile]);
    expect(inUse.code).toBe(ExitCode.usage);
    expect(inUse.err).toContain(
      'route "cheap" is in use and cannot be deleted: gateway key 0123456789ab (docs team)',
    );
    const defaultRoute = await routes(taskQueue, ['delete', 'support', '--keys', keysFile]);
    expect(defaultRoute.err).toContain("the config's defaultRoute");

    const deleted = await routes(taskQueue, [
      'delete',
      'cheap',
      '--json',
      '--keys',
      path.join(folder, 'none.json'),
    ]);
    expect(deleted.code).toBe(ExitCode.ok);
    const details = JSON.parse(deleted.out) as RouteDetails;
    expect(details).toMatchObject({ name: 'cheap', version: 3, deleted: true });
    expect(details.history.map((entry) => entry.action)).toEqual(['set', 'set', 'delete']);
    expect((await routes(taskQueue, ['list'])).out).not.toMatch(/^cheap /m);
  });
});

test('bad arguments are refused before connecting', async () => {
  const missingSpec = await routes('unused', ['set', 'cheap']);
  expect(missingSpec.code).toBe(ExitCode.usage);
  expect(missingSpec.err).toContain('"routes set" needs --spec');
  const unknown = await routes('unused', ['rename', 'cheap']);
  expect(unknown.err).toContain('unknown action "rename"');
  const notJson = await routes('unused', ['set', 'cheap', '--spec', '-'], 'targets: []');
  expect(notJson.err).toContain('--spec - (stdin) is not valid JSON');
});

// `switchyard schedule` end to end on a real dev server: create from a file, trigger, results, pause, update, delete.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CommandIo } from '../../src/cli/command-io';
import { ExitCode } from '../../src/cli/exit-codes';
import { main } from '../../src/cli/main';
import { eventually } from '../support/eventually';
import { startHarness, type Harness } from '../support/harness';
import { temporalAddress, uniqueName } from '../support/temporal';

let harness: Harness;
let configFile: string;
let folder: string;
beforeAll(async () => {
  harness = await startHarness();
  folder = mkdtempSync(path.join(tmpdir(), 'switchyard-schedule-cli-'));
  configFile = path.join(folder, 'switchyard.config.json');
  writeFileSync(configFile, JSON.stringify(harness.config));
});
afterAll(async () => harness?.close());
beforeEach(() => harness.fake.reset());

const terminalStdin: CommandIo['stdin'] = {
  isTTY: true,
  [Symbol.asyncIterator]() {
    throw new Error('stdin must not be read');
  },
};

async function switchyard(taskQueue: string, argv: readonly string[]) {
  let out = '';
  let err = '';
  const io: CommandIo = {
    stdout: { write: (text: string) => (out += text) },
    stderr: { write: (text: string) => (err += text) },
    stdin: terminalStdin,
  };
  const code = await main(
    [...argv, '--address', temporalAddress(), '--task-queue', taskQueue, '--config', configFile],
    io,
  );
  return { code, out, err };
}

test('create from a prompt file, trigger, list the results, pause, update and delete', async () => {
  const id = uniqueName('cli');
  const promptFile = path.join(folder, 'digest.md');
  writeFileSync(promptFile, 'Write the weekly digest\nof everything that shipped.');
  await harness.withWorker(async (_switchyard, taskQueue) => {
    try {
      const created = await switchyard(taskQueue, [
        'schedule',
        'create',
        id,
        '--cron',
        '0 9 * * 1-5',
        '--timezone',
        'Europe/Berlin',
        '--file',
        promptFile,
        '--route',
        'support',
        '--budget',
        'team-docs',
        '--note',
        'weekday digest',
        '--catchup-window',
        '5m',
        '--json',
      ]);
      expect(created.err).toBe('');
      expect(created.code).toBe(ExitCode.ok);
      expect(JSON.parse(created.out)).toMatchObject({
        id,
        cron: '0 9 * * 1-5',
        timezone: 'Europe/Berlin',
        overlap: 'skip',
        catchupWindow: 300_000,
        budget: 'team-docs',
        note: 'weekday digest',
        call: { route: 'support', patienceMs: 1_800_000 },
      });

      const described = await switchyard(taskQueue, ['schedule', 'describe', id]);
      expect(described.code).toBe(ExitCode.ok);
      expect(described.out).toMatch(/^when +cron 0 9 \* \* 1-5 \(Europe\/Berlin\)$/m);
      expect(described.out).toMatch(/^prompt +Write the weekly digest$/m);
      expect(described.out).toMatch(/^patience +30m$/m);

      expect((await switchyard(taskQueue, ['schedule', 'trigger', id])).code).toBe(ExitCode.ok);
      const runs = await eventually(
        'the triggered run, finished',
        async () =>
          JSON.parse((await switchyard(taskQueue, ['schedule', 'results', id, '--json'])).out) as {
            status: string;
            answer?: { text: string };
          }[],
        (list) => list.length === 1 && list[0]!.status === 'COMPLETED',
      );
      expect(runs[0]!.answer?.text).toContain('Write the weekly digest');
      const table = await switchyard(taskQueue, ['schedule', 'results', id]);
      expect(table.out).toMatch(/ succeeded +openai\/gpt-primary +\d+\.\d{6} +switchyard-schedule-/);

      const paused = await switchyard(taskQueue, ['schedule', 'pause', id, '--note', 'holidays']);
      expect(paused.out).toBe(`schedule ${id} paused: holidays\n`);
      const listed = await switchyard(taskQueue, ['schedule', 'list']);
      expect(listed.out).toMatch(
        new RegExp(`^${id} +paused +cron 0 9 \\* \\* 1-5 \\(Europe/Berlin\\) +support `, 'm'),
      );

      const updated = await switchyard(taskQueue, [
        'schedule',
        'update',
        id,
        '--every',
        '2h',
        '--patience',
        '1h',
        '--json',
      ]);
      expect(updated.code).toBe(ExitCode.ok);
      expect(JSON.parse(updated.out)).toMatchObject({
        every: 7_200_000,
        paused: true,
        call: {
          patienceMs: 3_600_000,
          budget: 'team-docs',
          request: { messages: [{ content: expect.stringContaining('weekly digest') }] },
        },
      });

      const refused = await switchyard(taskQueue, ['schedule', 'update', id, '--cron', '0 9 * * 8']);
      expect(refused.code).toBe(ExitCode.usage);
      expect(refused.err).toContain('day of week 8 is out of range 0-7');
    } finally {
      const deleted = await switchyard(taskQueue, ['schedule', 'delete', id]);
      expect(deleted.code).toBe(ExitCode.ok);
    }
    const gone = await switchyard(taskQueue, ['schedule', 'describe', id]);
    expect(gone.code).toBe(ExitCode.usage);
    expect(gone.err).toContain(`no schedule "${id}"`);
  });
});

test('an invalid cron or an unknown route is refused with exit 2 and nothing is created', async () => {
  const id = uniqueName('cli-refused');
  const taskQueue = uniqueName('unpolled');
  const badCron = await switchyard(taskQueue, [
    'schedule',
    'create',
    id,
    '--cron',
    '0 9 * * MON-FRY',
    '--prompt',
    'x',
  ]);
  expect(badCron.code).toBe(ExitCode.usage);
  expect(badCron.err).toContain('invalid request at cron');
  expect(badCron.err).toContain('"FRY" is not a day of week value');

  const badRoute = await switchyard(taskQueue, [
    'schedule',
    'create',
    id,
    '--every',
    '1h',
    '--prompt',
    'x',
    '--route',
    'nope',
  ]);
  expect(badRoute.code).toBe(ExitCode.usage);
  expect(badRoute.err).toContain('unknown route "nope"');

  expect((await switchyard(taskQueue, ['schedule', 'describe', id])).code).toBe(ExitCode.usage);
});

// The `switchyard` dispatcher: top-level help, command lookup, global options before the command, exit codes.
import { ExitCode } from '../../../src/cli/exit-codes';
import { run, writeTempFile } from './cli-test-io';

const COMMANDS = ['call', 'plan', 'show', 'worker'] as const;
const GLOBAL_FLAGS = ['--address', '--namespace', '--task-queue', '--config', '--help'];

test('the exit codes are the documented, stable numbers', () => {
  expect(ExitCode).toEqual({
    ok: 0,
    callFailed: 1,
    usage: 2,
    config: 3,
    temporalUnreachable: 4,
    interrupted: 130,
  });
});

test('--help lists every command, the global options and the exit codes', async () => {
  for (const flag of ['--help', '-h']) {
    const { code, out, err } = await run([flag]);
    expect(code).toBe(0);
    expect(err).toBe('');
    expect(out).toMatch(/^Usage: switchyard <command> \[options\]/);
    for (const command of COMMANDS) expect(out).toMatch(new RegExp(`^  ${command} +\\S`, 'm'));
    for (const global of GLOBAL_FLAGS) expect(out).toContain(global);
    expect(out).toContain('Exit codes: 0 ok, 1 the routed call failed, 2 bad arguments');
  }
});

test('no command prints the help on stderr and exits 2', async () => {
  const { code, out, err } = await run([]);
  expect(code).toBe(ExitCode.usage);
  expect(out).toBe('');
  expect(err).toMatch(/^Usage: switchyard <command>/);
});

test.each(COMMANDS)('%s --help and -h print usage, flags and examples, and exit 0', async (command) => {
  const long = await run([command, '--help']);
  const short = await run([command, '-h']);
  expect(long.code).toBe(0);
  expect(long.err).toBe('');
  expect(long.out).toMatch(new RegExp(`^Usage: switchyard ${command}`));
  expect(long.out).toContain('Examples:');
  for (const global of GLOBAL_FLAGS) expect(long.out).toContain(global);
  expect(short).toEqual(long);
  // `help <command>` is the same text.
  expect(await run(['help', command])).toEqual(long);
});

test('the call help documents every call flag', async () => {
  const { out } = await run(['call', '--help']);
  for (const flag of [
    '--file <path>',
    '--system <text>',
    '--route <name|json>',
    '--budget <scope>',
    '--max-output-tokens <n>',
    '--temperature <t>',
    '--deadline-ms <ms>',
    '--idempotency-key <key>',
    '--stream',
    '--json',
  ]) {
    expect(out).toContain(flag);
  }
});

test('help wins over arguments that would otherwise be refused', async () => {
  const { code, out } = await run(['call', '--bogus', '--max-output-tokens', 'x', '--help']);
  expect(code).toBe(0);
  expect(out).toMatch(/^Usage: switchyard call/);
});

test('an unknown command exits 2, lists the commands and points at --help', async () => {
  const { code, out, err } = await run(['cal', 'hello']);
  expect(code).toBe(ExitCode.usage);
  expect(out).toBe('');
  expect(err).toContain(
    'unknown command "cal" (commands: call, plan, show, breakers, ledger, routes, schedule, worker, serve, keys, codec-server, help)',
  );
  expect(err).toContain('Run "switchyard --help" for usage.');
});

test('help for an unknown command exits 2', async () => {
  const { code, err } = await run(['help', 'nope']);
  expect(code).toBe(ExitCode.usage);
  expect(err).toContain('no help for "nope"');
});

test('an unknown option before the command exits 2 and names it', async () => {
  const { code, err } = await run(['--verbose', 'call', 'hi']);
  expect(code).toBe(ExitCode.usage);
  expect(err).toContain('unknown option --verbose before the command');
});

test('a global option before the command without its value exits 2 and names it', async () => {
  const { code, err } = await run(['--config']);
  expect(code).toBe(ExitCode.usage);
  expect(err).toContain('--config needs a value');
});

test('global options before the command reach the command', async () => {
  const missing = writeTempFile('unused.json', '{}').replace('unused.json', 'missing.json');
  for (const argv of [
    ['--config', missing, 'plan'],
    [`--config=${missing}`, 'plan'],
  ]) {
    const { code, err } = await run(argv);
    expect(code).toBe(ExitCode.config);
    expect(err).toContain(missing);
  }
});

test('a global option given both before and after the command is refused as repeated', async () => {
  const { code, err } = await run(['--address', 'a:1', 'plan', '--address', 'b:2']);
  expect(code).toBe(ExitCode.usage);
  expect(err).toContain('--address is given more than once');
});

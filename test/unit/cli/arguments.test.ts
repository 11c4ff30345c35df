// Every bad command line exits 2 with a message naming the flag or argument, before any connection is tried.
import type { CommandIo } from '../../../src/cli/command-io';
import { ExitCode } from '../../../src/cli/exit-codes';
import { pipedStdin, run, terminalStdin, writeTempFile } from './cli-test-io';

const promptFile = writeTempFile('prompt.txt', 'What is a circuit breaker?');
const emptyFile = writeTempFile('empty.txt', ' \n');

interface BadCase {
  readonly argv: readonly string[];
  /** Text the message must contain: the flag, the argument, and what is wrong with it. */
  readonly message: string;
  readonly stdin?: CommandIo['stdin'];
}

const BAD_CALLS: readonly BadCase[] = [
  {
    argv: ['--max-output-tokens', 'abc', 'hi'],
    message: '--max-output-tokens must be a positive integer, got "abc"',
  },
  {
    argv: ['--max-output-tokens', '0', 'hi'],
    message: '--max-output-tokens must be a positive integer, got "0"',
  },
  {
    argv: ['--max-output-tokens', '1.5', 'hi'],
    message: '--max-output-tokens must be a positive integer, got "1.5"',
  },
  {
    argv: ['--max-output-tokens=-3', 'hi'],
    message: '--max-output-tokens must be a positive integer, got "-3"',
  },
  { argv: ['--deadline-ms', '1e3', 'hi'], message: '--deadline-ms must be a positive integer, got "1e3"' },
  { argv: ['--temperature', 'warm', 'hi'], message: '--temperature must be a number, got "warm"' },
  { argv: ['--temperature', '0x1', 'hi'], message: '--temperature must be a number, got "0x1"' },
  { argv: ['--temperature=', 'hi'], message: '--temperature must be a number, got ""' },
  { argv: ['--route', '', 'hi'], message: '--route must not be empty' },
  {
    argv: ['--route', '{"targets": [', 'hi'],
    message: '--route looks like an inline route but is not valid JSON',
  },
  { argv: ['--budget', ' ', 'hi'], message: '--budget must not be empty' },
  { argv: ['--idempotency-key', '', 'hi'], message: '--idempotency-key must not be empty' },
  { argv: ['--address', '', 'hi'], message: '--address must not be empty' },
  { argv: ['--namespace=', 'hi'], message: '--namespace must not be empty' },
  { argv: ['--task-queue', '', 'hi'], message: '--task-queue must not be empty' },
  { argv: ['--bogus', 'hi'], message: 'unknown option --bogus' },
  { argv: ['-x', 'hi'], message: 'unknown option -x' },
  { argv: ['hi', '--route'], message: '--route needs a value' },
  {
    argv: ['--temperature', '-1', 'hi'],
    message: '--temperature needs a value; to pass one that starts with "-", write --temperature=<value>',
  },
  { argv: ['--json=yes', 'hi'], message: '--json does not take a value' },
  { argv: ['--route', 'a', '--route', 'b', 'hi'], message: '--route is given more than once' },
  {
    argv: ['one', 'two'],
    message: 'expected one prompt argument, got 2; quote a prompt that contains spaces',
  },
  { argv: ['hi', '--file', promptFile], message: 'give the prompt as an argument or with --file, not both' },
  {
    argv: ['--file', '/nonexistent/prompt.txt'],
    message: '--file cannot be read: /nonexistent/prompt.txt: ENOENT',
  },
  { argv: ['--file', emptyFile], message: `the prompt in ${emptyFile} is empty` },
  { argv: [], message: 'no prompt: pass it as an argument, with --file <path>, or on stdin' },
  { argv: ['   '], message: 'the prompt argument is empty' },
  { argv: ['-'], message: 'the prompt on stdin is empty', stdin: pipedStdin('') },
  // No argument and a pipe on stdin: the pipe is read (and here holds only blanks).
  { argv: [], message: 'the prompt on stdin is empty', stdin: pipedStdin('  \n') },
];

test.each(BAD_CALLS)('call $argv exits 2: $message', async ({ argv, message, stdin }) => {
  const { code, out, err } = await run(['call', ...argv], stdin ?? terminalStdin);
  expect(code).toBe(ExitCode.usage);
  expect(out).toBe('');
  expect(err).toContain(`switchyard call: ${message}`);
  expect(err).toContain('Run "switchyard call --help" for usage.');
});

// The request schema's ranges: refused before connecting, naming the field and the flag that sets it.
test.each([
  { argv: ['--temperature', '5', 'hi'], field: 'request.temperature', flag: '--temperature' },
  {
    argv: ['--max-output-tokens', '2000000', 'hi'],
    field: 'request.maxOutputTokens',
    flag: '--max-output-tokens',
  },
  { argv: ['--route', '{"targets": []}', 'hi'], field: 'route.targets', flag: '--route' },
  { argv: ['--budget', 'b'.repeat(201), 'hi'], field: 'budget', flag: '--budget' },
])('call with $field out of range exits 2 naming the field and $flag', async ({ argv, field, flag }) => {
  const { code, out, err } = await run(['call', ...argv]);
  expect(code).toBe(ExitCode.usage);
  expect(out).toBe('');
  expect(err).toContain(`switchyard call: invalid request at ${field} (${flag}):`);
});

const BAD_OTHERS: readonly BadCase[] = [
  {
    argv: ['plan', '--max-output-tokens', 'many'],
    message: '--max-output-tokens must be a positive integer, got "many"',
  },
  { argv: ['plan', '--deadline-ms', '-5'], message: '--deadline-ms needs a value' },
  { argv: ['plan', '--config', ''], message: '--config must not be empty' },
  { argv: ['plan', 'a', 'b'], message: 'expected one prompt argument, got 2' },
  { argv: ['plan', '--verbose'], message: 'unknown option --verbose' },
  { argv: ['show'], message: 'missing the <workflow-id> to show' },
  { argv: ['show', 'a', 'b'], message: 'expected one workflow id, got 2' },
  { argv: ['show', '--route', 'x', 'a'], message: 'unknown option --route' },
  { argv: ['worker', 'extra'], message: 'unexpected argument "extra"' },
  { argv: ['worker', '--json'], message: 'unknown option --json' },
  { argv: ['worker', '--task-queue'], message: '--task-queue needs a value' },
];

test.each(BAD_OTHERS)('$argv exits 2: $message', async ({ argv, message }) => {
  const { code, out, err } = await run(argv);
  expect(code).toBe(ExitCode.usage);
  expect(out).toBe('');
  expect(err).toContain(`switchyard ${argv[0]}: ${message}`);
  expect(err).toContain(`Run "switchyard ${argv[0]} --help" for usage.`);
});

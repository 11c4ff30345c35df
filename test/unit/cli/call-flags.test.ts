// `call` and `plan` take --patience (a duration, as schedules read it) and --max-cost-usd, refused by name when bad.
import {
  buildCallInput,
  CALL_FLAGS,
  readCallFlags,
  readRequestFlags,
  REQUEST_FLAGS,
} from '../../../src/cli/request-flags';
import { parseCommandArguments } from '../../../src/cli/parse-arguments';
import { ExitCode } from '../../../src/cli/exit-codes';
import { run, TEST_CONFIG, writeTempFile } from './cli-test-io';

const NOWHERE = ['--address', '127.0.0.1:1'];
const configFile = writeTempFile('switchyard.config.json', TEST_CONFIG);

function callInput(argv: readonly string[]) {
  const parsed = parseCommandArguments(argv, { ...REQUEST_FLAGS, ...CALL_FLAGS }, { allowPositionals: true });
  return buildCallInput(readRequestFlags(parsed), 'hi', readCallFlags(parsed));
}

test('--patience takes a duration like a schedule and --max-cost-usd a number of USD', () => {
  expect(callInput(['--patience', '1h30m', '--max-cost-usd', '0.05'])).toMatchObject({
    patienceMs: 5_400_000,
    maxCostUsd: 0.05,
  });
  expect(callInput(['--patience', '90000'])).toMatchObject({ patienceMs: 90_000 });
  expect(callInput(['--patience', '0s'])).toMatchObject({ patienceMs: 0 });
  const plain = callInput([]);
  expect('patienceMs' in plain || 'maxCostUsd' in plain).toBe(false);
});

test.each([
  { argv: ['--patience', 'soon'], says: '--patience: ' },
  { argv: ['--patience', '-5m'], says: '--patience needs a value' },
  { argv: ['--max-cost-usd', 'cheap'], says: '--max-cost-usd must be a number, got "cheap"' },
])('call $argv exits 2: $says', async ({ argv, says }) => {
  const { code, out, err } = await run(['call', 'hi', '--config', configFile, ...argv, ...NOWHERE]);
  expect({ code, out }).toEqual({ code: ExitCode.usage, out: '' });
  expect(err).toContain(`switchyard call: ${says}`);
});

test.each([
  { argv: ['--max-cost-usd', '0'], field: 'maxCostUsd', flag: '--max-cost-usd' },
  { argv: ['--max-cost-usd', '5000000'], field: 'maxCostUsd', flag: '--max-cost-usd' },
  { argv: ['--patience', '60d'], field: 'patienceMs', flag: '--patience' },
])('call $argv is out of range: exit 2 naming $field and $flag', async ({ argv, field, flag }) => {
  const { code, err } = await run(['call', 'hi', '--config', configFile, ...argv, ...NOWHERE]);
  expect(code).toBe(ExitCode.usage);
  expect(err).toContain(`switchyard call: invalid request at ${field} (${flag}):`);
});

test('call --help lists both flags', async () => {
  const { out } = await run(['call', '--help']);
  expect(out).toContain('--patience <duration>');
  expect(out).toContain('--max-cost-usd <usd>');
});

// The bin shim, spawned the way a user runs it: `node bin/switchyard.js …`, exit codes included.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import type { CallPlan } from '../../../src/routing/call-plan';
import { TEST_CONFIG, writeTempFile } from './cli-test-io';

const BIN = path.resolve(__dirname, '../../../bin/switchyard.js');

function switchyard(...argv: string[]) {
  // `input: ''` closes stdin, as a script would; the shim must still never wait on it.
  const result = spawnSync(process.execPath, [BIN, ...argv], {
    encoding: 'utf8',
    input: '',
    timeout: 30_000,
  });
  return { code: result.status, out: result.stdout, err: result.stderr };
}

test('--help exits 0 with the usage on stdout', () => {
  const { code, out, err } = switchyard('--help');
  expect({ code, err }).toEqual({ code: 0, err: '' });
  expect(out).toMatch(/^Usage: switchyard <command> \[options\]/);
});

test('plan --json prints the plan from the config file and exits 0', () => {
  const config = writeTempFile('switchyard.config.json', TEST_CONFIG);
  const { code, out, err } = switchyard('plan', '--json', '--config', config, '--route', 'cheap');
  expect({ code, err }).toEqual({ code: 0, err: '' });
  const plan = JSON.parse(out) as CallPlan;
  expect(plan.attempts.map((attempt) => `${attempt.provider}/${attempt.model}`)).toEqual([
    'openai/gpt-4o-mini',
  ]);
});

test('a bad flag sets exit code 2 and names the flag on stderr', () => {
  const { code, out, err } = switchyard('call', '--max-output-tokens', 'abc', 'hello');
  expect(code).toBe(2);
  expect(out).toBe('');
  expect(err).toContain('--max-output-tokens must be a positive integer, got "abc"');
});

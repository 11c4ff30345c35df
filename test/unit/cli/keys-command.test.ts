// `switchyard keys` and `switchyard serve`'s argument checks, in-process: no server is needed for either.
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { ExitCode } from '../../../src/cli/exit-codes';
import { KeyStore } from '../../../src/gateway/key-store';
import { run, TEST_CONFIG, writeTempFile } from './cli-test-io';

function files() {
  const config = writeTempFile('switchyard.config.json', TEST_CONFIG);
  const keys = path.join(path.dirname(config), 'keys.json');
  return { config, keys, flags: ['--config', config, '--keys', keys] };
}

test('create prints the key once on stdout; the file keeps its hash, routes and budget; list shows no secret', async () => {
  const { keys, flags } = files();
  const created = await run([
    'keys',
    'create',
    '--routes',
    'support',
    '--budget',
    'team-a',
    '--label',
    'bot',
    ...flags,
  ]);
  expect(created.code).toBe(ExitCode.ok);
  const key = created.out.trim();
  expect(key).toMatch(/^sy_[0-9a-f]{12}_/);
  expect(created.err).toContain('only time the key is shown');
  expect(new KeyStore({ file: keys }).verify(key)).toMatchObject({ routes: ['support'], budget: 'team-a' });
  expect(readFileSync(keys, 'utf8')).not.toContain(key);

  const listed = await run(['keys', 'list', ...flags]);
  expect(listed.code).toBe(ExitCode.ok);
  expect(listed.out).toContain(key.slice(3, 15));
  expect(listed.out).toContain('team-a');
  expect(listed.out).not.toContain(key);
  const json = JSON.parse((await run(['keys', 'list', '--json', ...flags])).out) as Record<string, unknown>[];
  expect(json[0]).not.toHaveProperty('sha256');
});

test('revoke refuses the key from then on; an unknown id is a usage error', async () => {
  const { keys, flags } = files();
  const key = (await run(['keys', 'create', '--routes', '*', ...flags])).out.trim();
  const id = key.slice(3, 15);
  expect((await run(['keys', 'revoke', id, ...flags])).code).toBe(ExitCode.ok);
  expect(new KeyStore({ file: keys }).verify(key)).toBeUndefined();
  const unknown = await run(['keys', 'revoke', '000000000000', ...flags]);
  expect(unknown.code).toBe(ExitCode.usage);
  expect(unknown.err).toContain('no key with id "000000000000"');
});

test.each([
  [['keys', 'create'], '--routes is required'],
  [['keys', 'create', '--routes', 'nope'], 'no route named nope in the config'],
  [['keys'], 'name an action'],
  [['keys', 'rotate'], 'unknown action "rotate"'],
  [['serve', '--host', '0.0.0.0'], '--host 0.0.0.0 needs --relay-url'],
  [['serve', '--relay-url', 'http://user:secret@gateway:4000'], '--relay-url must be'],
  [['serve', '--port', '99999'], '--port must be at most 65535'],
  [['serve', '--call-timeout-ms', 'soon'], '--call-timeout-ms must be a positive integer'],
])('%j is refused: %s', async (argv, message) => {
  const { flags } = files();
  const { code, err } = await run([...argv, ...flags]);
  expect(code).toBe(ExitCode.usage);
  expect(err).toContain(message);
});

test('with every key required to carry a budget, create without one is refused; a ceiling on output is stored', async () => {
  const { keys, flags } = files();
  process.env.SWITCHYARD_GATEWAY_REQUIRE_BUDGET = '1';
  try {
    const refused = await run(['keys', 'create', '--routes', 'support', ...flags]);
    expect(refused.code).toBe(ExitCode.usage);
    expect(refused.err).toContain('--budget is required');
    const made = await run([
      'keys',
      'create',
      '--routes',
      'support',
      '--budget',
      'team-a',
      '--max-output-tokens',
      '256',
      ...flags,
    ]);
    expect(made.code).toBe(ExitCode.ok);
    expect(new KeyStore({ file: keys }).verify(made.out.trim())).toMatchObject({
      budget: 'team-a',
      maxOutputTokens: 256,
    });
  } finally {
    delete process.env.SWITCHYARD_GATEWAY_REQUIRE_BUDGET;
  }
});

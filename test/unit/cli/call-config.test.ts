// `switchyard call` reads the config like `plan` does and refuses, before connecting, what the config refuses.
import { ExitCode } from '../../../src/cli/exit-codes';
import { run, TEST_CONFIG, writeTempFile } from './cli-test-io';

// Nothing listens here: a command that got as far as connecting would exit 4 (Temporal unreachable), so exit 2
// or 3 proves it stopped before any connection was tried.
const NOWHERE = ['--address', '127.0.0.1:1'];
const configFile = writeTempFile('switchyard.config.json', TEST_CONFIG);

afterEach(() => {
  delete process.env.SWITCHYARD_CONFIG;
});

test.each([
  {
    name: 'missing',
    file: () => configFile.replace('switchyard.config.json', 'absent.json'),
    says: 'ENOENT',
  },
  { name: 'empty', file: () => writeTempFile('empty.json', ''), says: 'is not valid JSON' },
  { name: 'null', file: () => writeTempFile('null.json', 'null'), says: 'Invalid Switchyard config' },
  { name: 'not JSON', file: () => writeTempFile('broken.json', '{ "routes": '), says: 'is not valid JSON' },
  {
    name: 'mistyped',
    file: () => writeTempFile('typo.json', { ...TEST_CONFIG, routes: { r: { targets: [], maxAttempt: 2 } } }),
    says: 'did you mean "maxAttempts"?',
  },
])('call with a $name --config exits 3 without connecting', async ({ file, says }) => {
  const path = file();
  const { code, out, err } = await run(['call', 'hi', '--config', path, ...NOWHERE]);
  expect({ code, out }).toEqual({ code: ExitCode.config, out: '' });
  expect(err).toContain(path);
  expect(err).toContain(says);
});

test('a config named by SWITCHYARD_CONFIG must load too', async () => {
  process.env.SWITCHYARD_CONFIG = writeTempFile('null.json', 'null');
  const { code } = await run(['call', 'hi', ...NOWHERE]);
  expect(code).toBe(ExitCode.config);
});

test('plan refuses a route the config lacks before connecting; call looks it up among the runtime routes', async () => {
  const planned = await run(['plan', 'hi', '--config', configFile, '--route', 'nope', ...NOWHERE]);
  expect({ code: planned.code, out: planned.out }).toEqual({ code: ExitCode.usage, out: '' });
  expect(planned.err).toContain(
    'switchyard plan: invalid request at route (--route): unknown route "nope" (configured: support, cheap)',
  );
  // A route set at runtime is known only to Temporal: call connects to ask (here nothing listens).
  const called = await run(['call', 'hi', '--config', configFile, '--route', 'nope', ...NOWHERE]);
  expect(called.code).toBe(ExitCode.temporalUnreachable);
}, 60_000);

test.each([
  {
    argv: ['--route', '{"targets":[{"provider":"openai","model":"gpt-9"}]}'],
    says: 'invalid request at route.targets.0.model (--route): provider "openai" has no model "gpt-9"',
  },
])('call $argv exits 2 before connecting, like plan', async ({ argv, says }) => {
  for (const command of ['call', 'plan']) {
    const { code, out, err } = await run([command, 'hi', '--config', configFile, ...argv, ...NOWHERE]);
    expect({ command, code, out }).toEqual({ command, code: ExitCode.usage, out: '' });
    expect(err).toContain(`switchyard ${command}: ${says}`);
  }
});

test('a route that requires a budget refuses a call without one before connecting', async () => {
  const strict = writeTempFile('strict.json', {
    ...TEST_CONFIG,
    routes: {
      ...TEST_CONFIG.routes,
      paid: { targets: [{ provider: 'openai', model: 'gpt-4o-mini' }], requireBudget: true },
    },
  });
  const { code, err } = await run(['call', 'hi', '--config', strict, '--route', 'paid', ...NOWHERE]);
  expect(code).toBe(ExitCode.usage);
  expect(err).toContain('invalid request at budget (--budget): route paid requires a budget scope');
});

test('a valid config and request get as far as connecting', async () => {
  const { code, err } = await run(['call', 'hi', '--config', configFile, '--route', 'cheap', ...NOWHERE]);
  expect(code).toBe(ExitCode.temporalUnreachable);
  expect(err).toContain('cannot reach Temporal at 127.0.0.1:1');
}, 60_000);

// `switchyard plan` against a config file in a tmp dir: the table, the JSON, prompt sources and config errors.
import type { CallPlan } from '../../../src/routing/call-plan';
import { ExitCode } from '../../../src/cli/exit-codes';
import { PLACEHOLDER_PROMPT } from '../../../src/cli/commands/plan';
import { idlePipeStdin, pipedStdin, run, TEST_CONFIG, writeTempFile } from './cli-test-io';

const configFile = writeTempFile('switchyard.config.json', TEST_CONFIG);

async function planJson(argv: readonly string[], stdin = idlePipeStdin): Promise<CallPlan> {
  const { code, out, err } = await run(['plan', '--config', configFile, '--json', ...argv], stdin);
  expect({ code, err }).toEqual({ code: 0, err: '' });
  return JSON.parse(out) as CallPlan;
}

test('--json prints the plan: targets in order with retries, the tighter deadline, the token cap', async () => {
  const plan = await planJson(['--max-output-tokens', '200', '--deadline-ms', '30000', 'Hello there']);
  expect(plan.route).toBe('support');
  expect(plan.maxOutputTokens).toBe(200);
  expect(plan.deadlineMs).toBe(30_000); // the route says 90 000
  expect(
    plan.attempts.map(({ provider, model, retry, timeoutMs }) => ({ provider, model, retry, timeoutMs })),
  ).toEqual([
    { provider: 'anthropic', model: 'claude-haiku-4-5', retry: 0, timeoutMs: 60_000 },
    { provider: 'anthropic', model: 'claude-haiku-4-5', retry: 1, timeoutMs: 60_000 },
    { provider: 'openai', model: 'gpt-4o-mini', retry: 0, timeoutMs: 20_000 },
  ]);
  // Output dominates the bound: 200 tokens at 5 USD per million is 0.001 USD on the Anthropic target.
  expect(plan.attempts[0]!.boundNanoUsd).toBeGreaterThan(1_000_000);
});

test('the table shows each attempt and its bound in USD with six decimals, and the worst case', async () => {
  const plan = await planJson(['--max-output-tokens', '200']);
  const { code, out } = await run(
    ['plan', '--config', configFile, '--max-output-tokens', '200'],
    idlePipeStdin,
  );
  expect(code).toBe(0);
  expect(out).toMatch(/^route +support$/m);
  expect(out).toMatch(/^max output +200 tokens$/m);
  expect(out).toMatch(/^deadline +90000 ms$/m);
  for (const attempt of plan.attempts) {
    const bound = (attempt.boundNanoUsd / 1e9).toFixed(6);
    expect(out).toMatch(
      new RegExp(
        `^${attempt.attempt} +${attempt.provider}/${attempt.model} +${attempt.retry} +${attempt.timeoutMs} +${bound}$`,
        'm',
      ),
    );
  }
  const worstCase = plan.attempts.reduce((sum, attempt) => sum + attempt.boundNanoUsd, 0);
  expect(out).toMatch(new RegExp(`^worst case +${(worstCase / 1e9).toFixed(6)} USD`, 'm'));
  expect(out).toMatch(new RegExp(`^input bound +${plan.estimatedInputTokens} tokens at most`, 'm'));
});

test('--route picks a configured route or takes an inline one as JSON', async () => {
  expect((await planJson(['--route', 'cheap'])).attempts).toHaveLength(1);
  const inline = await planJson([
    '--route',
    '{"targets":[{"provider":"openai","model":"gpt-4o-mini","retries":2}]}',
  ]);
  expect(inline.route).toBe('inline');
  expect(inline.attempts.map((attempt) => attempt.retry)).toEqual([0, 1, 2]);
});

test('the prompt sizes the estimate; without one a placeholder is used and an idle pipe is not read', async () => {
  const longPrompt = 'How do circuit breakers work? '.repeat(100);
  const placeholder = await planJson([]);
  const fromStdin = await planJson(['-'], pipedStdin(longPrompt));
  const fromFile = await planJson(['--file', writeTempFile('prompt.txt', longPrompt)]);
  const fromArgument = await planJson([longPrompt]);
  expect(await planJson([PLACEHOLDER_PROMPT])).toEqual(placeholder);
  expect(fromStdin.estimatedInputTokens).toBeGreaterThan(placeholder.estimatedInputTokens + 900);
  expect(fromFile).toEqual(fromStdin);
  expect(fromArgument).toEqual(fromStdin);
});

test('the call-only flags are accepted, so a call line can be planned by changing the verb', async () => {
  const plan = await planJson(['--stream', '--idempotency-key', 'job-1', '--budget', 'team', 'hi']);
  expect(plan.attempts).toHaveLength(3);
});

test('the config comes from SWITCHYARD_CONFIG when --config is absent', async () => {
  const previous = process.env.SWITCHYARD_CONFIG;
  process.env.SWITCHYARD_CONFIG = configFile;
  try {
    const { code, out } = await run(['plan', '--route', 'cheap'], idlePipeStdin);
    expect(code).toBe(0);
    expect(out).toMatch(/^1 +openai\/gpt-4o-mini/m);
  } finally {
    if (previous === undefined) delete process.env.SWITCHYARD_CONFIG;
    else process.env.SWITCHYARD_CONFIG = previous;
  }
});

test('an unknown route exits 2 naming the route, the configured ones and --route', async () => {
  const { code, out, err } = await run(['plan', '--config', configFile, '--route', 'nope'], idlePipeStdin);
  expect(code).toBe(ExitCode.usage);
  expect(out).toBe('');
  expect(err).toContain(
    'invalid request at route (--route): unknown route "nope" (configured: support, cheap)',
  );
});

test('an inline route naming a model the config lacks exits 2 naming the field', async () => {
  const route = '{"targets":[{"provider":"openai","model":"gpt-9"}]}';
  const { code, err } = await run(['plan', '--config', configFile, '--route', route], idlePipeStdin);
  expect(code).toBe(ExitCode.usage);
  expect(err).toContain(
    'invalid request at route.targets.0.model (--route): provider "openai" has no model "gpt-9"',
  );
});

test.each([
  {
    name: 'missing',
    file: () => configFile.replace('switchyard.config.json', 'absent.json'),
    message: 'ENOENT',
  },
  {
    name: 'not JSON',
    file: () => writeTempFile('broken.json', '{ "providers": '),
    message: 'is not valid JSON',
  },
  {
    name: 'invalid',
    file: () =>
      writeTempFile('invalid.json', {
        ...TEST_CONFIG,
        routes: { x: { targets: [{ provider: 'nobody', model: 'm' }] } },
      }),
    message: 'unknown provider "nobody"',
  },
])('a $name config file exits 3 and says why', async ({ file, message }) => {
  const path = file();
  const { code, out, err } = await run(['plan', '--config', path], idlePipeStdin);
  expect(code).toBe(ExitCode.config);
  expect(out).toBe('');
  expect(err).toContain(path);
  expect(err).toContain(message);
});

test('a bad request is reported as such (exit 2) even when the config is missing too', async () => {
  const { code, err } = await run(
    ['plan', '--config', '/nonexistent/config.json', '--temperature', '9'],
    idlePipeStdin,
  );
  expect(code).toBe(ExitCode.usage);
  expect(err).toContain('(--temperature)');
});

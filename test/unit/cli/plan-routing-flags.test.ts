// `switchyard plan --prefer/--require`: the order the call would get and the targets it would reject, and bad values named.
import type { CallPlan } from '../../../src/routing/call-plan';
import { idlePipeStdin, run, TEST_CONFIG, writeTempFile } from './cli-test-io';

const configFile = writeTempFile('switchyard.config.json', TEST_CONFIG);

async function planJson(argv: readonly string[]): Promise<CallPlan> {
  const { code, out, err } = await run(['plan', '--config', configFile, '--json', ...argv], idlePipeStdin);
  expect({ code, err }).toEqual({ code: 0, err: '' });
  return JSON.parse(out) as CallPlan;
}

test('--prefer cost puts the cheaper target first; the route alone keeps its declared order', async () => {
  const declared = await planJson(['--max-output-tokens', '200']);
  expect(declared.explanation.strategy).toBe('ordered');
  const models = (plan: CallPlan) => [...new Set(plan.attempts.map((attempt) => attempt.model))];
  // The support route declares claude-haiku-4-5 (5 USD per million output) before gpt-4o-mini (0.6).
  expect(models(declared)).toEqual(['claude-haiku-4-5', 'gpt-4o-mini']);
  const cheap = await planJson(['--max-output-tokens', '200', '--prefer', 'cost']);
  expect(cheap.explanation).toMatchObject({
    strategy: 'cheapest',
    considered: ['openai/gpt-4o-mini', 'anthropic/claude-haiku-4-5'],
  });
  expect(models(cheap)).toEqual(['gpt-4o-mini', 'claude-haiku-4-5']);
});

test('--require rejects with the reason, in the JSON and the table', async () => {
  const plan = await planJson(['--max-output-tokens', '200', '--require', '{"maxCostUsd":0.0005}']);
  expect(plan.attempts.map((attempt) => attempt.model)).toEqual(['gpt-4o-mini']);
  expect(plan.explanation.rejected).toEqual([
    {
      candidate: 'anthropic/claude-haiku-4-5',
      reason: expect.stringContaining('above require.maxCostUsd 0.0005'),
    },
  ]);
  const { out } = await run(
    ['plan', '--config', configFile, '--max-output-tokens', '200', '--require', '{"maxCostUsd":0.0005}'],
    idlePipeStdin,
  );
  expect(out).toMatch(/^rejected +anthropic\/claude-haiku-4-5: may cost up to/m);
});

test('a bad --prefer or --require is refused naming the flag', async () => {
  const prefer = await run(['plan', '--config', configFile, '--prefer', 'speed'], idlePipeStdin);
  expect(prefer.code).toBe(2);
  expect(prefer.err).toContain('--prefer');
  const json = await run(['plan', '--config', configFile, '--require', '{oops'], idlePipeStdin);
  expect(json.code).toBe(2);
  expect(json.err).toContain('--require is not valid JSON');
  const field = await run(
    ['plan', '--config', configFile, '--require', '{"maxLatencyMs":-1}'],
    idlePipeStdin,
  );
  expect(field.code).toBe(2);
  expect(field.err).toContain('--require');
});

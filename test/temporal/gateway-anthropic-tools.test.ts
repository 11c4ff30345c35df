// Tool loops on the gateway's Anthropic surface with the official `anthropic` Python client: JSON and streamed,
// with extended thinking sent back signed, and a failover between two Anthropic targets in the middle of a loop.
import { execFile, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { PYTHON_ANTHROPIC_VERSION, venvPython } from '../../scripts/python-clients';
import type { FakeScenario } from '../../src/fake-provider/scenario';
import { signThinking } from '../../src/fake-provider/thinking-signature';
import { startGatewayHarness, type GatewayHarness } from '../support/gateway-harness';

const root = path.join(__dirname, '../..');
const python = venvPython(root);
const hasPython3 = spawnSync(process.env.PYTHON ?? 'python3', ['--version']).status === 0;
if (!hasPython3) {
  process.stdout.write('[gateway] python3 not found: the anthropic Python client test is skipped\n');
}

/** Two Anthropic targets: the first fails over to the second at once. */
const PAIR_ROUTE = 'claude-pair';

let harness: GatewayHarness;
beforeAll(async () => {
  if (hasPython3) {
    harness = await startGatewayHarness({
      extraRoutes: {
        [PAIR_ROUTE]: {
          targets: [
            { provider: 'anthropic', model: 'claude-primary', timeoutMs: 10_000, retries: 0 },
            { provider: 'anthropic', model: 'claude-secondary', timeoutMs: 10_000 },
          ],
        },
      },
    });
  }
});
afterAll(async () => harness?.close());

const weather = { name: 'get_weather', arguments: { city: 'Paris' } };
const callsTool: FakeScenario = { kind: 'answer', toolCalls: [weather] };
const answers: FakeScenario = { kind: 'answer', text: 'It is sunny in Paris.' };
const thinksFirst = 'The user wants the weather; I will call get_weather for Paris.';
const thinksThenCallsTool: FakeScenario = { kind: 'answer', reasoning: thinksFirst, toolCalls: [weather] };

interface Turn {
  readonly first: Record<string, unknown>[];
  readonly first_stop: string;
  readonly second: Record<string, unknown>[];
  readonly second_stop: string;
}

interface Seen {
  readonly version: string;
  readonly json_loop: Turn;
  readonly stream_loop: Turn;
  readonly thinking_loop: Turn;
  readonly failover_loop: {
    readonly first: Record<string, unknown>[];
    readonly first_served_by: string;
    readonly second: Record<string, unknown>[];
    readonly second_served_by: string;
  };
}

/** The messages of the `index`-th request the fake received for `model`. */
function messagesSent(model: string, index: number): { role: string; content: unknown }[] {
  return (harness.fake.requestsFor(model)[index]!.body as { messages: { role: string; content: unknown }[] })
    .messages;
}

(hasPython3 ? test : test.skip)(
  'the anthropic Python client: tool loops JSON and streamed, thinking sent back signed, failover mid-loop',
  async () => {
    if (!existsSync(python)) throw new Error(`${python} is missing: run "npm run python:install" first`);
    // In the order the script calls: json loop, stream loop, thinking loop (route `reverse`), then the pair.
    harness.fake.script('claude-secondary', [
      callsTool,
      answers,
      callsTool,
      answers,
      thinksThenCallsTool,
      { ...answers, reasoning: 'The tool answered; I can reply.' },
      answers,
    ]);
    harness.fake.script('claude-primary', [thinksThenCallsTool, { kind: 'error', error: 'overloaded' }]);
    const seen = await harness.withGateway(async ({ gateway, key }) => {
      const run = await promisify(execFile)(
        python,
        [path.join(root, 'test/support/gateway_anthropic_tools.py')],
        { env: { ...process.env, GATEWAY_URL: gateway.url, GATEWAY_KEY: key, PAIR_ROUTE } },
      ).catch((error: { code?: number; stderr?: string }) => {
        throw new Error(`the anthropic Python client failed (exit ${error.code}): ${error.stderr}`);
      });
      return JSON.parse(run.stdout) as Seen;
    });
    expect(seen.version).toBe(PYTHON_ANTHROPIC_VERSION);

    const toolUse = { type: 'tool_use', name: 'get_weather', input: { city: 'Paris' } };
    for (const loop of [seen.json_loop, seen.stream_loop]) {
      expect(loop.first_stop).toBe('tool_use');
      // The streamed tool input arrives whole: the client parsed the joined input_json_delta pieces.
      expect(loop.first).toEqual([expect.objectContaining(toolUse)]);
      expect(loop.second_stop).toBe('end_turn');
      expect(loop.second).toEqual([expect.objectContaining({ type: 'text', text: 'It is sunny in Paris.' })]);
    }
    // What the fake got on the second turn: the call and its result, in Anthropic's shape.
    const [, jsonAssistant, jsonResults] = messagesSent('claude-secondary', 1);
    const callId = (seen.json_loop.first[0] as { id: string }).id;
    expect(jsonAssistant).toEqual({
      role: 'assistant',
      content: [{ type: 'tool_use', id: callId, name: 'get_weather', input: { city: 'Paris' } }],
    });
    expect(jsonResults).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: callId, content: '18 degrees and sunny' }],
    });

    // Thinking: the signed block comes first, goes back unchanged, and the fake (which checks it) answers.
    const thinking = { type: 'thinking', thinking: thinksFirst, signature: signThinking(thinksFirst) };
    expect(seen.thinking_loop.first).toEqual([thinking, expect.objectContaining(toolUse)]);
    expect(seen.thinking_loop.second_stop).toBe('end_turn');
    expect(seen.thinking_loop.second[0]).toMatchObject({ type: 'thinking' });
    const [, thinkingAssistant] = messagesSent('claude-secondary', 5);
    expect((thinkingAssistant!.content as unknown[])[0]).toEqual(thinking);

    // Failover mid-loop: the second turn's first target is overloaded, the other Anthropic target takes the
    // same thinking, intact.
    const failover = seen.failover_loop;
    expect(failover.first_served_by).toBe('anthropic/claude-primary');
    expect(failover.first[0]).toEqual(thinking);
    expect(failover.second_served_by).toBe('anthropic/claude-secondary');
    expect(failover.second).toEqual([
      expect.objectContaining({ type: 'text', text: 'It is sunny in Paris.' }),
    ]);
    expect(harness.fake.requestsFor('claude-primary')).toHaveLength(2);
    const [, failoverAssistant] = messagesSent('claude-secondary', 6);
    expect((failoverAssistant!.content as unknown[])[0]).toEqual(thinking);
  },
);

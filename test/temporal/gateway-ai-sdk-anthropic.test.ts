// The gateway's Anthropic surface driven by the Vercel AI SDK's `generateText` with `@ai-sdk/anthropic`: a tool
// over several steps, plain and with extended thinking sent back signed each step.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { FakeScenario } from '../../src/fake-provider/scenario';
import { signThinking } from '../../src/fake-provider/thinking-signature';
import { startGatewayHarness, type GatewayHarness } from '../support/gateway-harness';

const root = path.join(__dirname, '../..');

let harness: GatewayHarness;
beforeAll(async () => {
  harness = await startGatewayHarness();
});
afterAll(async () => harness?.close());

interface Run {
  readonly text: string;
  readonly steps: {
    readonly finishReason: string;
    readonly toolCalls: { readonly name: string; readonly input: unknown }[];
    readonly reasoning: string | null;
  }[];
}

/** Runs the AI SDK client (an ES module, so in its own Node process) against a gateway. */
async function runClient(
  gatewayUrl: string,
  key: string,
): Promise<{ plain: Run; thinking: Run; cities: string[] }> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', path.join(root, 'test/support/gateway-ai-sdk-anthropic-client.mts')],
    { cwd: root, env: { ...process.env, GATEWAY_URL: gatewayUrl, GATEWAY_KEY: key } },
  ).catch((error: { code?: number; stderr?: string }) => {
    throw new Error(`the AI SDK client failed (exit ${error.code}): ${error.stderr}`);
  });
  return JSON.parse(stdout) as { plain: Run; thinking: Run; cities: string[] };
}

interface SentMessage {
  readonly role: string;
  readonly content: string | { readonly type: string; readonly [key: string]: unknown }[];
}

function sent(index: number): SentMessage[] {
  return (harness.fake.requestsFor('claude-secondary')[index]!.body as { messages: SentMessage[] }).messages;
}

test('generateText: one tool over several steps, plain and with thinking, each step a routed call', async () => {
  const paris = { name: 'get_weather', arguments: { city: 'Paris' } };
  const lyon = { name: 'get_weather', arguments: { city: 'Lyon' } };
  const done: FakeScenario = { kind: 'answer', text: 'Sunny in both.' };
  const thoughts = ['First Paris.', 'Now Lyon.', 'Both known.'];
  harness.fake.script('claude-secondary', [
    { kind: 'answer', toolCalls: [paris] },
    { kind: 'answer', toolCalls: [lyon] },
    done,
    { kind: 'answer', reasoning: thoughts[0], toolCalls: [paris] },
    { kind: 'answer', reasoning: thoughts[1], toolCalls: [lyon] },
    { ...done, reasoning: thoughts[2] },
  ]);
  const seen = await harness.withGateway(({ gateway, key }) => runClient(gateway.url, key));

  for (const run of [seen.plain, seen.thinking]) {
    expect(run.text).toBe('Sunny in both.');
    expect(run.steps.map((step) => step.finishReason)).toEqual(['tool-calls', 'tool-calls', 'stop']);
    expect(run.steps.map((step) => step.toolCalls)).toEqual([
      [{ name: 'get_weather', input: { city: 'Paris' } }],
      [{ name: 'get_weather', input: { city: 'Lyon' } }],
      [],
    ]);
  }
  expect(seen.cities).toEqual(['Paris', 'Lyon', 'Paris', 'Lyon']);
  expect(seen.thinking.steps.map((step) => step.reasoning)).toEqual(thoughts);
  expect(harness.fake.requestsFor('claude-secondary')).toHaveLength(6);

  // The last plain step carried both calls and both results.
  const plainLast = sent(2);
  expect(plainLast.map((message) => message.role)).toEqual([
    'user',
    'assistant',
    'user',
    'assistant',
    'user',
  ]);
  expect(plainLast[4]!.content).toEqual([
    expect.objectContaining({ type: 'tool_result', content: expect.anything() }),
  ]);

  // With thinking, each earlier assistant turn went back starting with its own signed thinking, unchanged.
  const thinkingLast = sent(5);
  const assistantTurns = thinkingLast.filter((message) => message.role === 'assistant');
  expect(assistantTurns.map((message) => (message.content as { type: string }[])[0])).toEqual(
    thoughts
      .slice(0, 2)
      .map((thinking) => ({ type: 'thinking', thinking, signature: signThinking(thinking) })),
  );
});

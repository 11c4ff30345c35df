// The gateway's OpenAI surface driven by the Vercel AI SDK with `@ai-sdk/openai-compatible`: `generateText` and
// `streamText` with one tool over several steps, reasoning_content read each step and not sent on.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { FakeScenario } from '../../src/fake-provider/scenario';
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

interface Seen {
  readonly generate: Run;
  readonly stream: Run & { readonly inputTokens: number | null };
  readonly cities: string[];
}

/** Runs the AI SDK client (an ES module, so in its own Node process) against a gateway. */
async function runClient(gatewayUrl: string, key: string): Promise<Seen> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', path.join(root, 'test/support/gateway-ai-sdk-openai-client.mts')],
    { cwd: root, env: { ...process.env, GATEWAY_URL: gatewayUrl, GATEWAY_KEY: key } },
  ).catch((error: { code?: number; stderr?: string }) => {
    throw new Error(`the AI SDK client failed (exit ${error.code}): ${error.stderr}`);
  });
  return JSON.parse(stdout) as Seen;
}

interface SentMessage {
  readonly role: string;
  readonly content?: unknown;
  readonly tool_call_id?: string;
  readonly tool_calls?: { id: string; function: { name: string; arguments: string } }[];
  readonly [field: string]: unknown;
}

test('generateText and streamText: one tool over several steps, each step a routed call', async () => {
  const thinks = 'I should look up Paris.';
  const callsTool = {
    kind: 'answer',
    reasoning: thinks,
    toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }],
  } satisfies FakeScenario;
  const answers: FakeScenario = {
    kind: 'answer',
    text: 'Sunny in Paris.',
    usage: { inputTokens: 40, outputTokens: 4 },
  };
  harness.fake.script('gpt-primary', [callsTool, answers, { ...callsTool, chunkDelayMs: 5 }, answers]);
  const seen = await harness.withGateway(({ gateway, key }) => runClient(gateway.url, key));

  for (const run of [seen.generate, seen.stream]) {
    expect(run.text).toBe('Sunny in Paris.');
    expect(run.steps).toEqual([
      {
        finishReason: 'tool-calls',
        toolCalls: [{ name: 'get_weather', input: { city: 'Paris' } }],
        reasoning: thinks,
      },
      { finishReason: 'stop', toolCalls: [], reasoning: null },
    ]);
  }
  expect(seen.cities).toEqual(['Paris', 'Paris']);
  // The streamed run's usage chunk arrived (both steps counted).
  expect(seen.stream.inputTokens).toBeGreaterThanOrEqual(40);

  const requests = harness.fake.requestsFor('gpt-primary');
  expect(requests.map((request) => (request.body as { stream?: boolean }).stream === true)).toEqual([
    false,
    false,
    true,
    true,
  ]);
  for (const index of [1, 3]) {
    const messages = (requests[index]!.body as { messages: SentMessage[] }).messages;
    const assistant = messages.find((message) => message.role === 'assistant')!;
    const call = assistant.tool_calls![0]!;
    expect(call.function.name).toBe('get_weather');
    expect(JSON.parse(call.function.arguments)).toEqual({ city: 'Paris' });
    // The SDK sends its reasoning back as reasoning_content; the gateway does not pass it on.
    expect(assistant).not.toHaveProperty('reasoning_content');
    const result = messages.find((message) => message.role === 'tool')!;
    expect(result.tool_call_id).toBe(call.id);
    expect(JSON.stringify(result.content)).toContain('18 degrees and sunny in Paris');
  }
});

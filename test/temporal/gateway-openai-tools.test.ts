// Tool loops on the gateway's OpenAI surface with the official `openai` clients (Python JSON and streamed, Node's
// stream helper): two calls per turn whose arguments arrive whole, results reach the provider, reasoning comes back.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { PYTHON_OPENAI_VERSION } from '../../scripts/python-clients';
import type { FakeScenario } from '../../src/fake-provider/scenario';
import { startGatewayHarness, type GatewayHarness } from '../support/gateway-harness';
import { pythonClients, pythonTest } from '../support/python-clients';

const root = path.join(__dirname, '../..');
const clients = pythonClients();
/** The virtual environment's python; its tests are skipped, with the reason printed, where there is none. */
const python = 'python' in clients ? clients.python : '';

let harness: GatewayHarness;
beforeAll(async () => {
  harness = await startGatewayHarness();
});
beforeEach(() => harness.fake.reset());
afterAll(async () => harness?.close());

const thinks = 'The user asks about two cities: I will look both up.';
const callsTools: FakeScenario = {
  kind: 'answer',
  reasoning: thinks,
  toolCalls: [
    { name: 'get_weather', arguments: { city: 'Paris' } },
    { name: 'get_weather', arguments: { city: 'Lyon' } },
  ],
  usage: { inputTokens: 20, outputTokens: 15, reasoningTokens: 9 },
};
const answers: FakeScenario = { kind: 'answer', text: 'Paris is sunny; Lyon is rainy.' };

interface AssistantTurn {
  readonly role: 'assistant';
  readonly content?: string | null;
  readonly reasoning_content?: string;
  readonly tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[];
}

interface Loop {
  readonly first: AssistantTurn;
  readonly first_finish: string;
  readonly second: AssistantTurn;
  readonly second_finish: string;
}

interface SentMessage {
  readonly role: string;
  readonly [field: string]: unknown;
}

function sent(index: number): SentMessage[] {
  return (harness.fake.requestsFor('gpt-primary')[index]!.body as { messages: SentMessage[] }).messages;
}

pythonTest('gateway')(
  'the openai Python client: a tool loop JSON and streamed, tool results reach the provider, reasoning comes back',
  async () => {
    harness.fake.script('gpt-primary', [callsTools, answers, { ...callsTools, chunkDelayMs: 5 }, answers]);
    const seen = await harness.withGateway(async ({ gateway, key }) => {
      const run = await promisify(execFile)(
        python,
        [path.join(root, 'test/support/gateway_openai_tools.py')],
        {
          env: { ...process.env, GATEWAY_BASE_URL: `${gateway.url}/v1`, GATEWAY_KEY: key },
        },
      ).catch((error: { code?: number; stderr?: string }) => {
        throw new Error(`the openai Python client failed (exit ${error.code}): ${error.stderr}`);
      });
      return JSON.parse(run.stdout) as { version: string; json_loop: Loop; stream_loop: Loop };
    });
    expect(seen.version).toBe(PYTHON_OPENAI_VERSION);

    for (const [loop, firstRequest] of [
      [seen.json_loop, 0],
      [seen.stream_loop, 2],
    ] as const) {
      expect(loop.first_finish).toBe('tool_calls');
      expect(loop.first.reasoning_content).toBe(thinks);
      // The streamed arguments joined to the whole JSON: the client parsed them to run the tool.
      expect(loop.first.tool_calls?.map((call) => [call.type, call.function])).toEqual([
        ['function', { name: 'get_weather', arguments: '{"city":"Paris"}' }],
        ['function', { name: 'get_weather', arguments: '{"city":"Lyon"}' }],
      ]);
      const [paris, lyon] = loop.first.tool_calls!.map((call) => call.id);
      expect(paris).not.toBe(lyon);
      expect(loop.second_finish).toBe('stop');
      expect(loop.second.content).toBe('Paris is sunny; Lyon is rainy.');

      // The second turn as the provider received it: the calls, then each tool's output under its call's id.
      // The reasoning the client sent back is not in it (no Chat Completions model takes it as input).
      const messages = sent(firstRequest + 1);
      expect(messages).toHaveLength(4);
      expect(messages[1]).toMatchObject({
        role: 'assistant',
        tool_calls: [
          { id: paris, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: lyon, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Lyon"}' } },
        ],
      });
      expect(messages[1]).not.toHaveProperty('reasoning_content');
      expect(messages.slice(2)).toEqual([
        { role: 'tool', tool_call_id: paris, content: '18 degrees and sunny' },
        { role: 'tool', tool_call_id: lyon, content: '12 degrees and raining' },
      ]);
    }
    expect(harness.fake.requestsFor('gpt-primary')).toHaveLength(4);
  },
);

test("the Node openai SDK's stream helper: two tool calls accumulate to a whole final completion, usage with reasoning", async () => {
  harness.fake.script('gpt-primary', [{ ...callsTools, chunkDelayMs: 5 }, answers]);
  await harness.withGateway(async ({ openai }) => {
    const tools = [
      {
        type: 'function' as const,
        function: {
          name: 'get_weather',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      },
    ];
    const question = { role: 'user' as const, content: 'What is the weather in Paris and in Lyon?' };
    const stream = openai.chat.completions.stream({
      model: 'support',
      messages: [question],
      tools,
      stream_options: { include_usage: true },
    });
    const first = await stream.finalChatCompletion();
    const message = first.choices[0]!.message;
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    // (The helper keeps only the last piece of fields OpenAI does not define, reasoning_content among them:
    // the Python loop above checks the joined pieces.)
    const calls = (message.tool_calls ?? []).map((call) =>
      call.type === 'function' ? call.function : undefined,
    );
    expect(calls).toEqual([
      { name: 'get_weather', arguments: '{"city":"Paris"}' },
      { name: 'get_weather', arguments: '{"city":"Lyon"}' },
    ]);
    expect(first.usage).toMatchObject({
      completion_tokens: 15,
      completion_tokens_details: { reasoning_tokens: 9 },
    });

    const second = await openai.chat.completions.create({
      model: 'support',
      tools,
      messages: [
        question,
        { role: 'assistant', content: null, tool_calls: message.tool_calls },
        ...message.tool_calls!.map((call, index) => ({
          role: 'tool' as const,
          tool_call_id: call.id,
          content: index === 0 ? 'sunny' : 'rainy',
        })),
      ],
    });
    expect(second.choices[0]!.message.content).toBe('Paris is sunny; Lyon is rainy.');
    const sentResults = sent(1).filter((sentMessage) => sentMessage.role === 'tool');
    expect(sentResults.map((result) => result.content)).toEqual(['sunny', 'rainy']);
  });
});

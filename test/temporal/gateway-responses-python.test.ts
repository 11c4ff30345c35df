// The gateway's Responses surface with the official `openai` Python client: `responses.create` and the
// `responses.stream` helper run a function tool over three turns, each sending the whole input so far, served by a
// Chat Completions, an Anthropic and an OpenAI Responses target.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { PYTHON_OPENAI_VERSION } from '../../scripts/python-clients';
import { decryptReasoning } from '../../src/fake-provider/reasoning-encryption';
import type { FakeScenario } from '../../src/fake-provider/scenario';
import { startGatewayHarness, type GatewayHarness } from '../support/gateway-harness';
import { pythonClients, pythonTest } from '../support/python-clients';
import { fakeResponsesProvider } from '../support/test-config';

const root = path.join(__dirname, '../..');
const clients = pythonClients();
/** The virtual environment's python; its tests are skipped, with the reason printed, where there is none. */
const python = 'python' in clients ? clients.python : '';

let harness: GatewayHarness;
beforeAll(async () => {
  if (!('python' in clients)) return;
  harness = await startGatewayHarness({
    extraProviders: (fake) => ({ responses: fakeResponsesProvider(fake, ['resp-primary']) }),
    extraRoutes: {
      'responses-only': { targets: [{ provider: 'responses', model: 'resp-primary', timeoutMs: 10_000 }] },
    },
  });
});
beforeEach(() => harness?.fake.reset());
afterAll(async () => harness?.close());

interface Item {
  readonly type: string;
  readonly id: string;
  readonly call_id?: string;
  readonly name?: string;
  readonly arguments?: string;
  readonly text?: string;
  readonly summary?: string;
  /** `switchyard:<kind>` reasoning names its kind; OpenAI's own is `opaque`. */
  readonly encrypted?: string | null;
}

interface Turn {
  readonly id: string;
  readonly status: string;
  readonly output: Item[];
  readonly usage: { input_tokens: number; output_tokens: number; total_tokens: number };
  readonly events?: { type: string; sequence_number: number }[];
}

interface Seen {
  readonly version: string;
  readonly create: Turn[];
  readonly stream: Turn[];
}

const THOUGHT = 'Three cities: Paris and Lyon first.';
const NEXT_THOUGHT = 'Now Nice.';
const FINAL = 'Paris is sunny, Lyon rainy, Nice clear.';

/** The three turns of one loop, in the order the client's calls meet them. */
function loopScript(chunkDelayMs: number): FakeScenario[] {
  return [
    {
      kind: 'answer',
      reasoning: THOUGHT,
      toolCalls: [
        { name: 'get_weather', arguments: { city: 'Paris' } },
        { name: 'get_weather', arguments: { city: 'Lyon' } },
      ],
      chunkDelayMs,
    },
    // With thinking on, Anthropic wants each turn of a tool loop to start with its thinking.
    {
      kind: 'answer',
      reasoning: NEXT_THOUGHT,
      toolCalls: [{ name: 'get_weather', arguments: { city: 'Nice' } }],
      chunkDelayMs,
    },
    { kind: 'answer', text: FINAL, chunkDelayMs },
  ];
}

async function runClient(route: string): Promise<Seen> {
  return harness.withGateway(async ({ gateway, key }) => {
    const run = await promisify(execFile)(
      python,
      [path.join(root, 'test/support/gateway_openai_responses.py')],
      {
        env: {
          ...process.env,
          GATEWAY_BASE_URL: `${gateway.url}/v1`,
          GATEWAY_KEY: key,
          GATEWAY_ROUTE: route,
        },
      },
    ).catch((error: { code?: number; stderr?: string }) => {
      throw new Error(`the openai Python client failed (exit ${error.code}): ${error.stderr}`);
    });
    return JSON.parse(run.stdout) as Seen;
  });
}

/** What both loops saw, whatever served them: three turns, the tool's calls, the answer, valid streams. */
function expectLoops(seen: Seen, reasoningOrigin: string) {
  expect(seen.version).toBe(PYTHON_OPENAI_VERSION);
  for (const turns of [seen.create, seen.stream]) {
    expect(turns.map((turn) => turn.status)).toEqual(['completed', 'completed', 'completed']);
    expect(turns.map((turn) => turn.output.map((item) => item.type))).toEqual([
      ['reasoning', 'function_call', 'function_call'],
      ['reasoning', 'function_call'],
      ['message'],
    ]);
    const [first, second, third] = turns;
    expect(first!.output[0]!.encrypted).toBe(reasoningOrigin);
    expect(first!.output.slice(1).map((item) => [item.name, item.arguments])).toEqual([
      ['get_weather', '{"city":"Paris"}'],
      ['get_weather', '{"city":"Lyon"}'],
    ]);
    expect(second!.output[1]).toMatchObject({ name: 'get_weather', arguments: '{"city":"Nice"}' });
    expect(third!.output[0]!.text).toBe(FINAL);
    const ids = turns.flatMap((turn) => [turn.id, ...turn.output.map((item) => item.id)]);
    expect(new Set(ids).size).toBe(ids.length);
    // Unstored: ids that name no workflow.
    expect(turns.every((turn) => turn.id.startsWith('resp_x'))).toBe(true);
    for (const turn of turns)
      expect(turn.usage.total_tokens).toBe(turn.usage.input_tokens + turn.usage.output_tokens);
  }
  for (const turn of seen.stream) {
    const events = turn.events!;
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    expect(events[0]!.type).toBe('response.created');
    expect(events.at(-1)!.type).toBe('response.completed');
  }
}

/** The ids of the function calls a loop's turns made, in order. */
function callIds(turns: readonly Turn[]): string[] {
  return turns.flatMap((turn) =>
    turn.output.filter((item) => item.type === 'function_call').map((item) => item.call_id!),
  );
}

pythonTest('gateway')(
  'on a Chat Completions target: each turn the provider reads the whole conversation',
  async () => {
    harness.fake.script('gpt-primary', [...loopScript(0), ...loopScript(5)]);
    const seen = await runClient('support');
    expectLoops(seen, 'openai');
    const requests = harness.fake
      .requestsFor('gpt-primary')
      .map((request) => request.body as { messages: Record<string, unknown>[] });
    expect(requests).toHaveLength(6);
    for (const [loop, turns] of [
      [0, seen.create],
      [3, seen.stream],
    ] as const) {
      const [paris, lyon, nice] = callIds(turns);
      // The third turn: the question, the first turn's calls and outputs, the second's, in order.
      expect(
        requests[loop + 2]!.messages.map((message) => [message.role, message.tool_call_id ?? null]),
      ).toEqual([
        ['user', null],
        ['assistant', null],
        ['tool', paris],
        ['tool', lyon],
        ['assistant', null],
        ['tool', nice],
      ]);
      expect(requests[loop + 2]!.messages.slice(2).map((message) => message.content)).toEqual([
        '18 degrees and sunny',
        '12 degrees and raining',
        null,
        '22 degrees and clear',
      ]);
    }
  },
);

pythonTest('gateway')(
  'on an Anthropic target: thinking goes back signed each turn, the tool results under their calls',
  async () => {
    harness.fake.script('claude-secondary', [...loopScript(0), ...loopScript(5)]);
    const seen = await runClient('reverse');
    expectLoops(seen, 'anthropic');
    expect(seen.create[0]!.output[0]!.summary).toBe(THOUGHT);
    const requests = harness.fake
      .requestsFor('claude-secondary')
      .map((request) => request.body as { messages: { role: string; content: Record<string, unknown>[] }[] });
    expect(requests).toHaveLength(6);
    for (const loop of [0, 3]) {
      const messages = requests[loop + 2]!.messages;
      expect(messages.map((message) => message.role)).toEqual([
        'user',
        'assistant',
        'user',
        'assistant',
        'user',
      ]);
      // The fake refuses a thinking signature it did not write: this one came back through the client intact.
      expect(messages[1]!.content.map((block) => block.type)).toEqual(['thinking', 'tool_use', 'tool_use']);
      expect(messages[1]!.content[0]).toMatchObject({ thinking: THOUGHT });
      expect(messages[3]!.content.map((block) => block.type)).toEqual(['thinking', 'tool_use']);
      expect(messages[4]!.content).toEqual([
        expect.objectContaining({ type: 'tool_result', content: '22 degrees and clear' }),
      ]);
    }
  },
);

pythonTest('gateway')(
  'on an OpenAI Responses target: its encrypted reasoning goes back as it was, with the whole input',
  async () => {
    harness.fake.script('resp-primary', [...loopScript(0), ...loopScript(5)]);
    const seen = await runClient('responses-only');
    expectLoops(seen, 'opaque');
    const requests = harness.fake
      .requestsFor('resp-primary')
      .map((request) => request.body as { input: Record<string, unknown>[] });
    expect(requests).toHaveLength(6);
    for (const loop of [0, 3]) {
      const input = requests[loop + 2]!.input;
      expect(input.map((item) => item.type)).toEqual([
        'message',
        'reasoning',
        'function_call',
        'function_call',
        'function_call_output',
        'function_call_output',
        'reasoning',
        'function_call',
        'function_call_output',
      ]);
      expect(decryptReasoning(String(input[1]!.encrypted_content))?.text).toBe(THOUGHT);
      expect(decryptReasoning(String(input[6]!.encrypted_content))?.text).toBe(NEXT_THOUGHT);
    }
  },
);

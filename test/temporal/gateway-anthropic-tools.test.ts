// Tool loops on the gateway's Anthropic surface: the official `anthropic` Python client (JSON and streamed, with
// extended thinking sent back signed, and a failover between two Anthropic targets in the middle of a loop), and
// a recorded request of the shape coding agents send.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { PYTHON_ANTHROPIC_VERSION } from '../../scripts/python-clients';
import type { FakeScenario } from '../../src/fake-provider/scenario';
import { signThinking } from '../../src/fake-provider/thinking-signature';
import { startGatewayHarness, type GatewayHarness } from '../support/gateway-harness';
import { pythonClients, pythonTest } from '../support/python-clients';

const root = path.join(__dirname, '../..');
const clients = pythonClients();
/** The virtual environment's python; its tests are skipped, with the reason printed, where there is none. */
const python = 'python' in clients ? clients.python : '';

/** Two Anthropic targets: the first fails over to the second at once. */
const PAIR_ROUTE = 'claude-pair';

let harness: GatewayHarness;
beforeAll(async () => {
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
});
afterAll(async () => harness?.close());
beforeEach(() => harness.fake.reset());

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

pythonTest('gateway')(
  'the anthropic Python client: tool loops JSON and streamed, thinking sent back signed, failover mid-loop',
  async () => {
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

/** One SSE event of a raw response body. */
interface StreamEvent {
  readonly event: string;
  readonly data: {
    readonly type: string;
    readonly index?: number;
    readonly content_block?: { readonly type: string; readonly [key: string]: unknown };
    readonly delta?: { readonly type: string; readonly [key: string]: unknown };
    readonly usage?: Record<string, unknown>;
  };
}

function parseEvents(body: string): StreamEvent[] {
  return body
    .split('\n\n')
    .filter((chunk) => chunk.trim() !== '')
    .map((chunk) => {
      const lines = chunk.split('\n');
      const event = lines.find((line) => line.startsWith('event: '))!.slice('event: '.length);
      const data = lines.find((line) => line.startsWith('data: '))!.slice('data: '.length);
      return { event, data: JSON.parse(data) as StreamEvent['data'] };
    });
}

test("a coding agent's recorded request (cached system and tools, signed thinking, an image tool result) is served as a stream", async () => {
  // Recorded in the shape Claude Code sends; its earlier turn's thinking was signed by the fake, as Anthropic
  // signs its own. The model name is the agent's; a gateway user points the agent at a route instead.
  const recorded = JSON.parse(
    readFileSync(path.join(root, 'test/fixtures/wire/coding-agent-request.json'), 'utf8'),
  ) as { system: unknown[]; tools: Record<string, unknown>[]; messages: { content: unknown[] }[] };
  const earlierThinking = recorded.messages[1]!.content[0] as { thinking: string; signature: string };
  expect(earlierThinking.signature).toBe(signThinking(earlierThinking.thinking));

  const reasoning = 'The form has a fixed width wider than the page; set it to 100%.';
  const edit = {
    name: 'Edit',
    arguments: { file_path: '/repo/src/login.css', old_string: 'width: 120%', new_string: 'width: 100%' },
  };
  harness.fake.script('claude-secondary', {
    kind: 'answer',
    reasoning,
    toolCalls: [edit],
    usage: { inputTokens: 12, cachedInputTokens: 3000, cacheWriteInputTokens: 400, outputTokens: 90 },
  });
  await harness.withGateway(async ({ gateway, key }) => {
    const response = await fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key': key,
        'anthropic-version': '2023-06-01',
        'anthropic-beta':
          'claude-code-20250219,interleaved-thinking-2025-05-14,fine-grained-tool-streaming-2025-05-14',
        'user-agent': 'claude-cli/2.0.14 (external, cli)',
      },
      body: JSON.stringify({ ...recorded, model: 'reverse' }),
    });
    const body = await response.text();
    expect({ status: response.status, body: response.status === 200 ? '' : body }).toEqual({
      status: 200,
      body: '',
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(response.headers.get('x-switchyard-served-by')).toBe('anthropic/claude-secondary');

    const events = parseEvents(body);
    expect(events[0]!.event).toBe('message_start');
    expect(events.at(-1)!.event).toBe('message_stop');
    const starts = events.filter((event) => event.event === 'content_block_start');
    expect(starts.map((event) => event.data.content_block!.type)).toEqual(['thinking', 'tool_use']);
    const deltas = (type: string) =>
      events.filter((event) => event.data.delta?.type === type).map((event) => event.data.delta!);
    expect(
      deltas('thinking_delta')
        .map((delta) => delta.thinking)
        .join(''),
    ).toBe(reasoning);
    expect(deltas('signature_delta').map((delta) => delta.signature)).toEqual([signThinking(reasoning)]);
    expect(
      JSON.parse(
        deltas('input_json_delta')
          .map((delta) => delta.partial_json)
          .join(''),
      ),
    ).toEqual(edit.arguments);
    const final = events.find((event) => event.event === 'message_delta')!.data as StreamEvent['data'] & {
      delta: { stop_reason: string };
    };
    expect(final.delta.stop_reason).toBe('tool_use');
    expect(final.usage).toMatchObject({
      input_tokens: 12,
      cache_read_input_tokens: 3000,
      cache_creation_input_tokens: 400,
      cache_creation: { ephemeral_5m_input_tokens: 400, ephemeral_1h_input_tokens: 0 },
      output_tokens: 90,
    });
  });

  // What Anthropic got: the cache breakpoints, the thinking budget, the signed turn and the image, as sent.
  const sentBody = harness.fake.requestsFor('claude-secondary')[0]!.body as {
    system: unknown[];
    tools: Record<string, unknown>[];
    thinking: unknown;
    max_tokens: number;
    stream: boolean;
    messages: { role: string; content: unknown[] }[];
  };
  expect(sentBody).toMatchObject({
    max_tokens: 32000,
    stream: true,
    thinking: { type: 'enabled', budget_tokens: 10000 },
  });
  expect(sentBody.system).toEqual(recorded.system);
  expect(sentBody.tools.map((tool) => [tool.name, tool.cache_control])).toEqual(
    recorded.tools.map((tool) => [tool.name, tool.cache_control]),
  );
  expect(sentBody.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
  expect(sentBody.messages[1]!.content[0]).toEqual(earlierThinking);
  expect(sentBody.messages[2]!.content).toEqual(recorded.messages[2]!.content);
});

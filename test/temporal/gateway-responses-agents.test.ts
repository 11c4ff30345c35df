// The OpenAI Agents SDK on the gateway's Responses surface with its default model (OpenAIResponsesModel): an
// agent with one function tool, run_sync and streamed, then chained by previous_response_id, each final answer
// built from what the tool returned.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { PYTHON_OPENAI_AGENTS_VERSION } from '../../scripts/python-clients';
import type { FakeScenario } from '../../src/fake-provider/scenario';
import { startGatewayHarness, type GatewayHarness } from '../support/gateway-harness';
import { pythonClients, pythonTest } from '../support/python-clients';

const root = path.join(__dirname, '../..');
const clients = pythonClients();
const python = 'python' in clients ? clients.python : '';
const pythonOnly = pythonTest('gateway');

let harness: GatewayHarness;
beforeAll(async () => {
  if ('python' in clients) harness = await startGatewayHarness();
});
afterAll(async () => harness?.close());
beforeEach(() => harness?.fake.reset());

/**
 * The route `reverse` starts on an Anthropic target. Its fake echoes the last user turn when no text is scripted,
 * and on Anthropic's wire the tool's result is that turn: each final answer repeats the tool's output, reading
 * included, so it can only have been written after the tool ran.
 */
const ROUTE = 'reverse';
const MODEL = 'claude-secondary';
const callsTool = (city: string, chunkDelayMs?: number): FakeScenario => ({
  kind: 'answer',
  toolCalls: [{ name: 'get_weather', arguments: { city } }],
  ...(chunkDelayMs !== undefined ? { chunkDelayMs } : {}),
});
const echoes: FakeScenario = { kind: 'answer' };

interface RunSummary {
  readonly final: string;
  readonly last_response_id: string;
}

interface Seen {
  readonly version: string;
  readonly model_class: string;
  readonly calls: { city: string; reading: string }[];
  /** Each request the SDK sent: its path, the previous response it named, its input items' types. */
  readonly sent: { path: string; previous_response_id: string | null; input: string[] }[];
  readonly [run: string]: unknown;
}

async function runAgents(mode: 'loop' | 'chain', gatewayUrl: string, key: string): Promise<Seen> {
  const script = path.join(root, 'test/support/gateway_openai_agents_responses.py');
  const run = await promisify(execFile)(python, [script, mode], {
    env: { ...process.env, GATEWAY_BASE_URL: `${gatewayUrl}/v1`, GATEWAY_KEY: key, GATEWAY_ROUTE: ROUTE },
  }).catch((error: { code?: number; stderr?: string }) => {
    throw new Error(
      `gateway_openai_agents_responses.py ${mode} failed (exit ${error.code}): ${error.stderr}`,
    );
  });
  return JSON.parse(run.stdout) as Seen;
}

/** The final answer the fake writes from a tool result: the echo of the tool's output, reading included. */
const answerFrom = (call: { city: string; reading: string }) =>
  `Echo: 18 degrees and sunny in ${call.city} (${call.reading})`;

interface AnthropicMessage {
  readonly role: string;
  readonly content: unknown;
}

/** Each request's messages as the Anthropic target received them. */
function sentMessages(): AnthropicMessage[][] {
  return harness.fake
    .requestsFor(MODEL)
    .map((request) => (request.body as { messages: AnthropicMessage[] }).messages);
}

pythonOnly(
  'the default model: one function tool, run_sync and streamed, each answer built from the tool output',
  async () => {
    harness.fake.script(MODEL, [callsTool('Paris'), echoes, callsTool('Paris', 5), echoes]);
    const seen = await harness.withGateway(({ gateway, key }) => runAgents('loop', gateway.url, key));
    expect(seen).toMatchObject({
      version: PYTHON_OPENAI_AGENTS_VERSION,
      model_class: 'OpenAIResponsesModel',
    });
    // Every model call went to the Responses surface, two turns per run, each with the whole conversation.
    const loop = [['message'], ['message', 'function_call', 'function_call_output']];
    expect(seen.sent).toEqual(
      [...loop, ...loop].map((input) => ({ path: 'POST /v1/responses', previous_response_id: null, input })),
    );
    expect(seen.calls.map((call) => call.city)).toEqual(['Paris', 'Paris']);
    const [syncCall, streamedCall] = seen.calls;
    expect(seen.run_sync).toMatchObject({ final: answerFrom(syncCall!) });
    expect(seen.streamed).toMatchObject({ final: answerFrom(streamedCall!) });
    expect((seen.streamed as { event_types: string[] }).event_types).toContain('raw_response_event');
    // The two runs' ids are Responses ids, and differ.
    const ids = [seen.run_sync, seen.streamed].map((run) => (run as RunSummary).last_response_id);
    expect(ids.every((id) => id.startsWith('resp_'))).toBe(true);
    expect(new Set(ids).size).toBe(2);

    const requests = harness.fake.requestsFor(MODEL);
    expect(requests.map((request) => (request.body as { stream?: boolean }).stream === true)).toEqual([
      false,
      false,
      true,
      true,
    ]);
    // The agent's instructions went as the system prompt, its tool as a tool the model may call.
    const firstBody = requests[0]!.body as { system?: unknown; tools: { name: string }[] };
    expect(JSON.stringify(firstBody.system)).toContain('get_weather tool');
    expect(firstBody.tools.map((tool) => tool.name)).toEqual(['get_weather']);
    // Each loop's second turn carried the call and the tool's output with this run's reading.
    for (const [index, call] of [
      [1, syncCall!],
      [3, streamedCall!],
    ] as const) {
      const messages = sentMessages()[index]!;
      expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
      expect(JSON.stringify(messages[2]!.content)).toContain(call.reading);
    }
  },
);

pythonOnly(
  'chained by previous_response_id: each turn sends only its new items, the provider sees the whole conversation',
  async () => {
    harness.fake.script(MODEL, [callsTool('Paris'), echoes, callsTool('Lyon'), echoes]);
    const seen = await harness.withGateway(({ gateway, key }) => runAgents('chain', gateway.url, key));
    const [paris, lyon] = seen.calls;
    // Each turn sent its new items only, naming the response before it; the second run began from the first's last.
    expect(seen.sent.map((request) => [request.path, request.input])).toEqual([
      ['POST /v1/responses', ['message']],
      ['POST /v1/responses', ['function_call_output']],
      ['POST /v1/responses', ['message']],
      ['POST /v1/responses', ['function_call_output']],
    ]);
    const named = seen.sent.map((request) => request.previous_response_id);
    expect(named[0]).toBeNull();
    expect(named[2]).toBe((seen.first as RunSummary).last_response_id);
    expect(named.slice(1).every((id) => id?.startsWith('resp_'))).toBe(true);
    expect([paris!.city, lyon!.city]).toEqual(['Paris', 'Lyon']);
    expect(seen.first).toMatchObject({ final: answerFrom(paris!) });
    expect(seen.second).toMatchObject({ final: answerFrom(lyon!) });

    // The last turn was sent as a previous response's id and a tool output; the gateway rebuilt the rest from the
    // stored responses, so the provider read both questions, both calls and both readings, in order.
    const last = sentMessages()[3]!;
    expect(last.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
    ]);
    const text = JSON.stringify(last);
    for (const part of ['What is the weather in Paris?', paris!.reading, 'And in Lyon?', lyon!.reading]) {
      expect(text).toContain(part);
    }
    expect(text.indexOf(paris!.reading)).toBeLessThan(text.indexOf('And in Lyon?'));
  },
);

// Agent frameworks on the gateway's OpenAI surface: the OpenAI Agents SDK (OpenAIChatCompletionsModel, run_sync
// and streamed) and LangChain's ChatOpenAI with bind_tools (invoke and stream), each running one function tool.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { PYTHON_LANGCHAIN_OPENAI_VERSION, PYTHON_OPENAI_AGENTS_VERSION } from '../../scripts/python-clients';
import type { FakeScenario } from '../../src/fake-provider/scenario';
import { startGatewayHarness, type GatewayHarness } from '../support/gateway-harness';
import { pythonClients, pythonTest } from '../support/python-clients';

const root = path.join(__dirname, '../..');
const clients = pythonClients();
/** The virtual environment's python; its tests are skipped, with the reason printed, where there is none. */
const python = 'python' in clients ? clients.python : '';
const pythonOnly = pythonTest('gateway');

let harness: GatewayHarness;
beforeAll(async () => {
  if ('python' in clients) harness = await startGatewayHarness();
});
afterAll(async () => harness?.close());
beforeEach(() => harness?.fake.reset());

const callsTool: FakeScenario = {
  kind: 'answer',
  toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }],
};
const answers: FakeScenario = { kind: 'answer', text: 'It is 18 degrees and sunny in Paris.' };
const TOOL_OUTPUT = '18 degrees and sunny in Paris';

/** Runs a script from test/support against a gateway; a missing package fails with what to run. */
async function runScript(script: string, gatewayUrl: string, key: string): Promise<Record<string, unknown>> {
  const run = await promisify(execFile)(python, [path.join(root, 'test/support', script)], {
    env: { ...process.env, GATEWAY_BASE_URL: `${gatewayUrl}/v1`, GATEWAY_KEY: key },
  }).catch((error: { code?: number; stderr?: string }) => {
    throw new Error(`${script} failed (exit ${error.code}): ${error.stderr}`);
  });
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

interface SentMessage {
  readonly role: string;
  readonly content?: unknown;
  readonly tool_call_id?: string;
  readonly tool_calls?: { id: string; function: { name: string; arguments: string } }[];
}

/** Each request's messages as the provider received them. */
function sentMessages(): SentMessage[][] {
  return harness.fake
    .requestsFor('gpt-primary')
    .map((request) => (request.body as { messages: SentMessage[] }).messages);
}

/** Whether each request the provider got was streamed: the first loop's two are not, the second loop's are. */
function expectStreamedSecondLoop(): void {
  const streamed = harness.fake
    .requestsFor('gpt-primary')
    .map((request) => (request.body as { stream?: boolean }).stream === true);
  expect(streamed).toEqual([false, false, true, true]);
}

/** Every second request is a tool loop's second turn: it carries the call and the tool's output under its id. */
function expectToolResultsSent(): void {
  const requests = sentMessages();
  for (let index = 1; index < requests.length; index += 2) {
    const messages = requests[index]!;
    const call = messages.find((message) => message.role === 'assistant')?.tool_calls?.[0];
    expect(call?.function.name).toBe('get_weather');
    // Frameworks may write the arguments back in their own spacing; they are the same JSON.
    expect(JSON.parse(call!.function.arguments)).toEqual({ city: 'Paris' });
    const result = messages.find((message) => message.role === 'tool');
    expect(result).toMatchObject({ tool_call_id: call!.id });
    // The output the tool computed from the arguments it was given is what the model saw last.
    expect(JSON.stringify(result!.content)).toContain(TOOL_OUTPUT);
  }
}

pythonOnly('the OpenAI Agents SDK: an agent with one function tool, run_sync and streamed', async () => {
  harness.fake.script('gpt-primary', [callsTool, answers, { ...callsTool, chunkDelayMs: 5 }, answers]);
  const seen = await harness.withGateway(({ gateway, key }) =>
    runScript('gateway_openai_agents.py', gateway.url, key),
  );
  expect(seen).toMatchObject({
    version: PYTHON_OPENAI_AGENTS_VERSION,
    run_sync: 'It is 18 degrees and sunny in Paris.',
    streamed: 'It is 18 degrees and sunny in Paris.',
    cities: ['Paris', 'Paris'],
  });
  expect(seen.stream_event_types).toContain('raw_response_event');
  expect(harness.fake.requestsFor('gpt-primary')).toHaveLength(4);
  // The agent's instructions went as the system prompt, its tool as a strict function tool.
  const first = harness.fake.requestsFor('gpt-primary')[0]!.body as {
    messages: SentMessage[];
    tools: { function: { name: string; strict?: boolean } }[];
  };
  expect(first.messages[0]).toMatchObject({ role: 'system' });
  expect(JSON.stringify(first.messages[0]!.content)).toContain('get_weather tool');
  expect(first.tools[0]!.function).toMatchObject({ name: 'get_weather', strict: true });
  expectToolResultsSent();
  expectStreamedSecondLoop();
});

pythonOnly('LangChain ChatOpenAI with bind_tools: a manual tool loop, invoke and stream', async () => {
  harness.fake.script('gpt-primary', [callsTool, answers, { ...callsTool, chunkDelayMs: 5 }, answers]);
  const seen = await harness.withGateway(({ gateway, key }) =>
    runScript('gateway_langchain.py', gateway.url, key),
  );
  const loop = {
    tool_calls: [{ name: 'get_weather', args: { city: 'Paris' } }],
    final: 'It is 18 degrees and sunny in Paris.',
  };
  expect(seen).toEqual({
    version: PYTHON_LANGCHAIN_OPENAI_VERSION,
    invoke_loop: loop,
    stream_loop: loop,
    cities: ['Paris', 'Paris'],
  });
  expect(harness.fake.requestsFor('gpt-primary')).toHaveLength(4);
  expectToolResultsSent();
  expectStreamedSecondLoop();
});

// The gateway's Responses surface driven by the Vercel AI SDK's own OpenAI provider (`@ai-sdk/openai`, whose
// default model speaks Responses): `generateText` and `streamText` with one tool over several steps; with
// reasoning and store off, each step's encrypted reasoning goes back through the client to the kind that wrote it.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { decryptReasoning } from '../../src/fake-provider/reasoning-encryption';
import type { FakeScenario } from '../../src/fake-provider/scenario';
import { startGatewayHarness, type GatewayHarness } from '../support/gateway-harness';
import { fakeResponsesProvider } from '../support/test-config';

const root = path.join(__dirname, '../..');

let harness: GatewayHarness;
beforeAll(async () => {
  harness = await startGatewayHarness({
    extraProviders: (fake) => ({ responses: fakeResponsesProvider(fake, ['resp-primary']) }),
    extraRoutes: {
      'responses-first': {
        targets: [
          { provider: 'responses', model: 'resp-primary', timeoutMs: 10_000 },
          { provider: 'openai', model: 'gpt-primary', timeoutMs: 10_000 },
        ],
      },
    },
  });
});
afterAll(async () => harness?.close());
beforeEach(() => harness.fake.reset());

interface Step {
  readonly finishReason: string;
  readonly toolCalls: { readonly name: string; readonly input: unknown }[];
  readonly reasoning: string | null;
  /** Per reasoning part: `switchyard:<kind>` for another kind's reasoning, `opaque` for OpenAI's own. */
  readonly reasoningEncrypted: (string | null)[];
  readonly responseId: string;
}

interface Run {
  readonly text: string;
  readonly steps: Step[];
}

interface Seen {
  readonly generate: Run;
  readonly stream: Run & { readonly inputTokens: number | null };
  readonly calls: { city: string; reading: string }[];
  /** What the SDK sent, request by request. */
  readonly sent: { path: string; input: string[]; store: unknown; include: unknown }[];
}

/** Runs the AI SDK client (an ES module, so in its own Node process) against a gateway. */
async function runClient(
  mode: 'plain' | 'stateless' | 'reasoning',
  route: string,
  gatewayUrl: string,
  key: string,
): Promise<Seen> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', path.join(root, 'test/support/gateway-ai-sdk-responses-client.mts')],
    {
      cwd: root,
      env: {
        ...process.env,
        GATEWAY_URL: gatewayUrl,
        GATEWAY_KEY: key,
        GATEWAY_ROUTE: route,
        CLIENT_MODE: mode,
      },
    },
  ).catch((error: { code?: number; stderr?: string }) => {
    throw new Error(`the AI SDK client failed (exit ${error.code}): ${error.stderr}`);
  });
  return JSON.parse(stdout) as Seen;
}

const THOUGHT = 'I should look up Paris.';
const callsTool = (options: { reasoning?: string; chunkDelayMs?: number } = {}): FakeScenario => ({
  kind: 'answer',
  toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }],
  ...options,
});
/** The fake's default answer echoes the last user turn; on Anthropic's wire that is the tool's result. */
const echoes: FakeScenario = { kind: 'answer' };
const answerFrom = (call: { reading: string }) => `Echo: 18 degrees and sunny in Paris (${call.reading})`;

test('the default model, store on: generateText and streamText, one tool over two steps, answers built from its output', async () => {
  harness.fake.script('claude-secondary', [callsTool(), echoes, callsTool({ chunkDelayMs: 5 }), echoes]);
  const seen = await harness.withGateway(({ gateway, key }) =>
    runClient('plain', 'reverse', gateway.url, key),
  );

  const [generateCall, streamCall] = seen.calls;
  expect(seen.calls.map((call) => call.reading)).toHaveLength(2);
  expect(seen.generate.text).toBe(answerFrom(generateCall!));
  expect(seen.stream.text).toBe(answerFrom(streamCall!));
  for (const run of [seen.generate, seen.stream]) {
    expect(run.steps.map(({ finishReason, toolCalls }) => ({ finishReason, toolCalls }))).toEqual([
      { finishReason: 'tool-calls', toolCalls: [{ name: 'get_weather', input: { city: 'Paris' } }] },
      { finishReason: 'stop', toolCalls: [] },
    ]);
    expect(run.steps.every((step) => step.responseId.startsWith('resp_'))).toBe(true);
  }
  expect(seen.stream.inputTokens).toBeGreaterThan(0);
  // Each step sent the whole conversation to the Responses surface: the call inline, its output after it.
  const loop = [['message:user'], ['message:user', 'function_call', 'function_call_output']];
  expect(seen.sent.map((request) => [request.path, request.input])).toEqual(
    [...loop, ...loop].map((input) => ['/v1/responses', input]),
  );
  // The Anthropic target got each second step as a valid loop, the tool's output with that run's reading.
  const requests = harness.fake.requestsFor('claude-secondary');
  expect(requests.map((request) => (request.body as { stream?: boolean }).stream === true)).toEqual([
    false,
    false,
    true,
    true,
  ]);
  for (const [index, call] of [
    [1, generateCall!],
    [3, streamCall!],
  ] as const) {
    const messages = (requests[index]!.body as { messages: { role: string; content: unknown }[] }).messages;
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(JSON.stringify(messages[2]!.content)).toContain(call.reading);
  }
});

test('reasoning with store off, served by Anthropic with thinking: the signed thinking goes out encrypted and comes back intact', async () => {
  harness.fake.script('claude-secondary', [
    callsTool({ reasoning: THOUGHT }),
    echoes,
    callsTool({ reasoning: THOUGHT, chunkDelayMs: 5 }),
    echoes,
  ]);
  const seen = await harness.withGateway(({ gateway, key }) =>
    runClient('reasoning', 'reverse', gateway.url, key),
  );

  for (const run of [seen.generate, seen.stream]) {
    expect(run.steps[0]).toMatchObject({ reasoning: THOUGHT, reasoningEncrypted: ['switchyard:anthropic'] });
    expect(run.steps[1]).toMatchObject({ finishReason: 'stop' });
  }
  expect(seen.generate.text).toBe(answerFrom(seen.calls[0]!));
  expect(seen.stream.text).toBe(answerFrom(seen.calls[1]!));
  // The SDK asked for encrypted reasoning, stored nothing, and sent each step's reasoning back inline.
  for (const request of seen.sent) expect(request).toMatchObject({ store: false });
  expect(seen.sent[0]!.include).toContain('reasoning.encrypted_content');
  expect(seen.sent[1]!.input).toEqual(['message:user', 'reasoning', 'function_call', 'function_call_output']);
  // Anthropic received its own thinking back, signature and all (the fake refuses a signature it did not write).
  const requests = harness.fake.requestsFor('claude-secondary');
  for (const index of [1, 3]) {
    const assistant = (requests[index]!.body as { messages: { role: string; content: unknown[] }[] })
      .messages[1]!;
    expect(assistant.content[0]).toEqual({
      type: 'thinking',
      thinking: THOUGHT,
      signature: expect.any(String),
    });
  }
});

test('reasoning with store off on an openai-responses target: its encrypted content goes back as it was, and stays behind on failover', async () => {
  harness.fake.script('resp-primary', [
    callsTool({ reasoning: THOUGHT }),
    // generateText's second step: the Responses target is down, the Chat Completions target serves.
    { kind: 'error', error: 'service_unavailable' },
    callsTool({ reasoning: THOUGHT, chunkDelayMs: 5 }),
    { kind: 'answer', text: 'Sunny in Paris.' },
  ]);
  harness.fake.script('gpt-primary', { kind: 'answer', text: 'Sunny in Paris, says the Chat target.' });
  const seen = await harness.withGateway(({ gateway, key }) =>
    runClient('reasoning', 'responses-first', gateway.url, key),
  );

  for (const run of [seen.generate, seen.stream]) {
    // No reasoning summary is asked of the target, so the text is empty; the encrypted content is OpenAI's own.
    expect(run.steps[0]).toMatchObject({ reasoningEncrypted: ['opaque'] });
  }
  expect(seen.generate.text).toBe('Sunny in Paris, says the Chat target.');
  expect(seen.stream.text).toBe('Sunny in Paris.');
  const toResponses = harness.fake
    .requestsFor('resp-primary')
    .map((request) => request.body as Record<string, unknown>);
  expect(toResponses).toHaveLength(4);
  for (const first of [0, 2]) {
    expect(toResponses[first]).toMatchObject({ store: false, include: ['reasoning.encrypted_content'] });
  }
  // Each second step carried the first step's reasoning back to the target: content the fake wrote, unaltered
  // (it reads back to the reasoning it carried; the fake refuses anything else, as OpenAI does).
  for (const second of [1, 3]) {
    const items = toResponses[second]!.input as Record<string, unknown>[];
    expect(items.map((item) => item.type)).toEqual([
      'message',
      'reasoning',
      'function_call',
      'function_call_output',
    ]);
    expect(decryptReasoning(String(items[1]!.encrypted_content))?.text).toBe(THOUGHT);
  }
  // The Chat Completions target served a valid loop without any of it.
  const toChat = JSON.stringify(harness.fake.requestsFor('gpt-primary')[0]!.body);
  const encrypted = String((toResponses[1]!.input as Record<string, unknown>[])[1]!.encrypted_content);
  expect(toChat.includes(encrypted)).toBe(false);
  expect(toChat).toContain('"role":"tool"');
});

test('a step that said something before its call: store on sends it as an item reference, read back from the stored response; store off sends it whole', async () => {
  const narrates: FakeScenario = {
    kind: 'answer',
    text: 'Let me look that up.',
    toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }],
  };
  harness.fake.script('claude-secondary', [narrates, echoes, { ...narrates, chunkDelayMs: 5 }, echoes]);
  // With store on, the SDK refers to the step's text by its item id instead of sending it: the gateway reads it
  // back from the response that answered the step (the id names its workflow).
  const referred = await harness.withGateway(({ gateway, key }) =>
    runClient('plain', 'reverse', gateway.url, key),
  );
  expect(referred.generate.text).toBe(answerFrom(referred.calls[0]!));
  expect(referred.stream.text).toBe(answerFrom(referred.calls[1]!));
  expect(referred.sent[1]!.input).toEqual([
    'message:user',
    'item_reference',
    'function_call',
    'function_call_output',
  ]);
  const readBack = (
    harness.fake.requestsFor('claude-secondary')[1]!.body as { messages: { content: unknown }[] }
  ).messages[1]!;
  expect(JSON.stringify(readBack.content)).toContain('Let me look that up.');
  expect(JSON.stringify(readBack.content)).toContain('get_weather');

  harness.fake.reset();
  harness.fake.script('claude-secondary', [narrates, echoes, { ...narrates, chunkDelayMs: 5 }, echoes]);
  const seen = await harness.withGateway(({ gateway, key }) =>
    runClient('stateless', 'reverse', gateway.url, key),
  );
  expect(seen.generate.text).toBe(answerFrom(seen.calls[0]!));
  expect(seen.stream.text).toBe(answerFrom(seen.calls[1]!));
  expect(seen.sent[1]!.input).toEqual([
    'message:user',
    'message:assistant',
    'function_call',
    'function_call_output',
  ]);
  const assistant = (
    harness.fake.requestsFor('claude-secondary')[1]!.body as { messages: { content: unknown }[] }
  ).messages[1]!;
  expect(JSON.stringify(assistant.content)).toContain('Let me look that up.');
});

// The gateway's older surfaces on an openai-responses target: a Chat Completions tool loop (JSON and streamed) and
// an Anthropic Messages one with thinking, each turn a valid stateless Responses request where the provider reads
// it (the fake refuses an invalid one, as OpenAI does).
import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import type { FakeScenario } from '../../src/fake-provider/scenario';
import { startGatewayHarness, type GatewayHarness } from '../support/gateway-harness';
import { fakeResponsesProvider } from '../support/test-config';

let harness: GatewayHarness;
beforeAll(async () => {
  harness = await startGatewayHarness({
    extraProviders: (fake) => ({ responses: fakeResponsesProvider(fake, ['resp-primary']) }),
    extraRoutes: {
      'responses-only': { targets: [{ provider: 'responses', model: 'resp-primary', timeoutMs: 10_000 }] },
    },
  });
});
afterAll(async () => harness?.close());
beforeEach(() => harness.fake.reset());

const THOUGHT = 'Look the city up first.';
const callsTool = (chunkDelayMs = 0): FakeScenario => ({
  kind: 'answer',
  reasoning: THOUGHT,
  toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }],
  chunkDelayMs,
});
const answers: FakeScenario = { kind: 'answer', text: 'Sunny in Paris.' };
const parameters = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

type ResponsesItem = Record<string, unknown>;

/** The input items of each request the Responses target received. */
function sentInputs(): ResponsesItem[][] {
  return harness.fake
    .requestsFor('resp-primary')
    .map((request) => (request.body as { input: ResponsesItem[] }).input);
}

/** The second turn of a loop as the target read it: the question, the call, its output under the call's id. */
function expectLoopTurn(input: ResponsesItem[], output: string): void {
  const types = input.map((item) => item.type);
  // A reasoning item goes back only with the id and encrypted content the target gave it; these surfaces keep
  // neither, so the call goes back without it (a valid request: the API takes a call alone).
  expect(types).toEqual(['message', 'function_call', 'function_call_output']);
  expect(input[1]).toMatchObject({ name: 'get_weather' });
  expect(JSON.parse(String(input[1]!.arguments))).toEqual({ city: 'Paris' });
  expect(input[2]).toMatchObject({ call_id: input[1]!.call_id, output });
}

test('Chat Completions on an openai-responses target: a tool loop JSON and streamed, each turn stateless', async () => {
  harness.fake.script('resp-primary', [callsTool(), answers, callsTool(5), answers]);
  const finals = await harness.withGateway(async ({ openai }) => {
    const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
      { type: 'function', function: { name: 'get_weather', parameters } },
    ];
    const question: OpenAI.Chat.Completions.ChatCompletionMessageParam = {
      role: 'user',
      content: 'Weather in Paris?',
    };
    const base = { model: 'responses-only', tools, reasoning_effort: 'low' as const, max_tokens: 1024 };
    // JSON: the answer's message goes back as it came.
    const first = await openai.chat.completions.create({ ...base, messages: [question] });
    const call = first.choices[0]!.message.tool_calls![0]!;
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    const second = await openai.chat.completions.create({
      ...base,
      messages: [
        question,
        first.choices[0]!.message,
        { role: 'tool', tool_call_id: call.id, content: '18 degrees' },
      ],
    });
    // Streamed: the SDK's stream helper accumulates the message.
    const streamedFirst = await openai.chat.completions
      .stream({ ...base, messages: [question] })
      .finalChatCompletion();
    const streamedCall = streamedFirst.choices[0]!.message.tool_calls![0]!;
    const streamedSecond = await openai.chat.completions
      .stream({
        ...base,
        messages: [
          question,
          { role: 'assistant', content: null, tool_calls: streamedFirst.choices[0]!.message.tool_calls },
          { role: 'tool', tool_call_id: streamedCall.id, content: '19 degrees' },
        ],
      })
      .finalChatCompletion();
    return [second, streamedSecond].map((completion) => completion.choices[0]!.message.content);
  });
  expect(finals).toEqual(['Sunny in Paris.', 'Sunny in Paris.']);
  const requests = harness.fake.requestsFor('resp-primary');
  expect(requests.map((request) => (request.body as { stream?: boolean }).stream === true)).toEqual([
    false,
    false,
    true,
    true,
  ]);
  for (const request of requests)
    expect(request.body).toMatchObject({ store: false, reasoning: { effort: 'low' } });
  expectLoopTurn(sentInputs()[1]!, '18 degrees');
  expectLoopTurn(sentInputs()[3]!, '19 degrees');
});

test('Anthropic Messages with thinking on an openai-responses target: the tool loop is valid there, no made-up signature sent', async () => {
  harness.fake.script('resp-primary', [callsTool(), answers]);
  const { firstContent, final } = await harness.withGateway(async ({ anthropic }) => {
    const base = {
      model: 'responses-only',
      max_tokens: 2048,
      thinking: { type: 'enabled' as const, budget_tokens: 1024 },
      tools: [{ name: 'get_weather', input_schema: parameters as Anthropic.Tool.InputSchema }],
    };
    const question: Anthropic.MessageParam = { role: 'user', content: 'Weather in Paris?' };
    const first = await anthropic.messages.create({ ...base, messages: [question] });
    const toolUse = first.content.find((block) => block.type === 'tool_use')!;
    const second = await anthropic.messages.create({
      ...base,
      messages: [
        question,
        // Sent back whole, as Anthropic clients must in a tool loop: thinking blocks included.
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse.id, content: '18 degrees' }] },
      ],
    });
    return {
      firstContent: first.content,
      final: second.content.map((block) => (block.type === 'text' ? block.text : '')).join(''),
    };
  });
  expect(firstContent.map((block) => block.type)).toContain('tool_use');
  expect(final).toBe('Sunny in Paris.');
  expectLoopTurn(sentInputs()[1]!, '18 degrees');
  // A thinking block the gateway marked as another kind's never reaches any provider with its marker.
  expect(JSON.stringify(harness.fake.requestsFor('resp-primary')[1]!.body)).not.toContain('switchyard:');
});

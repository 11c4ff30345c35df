// The openai-responses kind in whole conversations on a real dev server: a tool loop whose reasoning came back
// encrypted fails over to a Chat Completions target and to an Anthropic one, and the other way round, each
// conversation valid where it lands (the fake refuses an invalid one, as the real APIs do).
import { assistantMessageOf } from '../../src/config/conversation';
import type { Config } from '../../src/config/config';
import type { GenerationRequestInput, Message } from '../../src/config/request';
import { startHarness, type Harness } from '../support/harness';
import { fakeResponsesProvider } from '../support/test-config';

/** A provider of the openai-responses kind on the same fake, beside the test config's two. */
function withResponsesProvider(config: Config): Config {
  const fake = { openaiBaseURL: config.providers.openai!.baseURL! };
  return {
    ...config,
    providers: { ...config.providers, responses: fakeResponsesProvider(fake, ['resp-primary']) },
  };
}

const target = (provider: 'openai' | 'anthropic' | 'responses', model: string) => ({
  provider,
  model,
  timeoutMs: 5_000,
});
const weatherTool = {
  name: 'weather',
  description: 'Current weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const THOUGHT = 'The user wants weather; call the tool.';

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness(withResponsesProvider);
});
afterAll(async () => harness?.close());
beforeEach(() => harness.fake.reset());

function lastBody(model: string): Record<string, unknown> {
  const requests = harness.fake.requestsFor(model);
  return requests[requests.length - 1]!.body as Record<string, unknown>;
}

/** The conversation after a tool-calling turn: the question, the answer unchanged, the tool's result. */
function afterToolTurn(
  first: GenerationRequestInput,
  answer: Parameters<typeof assistantMessageOf>[0],
  result: string,
) {
  const call = answer.toolCalls[0]!;
  return [
    ...(first.messages as Message[]),
    assistantMessageOf(answer),
    { role: 'tool', content: [{ type: 'tool_result', callId: call.id, content: result }] },
  ] satisfies Message[];
}

const question = (city: string): GenerationRequestInput => ({
  messages: [{ role: 'user', content: `Weather in ${city}?` }],
  tools: [weatherTool],
  reasoning: { effort: 'low' },
  maxOutputTokens: 2048,
});

test('failover mid tool loop from a Responses target to a Chat Completions one: the encrypted reasoning stays behind', async () => {
  harness.fake.script('resp-primary', {
    kind: 'answer',
    reasoning: THOUGHT,
    toolCalls: [{ name: 'weather', arguments: { city: 'Oslo' } }],
  });
  const first = question('Oslo');
  const route = { targets: [target('responses', 'resp-primary'), target('openai', 'gpt-primary')] };
  const turn1 = await harness.withWorker((switchyard) => switchyard.generate({ route, request: first }));
  expect(turn1.record.servedBy?.model).toBe('resp-primary');
  // The reasoning came back stateless: its encrypted content and its item id, stamped with its kind.
  const reasoning = turn1.answer.reasoning?.[0];
  expect(reasoning).toMatchObject({ origin: 'openai-responses', id: expect.stringMatching(/^rs_/) });
  const encrypted = reasoning!.signature!;
  expect(encrypted.length).toBeGreaterThan(0);
  expect(lastBody('resp-primary')).toMatchObject({ store: false, include: ['reasoning.encrypted_content'] });

  // The second turn: the Responses target fails, the Chat Completions target serves the same conversation.
  harness.fake.script('resp-primary', { kind: 'error', error: 'service_unavailable' });
  harness.fake.script('gpt-primary', { kind: 'answer', text: 'It is 3 degrees in Oslo.' });
  const messages = afterToolTurn(first, turn1.answer, '3 degrees, clear');
  const turn2 = await harness.withWorker((switchyard) =>
    switchyard.generate({ route, request: { ...first, messages } }),
  );
  expect(turn2.answer.text).toBe('It is 3 degrees in Oslo.');
  expect(turn2.record.attempts.map((attempt) => [attempt.model, attempt.outcome])).toEqual([
    ['resp-primary', 'failed'],
    ['gpt-primary', 'succeeded'],
  ]);
  // The Responses target was sent its own reasoning back, whole, before the call and its output.
  const toResponses = lastBody('resp-primary').input as Record<string, unknown>[];
  expect(toResponses.map((item) => item.type)).toEqual([
    'message',
    'reasoning',
    'function_call',
    'function_call_output',
  ]);
  expect(toResponses[1]).toMatchObject({ encrypted_content: encrypted });
  expect(toResponses[3]).toMatchObject({ call_id: toResponses[2]!.call_id, output: '3 degrees, clear' });
  // The Chat Completions target got a valid loop (the fake checks the call ids match) and none of the reasoning.
  const toChat = lastBody('gpt-primary');
  const sent = toChat.messages as Record<string, unknown>[];
  expect(sent.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
  expect(sent[2]).toMatchObject({ content: '3 degrees, clear' });
  const chatText = JSON.stringify(toChat);
  expect(chatText.includes(encrypted)).toBe(false);
  expect(chatText.includes(reasoning!.id!)).toBe(false);
  expect(chatText).not.toContain('reasoning_content');
});

test('failover mid tool loop from a Chat Completions target to a Responses one: the call and its output pair up', async () => {
  harness.fake.script('gpt-primary', {
    kind: 'answer',
    reasoning: THOUGHT,
    toolCalls: [{ name: 'weather', arguments: { city: 'Lima' } }],
  });
  const first = question('Lima');
  const route = { targets: [target('openai', 'gpt-primary'), target('responses', 'resp-primary')] };
  const turn1 = await harness.withWorker((switchyard) => switchyard.generate({ route, request: first }));
  expect(turn1.record.servedBy?.model).toBe('gpt-primary');

  harness.fake.script('gpt-primary', { kind: 'error', error: 'service_unavailable' });
  harness.fake.script('resp-primary', { kind: 'answer', text: '24 degrees in Lima.' });
  const turn2 = await harness.withWorker((switchyard) =>
    switchyard.generate({
      route,
      request: { ...first, messages: afterToolTurn(first, turn1.answer, '24 degrees') },
    }),
  );
  expect(turn2.record.servedBy?.model).toBe('resp-primary');
  expect(turn2.answer.text).toBe('24 degrees in Lima.');
  const input = lastBody('resp-primary').input as Record<string, unknown>[];
  // No reasoning item: the Chat target's reasoning text means nothing to OpenAI's encrypted reasoning.
  expect(input.map((item) => item.type)).toEqual(['message', 'function_call', 'function_call_output']);
  expect(input[1]).toMatchObject({ name: 'weather' });
  expect(JSON.parse(String(input[1]!.arguments))).toEqual({ city: 'Lima' });
  expect(input[2]).toMatchObject({ call_id: input[1]!.call_id, output: '24 degrees' });
  expect(JSON.stringify(input)).not.toContain(THOUGHT);
});

test('Responses reasoning and Anthropic thinking each go only to their own kind, across failovers both ways', async () => {
  // A loop begun on Anthropic with thinking continues on the Responses target without the signed thinking…
  harness.fake.script('claude-primary', {
    kind: 'answer',
    reasoning: THOUGHT,
    toolCalls: [{ name: 'weather', arguments: { city: 'Rome' } }],
  });
  const first: GenerationRequestInput = { ...question('Rome'), reasoning: { budgetTokens: 1024 } };
  const toResponses = {
    targets: [target('anthropic', 'claude-primary'), target('responses', 'resp-primary')],
  };
  const turn1 = await harness.withWorker((switchyard) =>
    switchyard.generate({ route: toResponses, request: first }),
  );
  const signature = turn1.answer.reasoning![0]!.signature!;
  harness.fake.script('claude-primary', { kind: 'error', error: 'overloaded' });
  harness.fake.script('resp-primary', {
    kind: 'answer',
    reasoning: 'Now answer.',
    toolCalls: [{ name: 'weather', arguments: { city: 'Milan' } }],
  });
  const messages = afterToolTurn(first, turn1.answer, '20 degrees');
  const turn2 = await harness.withWorker((switchyard) =>
    switchyard.generate({ route: toResponses, request: { ...first, messages } }),
  );
  expect(turn2.record.servedBy?.model).toBe('resp-primary');
  const sentToResponses = JSON.stringify(lastBody('resp-primary'));
  expect(sentToResponses.includes(signature)).toBe(false);
  expect(sentToResponses).not.toContain(THOUGHT);

  // …and a turn whose reasoning is the Responses target's passes Anthropic with thinking over before sending
  // (its tool-calling turn must begin with Anthropic's own signed thinking), so the Responses target serves it.
  const requestsToClaude = harness.fake.requestsFor('claude-primary').length;
  harness.fake.script('resp-primary', { kind: 'answer', text: 'Rome 20, Milan 18.' });
  const turn3 = await harness.withWorker((switchyard) =>
    switchyard.generate({
      route: toResponses,
      request: { ...first, messages: afterToolTurn({ ...first, messages }, turn2.answer, '18 degrees') },
    }),
  );
  expect(turn3.record.attempts[0]).toMatchObject({
    outcome: 'skipped',
    skipReason: 'unsupported_input',
    model: 'claude-primary',
  });
  expect(turn3.answer.text).toBe('Rome 20, Milan 18.');
  expect(harness.fake.requestsFor('claude-primary')).toHaveLength(requestsToClaude);
  // The Responses target got its own reasoning from turn 2 back, and still not Anthropic's from turn 1.
  const input = lastBody('resp-primary').input as Record<string, unknown>[];
  expect(input.filter((item) => item.type === 'reasoning')).toEqual([
    expect.objectContaining({ encrypted_content: turn2.answer.reasoning![0]!.signature }),
  ]);
  expect(JSON.stringify(input).includes(signature)).toBe(false);
});

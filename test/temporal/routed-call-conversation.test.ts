// Whole conversations through routed calls on a real dev server: tool loops, reasoning kept to its own kind across
// failover, targets that cannot take a conversation passed over, cache and image costs charged and bounded.
import { assistantMessageOf } from '../../src/config/conversation';
import type { Config } from '../../src/config/config';
import { GenerationRequestSchema, type GenerationRequestInput, type Message } from '../../src/config/request';
import { conversationTraits } from '../../src/config/conversation';
import { estimateInputTokens } from '../../src/routing/estimate-tokens';
import { targetInputBound } from '../../src/routing/media-bounds';
import { attemptBound, costOfUsage, nanoToUsd } from '../../src/routing/money';
import { RoutedCallError } from '../../src/client/errors';
import { expectRoutedCallError } from '../support/expect-failure';
import { startHarness, type Harness } from '../support/harness';
import { settledLedger } from '../support/settled-ledger';
import { uniqueName } from '../support/temporal';

const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010806000000' +
    '1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082',
  'hex',
).toString('base64');

/**
 * gpt-secondary declares it takes no images; gpt-primary bills at most gpt-4o's high-detail worst case per image
 * (85 + 8 × 170 tokens), where the kind's default would be gpt-4o-mini's 48 169; every other model takes everything.
 */
function conversationModels(config: Config): Config {
  const openai = config.providers.openai!;
  return {
    ...config,
    providers: {
      ...config.providers,
      openai: {
        ...openai,
        models: {
          ...openai.models,
          'gpt-primary': { ...openai.models['gpt-primary']!, maxImageTokens: GPT_IMAGE_TOKENS },
          'gpt-secondary': { ...openai.models['gpt-secondary']!, supports: { images: false } },
        },
      },
    },
  };
}

const GPT_IMAGE_TOKENS = 1_445;
const target = (provider: 'openai' | 'anthropic', model: string) => ({ provider, model, timeoutMs: 5_000 });
const weatherTool = {
  name: 'weather',
  description: 'Current weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const prices = { inputUsdPerMillion: 1, cachedInputUsdPerMillion: 0.5, outputUsdPerMillion: 4 };

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness(conversationModels);
});
afterAll(async () => harness?.close());
beforeEach(() => harness.fake.reset());

/** The messages a provider received in its last request for `model`. */
function lastBody(model: string): Record<string, unknown> {
  const requests = harness.fake.requestsFor(model);
  return requests[requests.length - 1]!.body as Record<string, unknown>;
}

test('a tool loop: the answer goes back unchanged with the tool result, and the provider sees both', async () => {
  harness.fake.script('gpt-primary', [
    { kind: 'answer', toolCalls: [{ name: 'weather', arguments: { city: 'Oslo' } }] },
    { kind: 'answer', text: 'It is 3 degrees in Oslo.' },
  ]);
  const route = { targets: [target('openai', 'gpt-primary')] };
  const first: GenerationRequestInput = {
    messages: [{ role: 'user', content: 'Weather in Oslo?' }],
    tools: [weatherTool],
    toolChoice: 'required',
  };
  const { answers } = await harness.withWorker(async (switchyard) => {
    const turn1 = await switchyard.generate({ route, request: first });
    const call = turn1.answer.toolCalls[0]!;
    const messages: Message[] = [
      ...(first.messages as Message[]),
      assistantMessageOf(turn1.answer),
      { role: 'tool', content: [{ type: 'tool_result', callId: call.id, content: '3 degrees, clear' }] },
    ];
    const turn2 = await switchyard.generate({ route, request: { ...first, messages, toolChoice: 'auto' } });
    return { answers: [turn1.answer, turn2.answer] };
  });
  expect(answers[0]!.finishReason.unified).toBe('tool_calls');
  expect(JSON.parse(answers[0]!.toolCalls[0]!.arguments)).toEqual({ city: 'Oslo' });
  expect(answers[1]!.text).toBe('It is 3 degrees in Oslo.');
  const sent = lastBody('gpt-primary').messages as Record<string, unknown>[];
  expect(sent.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
  expect(sent[2]).toMatchObject({ tool_call_id: answers[0]!.toolCalls[0]!.id, content: '3 degrees, clear' });
});

test('failover across kinds mid-loop: signed thinking goes only to Anthropic, intact; the OpenAI target never sees it', async () => {
  harness.fake.script('claude-primary', [
    {
      kind: 'answer',
      reasoning: 'The user wants weather; call the tool.',
      toolCalls: [{ name: 'weather', arguments: { city: 'Lima' } }],
    },
  ]);
  const thinking = { budgetTokens: 1024 } as const;
  const first: GenerationRequestInput = {
    messages: [{ role: 'user', content: 'Weather in Lima?' }],
    tools: [weatherTool],
    reasoning: thinking,
    maxOutputTokens: 2048,
  };
  // The first turn on Anthropic with thinking on.
  const turn1 = await harness.withWorker((switchyard) =>
    switchyard.generate({ route: { targets: [target('anthropic', 'claude-primary')] }, request: first }),
  );
  expect(turn1.answer.reasoning).toEqual([
    expect.objectContaining({ text: 'The user wants weather; call the tool.', origin: 'anthropic' }),
  ]);
  const messages: Message[] = [
    ...(first.messages as Message[]),
    assistantMessageOf(turn1.answer),
    {
      role: 'tool',
      content: [{ type: 'tool_result', callId: turn1.answer.toolCalls[0]!.id, content: '24 degrees' }],
    },
  ];
  // The second turn: OpenAI first (it fails over), then Anthropic, which checks the thinking's signature.
  harness.fake.script('gpt-primary', { kind: 'error', error: 'service_unavailable' });
  harness.fake.script('claude-primary', { kind: 'answer', text: '24 degrees in Lima.' });
  const turn2 = await harness.withWorker((switchyard) =>
    switchyard.generate({
      route: { targets: [target('openai', 'gpt-primary'), target('anthropic', 'claude-primary')] },
      request: { ...first, messages },
    }),
  );
  expect(turn2.record.servedBy?.model).toBe('claude-primary');
  expect(turn2.answer.text).toBe('24 degrees in Lima.');
  const toOpenAI = JSON.stringify(lastBody('gpt-primary'));
  expect(toOpenAI).not.toContain('The user wants weather');
  expect(toOpenAI).not.toContain(turn1.answer.reasoning![0]!.signature!);
  const assistant = (lastBody('claude-primary').messages as { role: string; content: unknown }[])[1]!;
  expect(assistant.content).toEqual([
    {
      type: 'thinking',
      thinking: 'The user wants weather; call the tool.',
      signature: turn1.answer.reasoning![0]!.signature,
    },
    expect.objectContaining({ type: 'tool_use', id: turn1.answer.toolCalls[0]!.id, input: { city: 'Lima' } }),
  ]);
});

test('thinking on, a tool turn whose reasoning came from another kind: Anthropic is passed over before sending', async () => {
  const request: GenerationRequestInput = {
    messages: [
      { role: 'user', content: 'Weather in Rome?' },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'call it', origin: 'openai-compatible' },
          { type: 'tool_call', id: 'call_1', name: 'weather', arguments: '{"city":"Rome"}' },
        ],
      },
      { role: 'tool', content: [{ type: 'tool_result', callId: 'call_1', content: '20 degrees' }] },
    ],
    tools: [weatherTool],
    reasoning: { budgetTokens: 1024 },
    maxOutputTokens: 2048,
  };
  const error = await expectRoutedCallError(
    harness.withWorker((switchyard) =>
      switchyard.generate({ route: { targets: [target('anthropic', 'claude-primary')] }, request }),
    ),
  );
  expect(error.type).toBe('InvalidRequest');
  expect(error.record?.attempts).toEqual([
    expect.objectContaining({ outcome: 'skipped', skipReason: 'unsupported_input', model: 'claude-primary' }),
  ]);
  expect(harness.fake.requests).toHaveLength(0);
});

test('an image goes past a text-only model, recorded, and is served by the next', async () => {
  const request: GenerationRequestInput = {
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image', data: PNG, mediaType: 'image/png' },
        ],
      },
    ],
  };
  const { record } = await harness.withWorker((switchyard) =>
    switchyard.generate({
      route: { targets: [target('openai', 'gpt-secondary'), target('anthropic', 'claude-primary')] },
      request,
    }),
  );
  expect(record.attempts[0]).toMatchObject({
    outcome: 'skipped',
    skipReason: 'unsupported_input',
    message: 'the model does not accept images',
  });
  expect(record.servedBy?.model).toBe('claude-primary');
  expect(harness.fake.requestsFor('gpt-secondary')).toHaveLength(0);
  const sent = (lastBody('claude-primary').messages as { content: unknown[] }[])[0]!.content;
  expect(sent[1]).toEqual({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } });
});

test('cache reads and cache writes are charged at their own prices', async () => {
  const usage = {
    inputTokens: 100,
    cachedInputTokens: 2_000,
    cacheWriteInputTokens: 3_000,
    cacheWrite1hInputTokens: 4_000,
    outputTokens: 50,
  };
  harness.fake.script('claude-primary', { kind: 'answer', text: 'cached', usage });
  const { answer, record } = await harness.withWorker((switchyard) =>
    switchyard.generate({
      route: { targets: [target('anthropic', 'claude-primary')] },
      request: {
        system: [{ type: 'text', text: 'A long shared preamble.', cache: { ttl: '1h' } }],
        messages: [{ role: 'user', content: 'Hi' }],
      },
    }),
  );
  expect(answer.usage).toMatchObject(usage);
  // Test prices: input 1, cache read 0.5; writes at Anthropic's multipliers of the input price, 1.25 and 2.
  const expected = costOfUsage(
    { ...prices, cacheWriteUsdPerMillion: 1.25, cacheWrite1hUsdPerMillion: 2 },
    usage,
  );
  expect(expected).toBe(100 * 1000 + 2_000 * 500 + 3_000 * 1250 + 4_000 * 2000 + 50 * 4000);
  expect(record.totalCostNanoUsd).toBe(expected);
  expect(lastBody('claude-primary').system).toEqual([
    { type: 'text', text: 'A long shared preamble.', cache_control: { type: 'ephemeral', ttl: '1h' } },
  ]);
});

test('10 concurrent image calls against a scope sized for 3.5 of their bounds: exactly 3 are served, no overspend', async () => {
  const budget = uniqueName('images');
  const request = GenerationRequestSchema.parse({
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Compare these.' },
          { type: 'image', data: PNG, mediaType: 'image/png' },
          { type: 'image', url: 'https://example.com/b.png' },
          { type: 'image', data: PNG, mediaType: 'image/png' },
        ],
      },
    ],
    maxOutputTokens: 64,
  });
  const input = targetInputBound(
    { providerKind: 'openai', maxImageTokens: GPT_IMAGE_TOKENS },
    estimateInputTokens(request),
    conversationTraits(request),
  );
  const bound = attemptBound(prices, input.tokens, request.maxOutputTokens);
  // The provider bills every image at its worst: a bound that left images out would let more calls in.
  harness.fake.scriptAlways('gpt-primary', {
    kind: 'answer',
    text: 'ok',
    usage: { inputTokens: input.tokens, outputTokens: request.maxOutputTokens },
    delayMs: 300,
  });
  const { outcomes, snapshot } = await harness.withWorker(async (switchyard) => {
    await switchyard.ledgers.setLimit(budget, { limitUsd: nanoToUsd(bound * 3.5) });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, () =>
        switchyard.generate({ route: { targets: [target('openai', 'gpt-primary')] }, request, budget }),
      ),
    );
    return { outcomes, snapshot: await settledLedger(switchyard.ledgers, budget) };
  });
  const served = outcomes.filter((outcome) => outcome.status === 'fulfilled').length;
  const refused = outcomes.filter(
    (outcome) =>
      outcome.status === 'rejected' &&
      outcome.reason instanceof RoutedCallError &&
      outcome.reason.type === 'BudgetExceeded',
  ).length;
  expect({ served, refused }).toEqual({ served: 3, refused: 7 });
  expect(snapshot.spentNanoUsd).toBe(3 * bound);
  expect(snapshot.spentNanoUsd).toBeLessThanOrEqual(snapshot.limitNanoUsd!);
  expect(snapshot.overdraftNanoUsd ?? 0).toBe(0);
});

test('an option one kind cannot honour passes that target over and the next kind serves it as asked', async () => {
  const request: GenerationRequestInput = {
    messages: [{ role: 'user', content: 'Pick a number' }],
    seed: 42,
    topK: 5,
  };
  const { record } = await harness.withWorker((switchyard) =>
    switchyard.generate({
      route: {
        targets: [target('anthropic', 'claude-primary'), target('openai', 'gpt-primary')],
      },
      request: { ...request, topK: undefined },
    }),
  );
  expect(record.attempts[0]).toMatchObject({
    outcome: 'skipped',
    skipReason: 'unsupported_input',
    message: 'seed: Anthropic has no seed',
  });
  expect(record.servedBy?.model).toBe('gpt-primary');
  expect(lastBody('gpt-primary')).toMatchObject({ seed: 42 });
  expect(harness.fake.requestsFor('claude-primary')).toHaveLength(0);
  // topK: OpenAI has none and Anthropic has no seed: no target can take it, and nothing is sent.
  const error = await expectRoutedCallError(
    harness.withWorker((switchyard) =>
      switchyard.generate({
        route: { targets: [target('anthropic', 'claude-primary'), target('openai', 'gpt-primary')] },
        request,
      }),
    ),
  );
  expect(error.type).toBe('InvalidRequest');
  expect(error.record?.attempts.map((attempt) => attempt.message)).toEqual([
    'seed: Anthropic has no seed',
    'topK: OpenAI Chat Completions has no top_k parameter',
  ]);
  expect(harness.fake.requestsFor('gpt-primary')).toHaveLength(1);
});

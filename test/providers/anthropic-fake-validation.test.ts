// The fake Anthropic refuses what the real Messages API refuses, with its 400 and kind of message (raw SDK calls).
import Anthropic, { BadRequestError } from '@anthropic-ai/sdk';
import { startFakeProvider, type FakeProvider } from '../../src/fake-provider';
import { signThinking } from '../../src/fake-provider/thinking-signature';
import { ANTHROPIC_KEY } from './provider-fixtures';

const MODEL = 'claude-validation';
const PNG_1X1 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
const TOOLS = [{ name: 'lookup', input_schema: { type: 'object' as const } }];

let fake: FakeProvider;
let client: Anthropic;

beforeAll(async () => {
  fake = await startFakeProvider();
  client = new Anthropic({ apiKey: ANTHROPIC_KEY, baseURL: fake.anthropicBaseURL, maxRetries: 0 });
});

afterEach(() => fake.reset());

afterAll(async () => {
  await fake.close();
});

/** A body the SDK sends as given: the fake's checks, not the SDK's types, are under test. */
type RawBody = Record<string, unknown>;

async function send(body: RawBody): Promise<Anthropic.Message> {
  return client.messages.create({ model: MODEL, max_tokens: 4096, ...body } as never);
}

async function refusal(body: RawBody): Promise<string> {
  try {
    await send(body);
  } catch (error) {
    if (error instanceof BadRequestError && error.type === 'invalid_request_error') return error.message;
    throw error;
  }
  throw new Error('expected a 400 invalid_request_error, but the fake answered');
}

const toolUse = (id: string) => ({ type: 'tool_use', id, name: 'lookup', input: {} });
const toolResult = (id: string, content: unknown = 'ok') => ({
  type: 'tool_result',
  tool_use_id: id,
  content,
});
const thinking = (text: string, signature = signThinking(text)) => ({
  type: 'thinking',
  thinking: text,
  signature,
});

describe('fake Anthropic validation', () => {
  it('takes a well-formed tool loop with thinking', async () => {
    const answer = await send({
      tools: TOOLS,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: [thinking('Call lookup.'), toolUse('toolu_1')] },
        { role: 'user', content: [toolResult('toolu_1', [{ type: 'text', text: 'Sunny' }])] },
      ],
    });
    expect(answer.content).toEqual([{ type: 'text', text: 'Echo: Sunny' }]);
  });

  it.each<[string, RawBody, string]>([
    [
      'an altered thinking text',
      {
        messages: [
          { role: 'user', content: 'Q' },
          {
            role: 'assistant',
            content: [thinking('Call lookup.', signThinking('Call lookup!')), toolUse('toolu_1')],
          },
          { role: 'user', content: [toolResult('toolu_1')] },
        ],
        tools: TOOLS,
      },
      'Invalid `signature` in `thinking` block',
    ],
    [
      'a foreign signature',
      {
        messages: [
          { role: 'user', content: 'Q' },
          {
            role: 'assistant',
            content: [thinking('Hmm.', 'EqQBCgIYAhIM1gbcDa9GJwZA2b3h'), { type: 'text', text: 'A' }],
          },
          { role: 'user', content: 'more' },
        ],
      },
      'Invalid `signature` in `thinking` block',
    ],
    [
      'two user turns in a row',
      {
        messages: [
          { role: 'user', content: 'a' },
          { role: 'user', content: 'b' },
        ],
      },
      'roles must alternate',
    ],
    [
      'a tool result for no tool use of the previous turn',
      {
        messages: [
          { role: 'user', content: 'Q' },
          { role: 'assistant', content: [toolUse('toolu_1')] },
          { role: 'user', content: [toolResult('toolu_1'), toolResult('toolu_9')] },
        ],
        tools: TOOLS,
      },
      'unexpected `tool_use_id`',
    ],
    [
      'a tool use left without its result',
      {
        messages: [
          { role: 'user', content: 'Q' },
          { role: 'assistant', content: [toolUse('toolu_1'), toolUse('toolu_2')] },
          { role: 'user', content: [toolResult('toolu_1')] },
        ],
        tools: TOOLS,
      },
      'without `tool_result` blocks immediately after: toolu_2',
    ],
    [
      'a tool result after text',
      {
        messages: [
          { role: 'user', content: 'Q' },
          { role: 'assistant', content: [toolUse('toolu_1')] },
          { role: 'user', content: [{ type: 'text', text: 'here' }, toolResult('toolu_1')] },
        ],
        tools: TOOLS,
      },
      '`tool_result` blocks must come first',
    ],
    [
      'a tool use id with a dot',
      {
        messages: [
          { role: 'user', content: 'Q' },
          { role: 'assistant', content: [toolUse('call.1')] },
          { role: 'user', content: [toolResult('call.1')] },
        ],
        tools: TOOLS,
      },
      "String should match pattern '^[a-zA-Z0-9_-]+$'",
    ],
    [
      'image data that does not decode',
      {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'not base64!' } },
            ],
          },
        ],
      },
      'invalid base64 data',
    ],
    [
      'an image media type Anthropic does not take',
      {
        messages: [
          {
            role: 'user',
            content: [{ type: 'image', source: { type: 'base64', media_type: 'image/bmp', data: PNG_1X1 } }],
          },
        ],
      },
      'media_type',
    ],
    [
      'a thinking budget below 1024',
      { thinking: { type: 'enabled', budget_tokens: 512 }, messages: [{ role: 'user', content: 'Q' }] },
      'greater than or equal to 1024',
    ],
    [
      'a thinking budget not below max_tokens',
      {
        max_tokens: 2000,
        thinking: { type: 'enabled', budget_tokens: 2000 },
        messages: [{ role: 'user', content: 'Q' }],
      },
      '`max_tokens` must be greater than `thinking.budget_tokens`',
    ],
    [
      'a temperature with thinking',
      {
        temperature: 0.3,
        thinking: { type: 'enabled', budget_tokens: 1024 },
        messages: [{ role: 'user', content: 'Q' }],
      },
      '`temperature` may only be set to 1 when thinking is enabled',
    ],
    [
      'a tool loop whose assistant turn does not start with thinking, thinking on',
      {
        tools: TOOLS,
        thinking: { type: 'enabled', budget_tokens: 1024 },
        messages: [
          { role: 'user', content: 'Q' },
          { role: 'assistant', content: [toolUse('toolu_1')] },
          { role: 'user', content: [toolResult('toolu_1')] },
        ],
      },
      'Expected `thinking` or `redacted_thinking`, but found `tool_use`',
    ],
    [
      'a seed',
      { seed: 3, messages: [{ role: 'user', content: 'Q' }] },
      'seed: Extra inputs are not permitted',
    ],
    [
      'a 1-hour cache breakpoint after a 5-minute one',
      {
        system: [
          { type: 'text', text: 'a', cache_control: { type: 'ephemeral' } },
          { type: 'text', text: 'b', cache_control: { type: 'ephemeral', ttl: '1h' } },
        ],
        messages: [{ role: 'user', content: 'Q' }],
      },
      "a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block",
    ],
    [
      'five cache breakpoints',
      {
        system: ['a', 'b', 'c', 'd', 'e'].map((text) => ({
          type: 'text',
          text,
          cache_control: { type: 'ephemeral' },
        })),
        messages: [{ role: 'user', content: 'Q' }],
      },
      'A maximum of 4 blocks with cache_control may be provided. Found 5.',
    ],
  ])('refuses %s', async (_name, body, message) => {
    expect(await refusal(body)).toContain(message);
    const [received] = fake.requestsFor(MODEL);
    // The traffic log keeps what was refused, for tests to look at.
    expect(received?.body).toMatchObject(body);
  });
});

// The fake's OpenAI wire, called with the real `openai` SDK: its 400s in OpenAI's shape, and reasoning answers.
import OpenAI, { BadRequestError } from 'openai';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { startFakeProvider, type FakeProvider } from '../../src/fake-provider';
import { OPENAI_KEY } from './provider-fixtures';

const MODEL = 'gpt-wire';
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const TOOLS = [{ type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object' } } }];

let fake: FakeProvider;
let client: OpenAI;

beforeAll(async () => {
  fake = await startFakeProvider();
  client = new OpenAI({ apiKey: OPENAI_KEY, baseURL: fake.openaiBaseURL, maxRetries: 0 });
});

afterEach(() => fake.reset());

afterAll(async () => {
  await fake.close();
});

type Body = Omit<ChatCompletionCreateParamsNonStreaming, 'model'> & Record<string, unknown>;

/** The 400's error object, as the SDK parsed it. */
async function rejection(
  body: Body,
): Promise<{ message: string; param: unknown; code: unknown; type: unknown }> {
  try {
    await client.chat.completions.create({ model: MODEL, ...body } as ChatCompletionCreateParamsNonStreaming);
  } catch (error) {
    if (error instanceof BadRequestError) {
      const inner = error.error as { message: string; param: unknown; code: unknown; type: unknown };
      return inner;
    }
    throw error;
  }
  throw new Error('expected a 400');
}

const toolCall = (id: string) => ({
  id,
  type: 'function' as const,
  function: { name: 'lookup', arguments: '{}' },
});

describe('fake OpenAI wire: requests the real API refuses', () => {
  it('a tool message that answers no preceding tool_calls', async () => {
    const error = await rejection({
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'tool', tool_call_id: 'call_1', content: 'Sunny' },
      ],
    });
    expect(error).toEqual({
      message:
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
      type: 'invalid_request_error',
      param: 'messages.[1].role',
      code: null,
    });
  });

  it.each([
    ['another message comes first', [{ role: 'user' as const, content: 'well?' }]],
    ['the conversation ends', []],
  ])('tool calls left unanswered when %s', async (_, after) => {
    const error = await rejection({
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: null, tool_calls: [toolCall('call_a'), toolCall('call_b')] },
        { role: 'tool', tool_call_id: 'call_a', content: 'Sunny' },
        ...after,
      ],
      tools: TOOLS,
    });
    expect(error).toMatchObject({
      message:
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_b",
      param: 'messages.[1].role',
    });
  });

  it('a tool result for a call the previous assistant message did not make', async () => {
    const error = await rejection({
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: null, tool_calls: [toolCall('call_a')] },
        { role: 'tool', tool_call_id: 'call_z', content: 'Sunny' },
      ],
      tools: TOOLS,
    });
    expect(error.message).toBe(
      "Invalid parameter: 'tool_call_id' of 'call_z' not found in 'tool_calls' of previous message.",
    );
  });

  it('a tool call id longer than 40 characters', async () => {
    const id = `call_${'x'.repeat(36)}`;
    const error = await rejection({
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: null, tool_calls: [toolCall(id)] },
        { role: 'tool', tool_call_id: id, content: 'Sunny' },
      ],
      tools: TOOLS,
    });
    expect(error).toMatchObject({
      param: 'messages[1].tool_calls[0].id',
      code: 'string_above_max_length',
    });
    expect(error.message).toContain('maximum length 40, but got a string with length 41');
  });

  it('more than 4 stop sequences', async () => {
    const error = await rejection({
      messages: [{ role: 'user', content: 'hi' }],
      stop: ['a', 'b', 'c', 'd', 'e'],
    });
    expect(error).toMatchObject({ param: 'stop', code: 'array_above_max_length' });
  });

  it.each([
    ['a non-image media type', 'data:text/plain;base64,aGVsbG8=', 'invalid_value'],
    ['invalid base64', 'data:image/png;base64,not*base64', 'invalid_value'],
    ['bytes that are no image', 'data:image/png;base64,aGVsbG8gd29ybGQ=', 'invalid_image_format'],
    ['no data: prefix', 'image/png;base64,aGVsbG8=', 'invalid_value'],
  ])('an image data URL with %s', async (_, url, code) => {
    const error = await rejection({
      messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url } }] }],
    });
    expect(error.code).toBe(code);
  });

  it('an unknown content part type, and an image in a tool message', async () => {
    const unknown = await rejection({
      messages: [{ role: 'user', content: [{ type: 'video', video: 'x' }] }] as never,
    });
    expect(unknown).toMatchObject({ param: 'messages[0].content[0].type', code: 'invalid_value' });
    expect(unknown.message).toMatch(/^Invalid value: 'video'\. Supported values are: 'text', 'image_url'/);

    const inTool = await rejection({
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: null, tool_calls: [toolCall('call_a')] },
        {
          role: 'tool',
          tool_call_id: 'call_a',
          content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } }],
        } as never,
      ],
      tools: TOOLS,
    });
    expect(inTool.message).toContain("Image URLs are only allowed for messages with role 'user'");
  });

  it('tool_choice or parallel_tool_calls without tools', async () => {
    for (const field of ['tool_choice', 'parallel_tool_calls']) {
      const error = await rejection({
        messages: [{ role: 'user', content: 'hi' }],
        [field]: field === 'tool_choice' ? 'auto' : true,
      });
      expect(error).toMatchObject({ param: field });
    }
  });
});

describe('fake OpenAI wire: what it accepts and answers', () => {
  it('accepts a valid image, a PDF file and top_k (it cannot tell the two kinds apart)', async () => {
    const completion = await client.chat.completions.create({
      model: MODEL,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Describe.' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}`, detail: 'low' } },
            {
              type: 'file',
              file: { file_data: 'data:application/pdf;base64,JVBERi0xLjQ=', filename: 'a.pdf' },
            },
          ],
        },
      ],
      top_k: 5,
    } as ChatCompletionCreateParamsNonStreaming);
    expect(completion.choices[0]?.message.content).toBe('Echo: Describe.');
  });

  it('counts tool results in the prompt', async () => {
    const messages = (result: string) => [
      { role: 'user' as const, content: 'hi' },
      { role: 'assistant' as const, content: null, tool_calls: [toolCall('call_a')] },
      { role: 'tool' as const, tool_call_id: 'call_a', content: result },
    ];
    const short = await client.chat.completions.create({
      model: MODEL,
      messages: messages('x'),
      tools: TOOLS,
    });
    const long = await client.chat.completions.create({
      model: MODEL,
      messages: messages('y'.repeat(400)),
      tools: TOOLS,
    });
    expect(long.usage!.prompt_tokens - short.usage!.prompt_tokens).toBeGreaterThanOrEqual(99);
  });

  it('answers reasoning as reasoning_content, before the text when streaming, with its tokens', async () => {
    const scenario = {
      kind: 'answer' as const,
      text: 'Four.',
      reasoning: 'Adding two and two gives four.',
      usage: { reasoningTokens: 9, outputTokens: 20 },
    };
    fake.script(MODEL, [scenario, scenario]);
    const completion = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: '2+2?' }],
    });
    expect(completion.choices[0]?.message).toMatchObject({
      content: 'Four.',
      reasoning_content: 'Adding two and two gives four.',
    });
    expect(completion.usage?.completion_tokens_details?.reasoning_tokens).toBe(9);

    const stream = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: '2+2?' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const order: string[] = [];
    let reasoning = '';
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as
        | { content?: string | null; reasoning_content?: string }
        | undefined;
      if (delta?.reasoning_content) {
        reasoning += delta.reasoning_content;
        order.push('reasoning');
      }
      if (delta?.content) order.push('text');
    }
    expect(reasoning).toBe('Adding two and two gives four.');
    expect(order.indexOf('text')).toBeGreaterThan(order.lastIndexOf('reasoning'));
  });
});

// The fake's Responses wire (POST /v1/responses), called with the real `openai` SDK: answers in the real shape,
// JSON and streamed, and the tool loop carried through output items sent back as input.
import OpenAI from 'openai';
import type {
  Response,
  ResponseCreateParamsNonStreaming,
  ResponseInputItem,
  ResponseStreamEvent,
} from 'openai/resources/responses/responses';
import { startFakeProvider, type FakeProvider } from '../../src/fake-provider';
import { OPENAI_KEY } from './provider-fixtures';

const MODEL = 'gpt-responses-wire';
const TOOLS = [{ type: 'function' as const, name: 'lookup', parameters: { type: 'object' }, strict: false }];

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

type Body = Omit<ResponseCreateParamsNonStreaming, 'model'>;

const create = (body: Body) => client.responses.create({ model: MODEL, store: false, ...body });

async function streamed(body: Body): Promise<ResponseStreamEvent[]> {
  const stream = await client.responses.create({ model: MODEL, store: false, ...body, stream: true });
  const events: ResponseStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

const TOOL_ANSWER = {
  kind: 'answer' as const,
  text: 'Let me look.',
  toolCalls: [{ name: 'lookup', arguments: { city: 'Paris' } }],
};

describe('fake Responses wire: answers', () => {
  it('answers a string input with a completed response, its message and its usage', async () => {
    const response = await create({ input: 'Hello there', instructions: 'Be brief.' });
    expect(response).toMatchObject({
      object: 'response',
      status: 'completed',
      model: MODEL,
      instructions: 'Be brief.',
      store: false,
      incomplete_details: null,
      error: null,
    });
    expect(response.id).toMatch(/^resp_/);
    expect(response.output).toEqual([
      {
        id: expect.stringMatching(/^msg_/) as unknown,
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', annotations: [], logprobs: [], text: 'Echo: Hello there' }],
      },
    ]);
    expect(response.output_text).toBe('Echo: Hello there');
    const usage = response.usage!;
    expect(usage.total_tokens).toBe(usage.input_tokens + usage.output_tokens);
    expect(usage.input_tokens_details.cached_tokens).toBe(0);
    expect(fake.requestsFor(MODEL)[0]).toMatchObject({ provider: 'openai-responses', path: '/v1/responses' });
  });

  it('reports cached and reasoning tokens as scripted', async () => {
    fake.script(MODEL, {
      kind: 'answer',
      text: 'Four.',
      reasoning: 'Two and two.',
      usage: { inputTokens: 10, cachedInputTokens: 30, outputTokens: 12, reasoningTokens: 7 },
    });
    const response = await create({ input: '2+2?' });
    expect(response.usage).toEqual({
      input_tokens: 40,
      input_tokens_details: { cached_tokens: 30 },
      output_tokens: 12,
      output_tokens_details: { reasoning_tokens: 7 },
      total_tokens: 52,
    });
  });

  it('stops at max_output_tokens with an incomplete response', async () => {
    const response = await create({ input: 'word '.repeat(100), max_output_tokens: 16 });
    expect(response.status).toBe('incomplete');
    expect(response.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(response.output_text.length).toBe(64);
  });

  it('answers function calls as function_call items, and takes them back with their outputs', async () => {
    fake.script(MODEL, TOOL_ANSWER);
    const first = await create({ input: 'Weather in Paris?', tools: TOOLS });
    const call = first.output.find((item) => item.type === 'function_call');
    expect(call).toEqual({
      id: expect.stringMatching(/^fc_/) as unknown,
      type: 'function_call',
      status: 'completed',
      call_id: expect.stringMatching(/^call_/) as unknown,
      name: 'lookup',
      arguments: '{"city":"Paris"}',
    });
    const second = await create({
      input: [
        { role: 'user', content: 'Weather in Paris?' },
        ...(first.output as ResponseInputItem[]),
        { type: 'function_call_output', call_id: call!.call_id, output: 'Sunny' },
      ],
      tools: TOOLS,
    });
    expect(second.status).toBe('completed');
  });

  it('streams the real event sequence, numbered from 0, ending with the whole response', async () => {
    fake.script(MODEL, TOOL_ANSWER);
    const events = await streamed({ input: 'Weather in Paris?', tools: TOOLS });
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    expect(events.map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const last = events.at(-1) as { response: Response };
    expect(last.response.output.map((item) => item.type)).toEqual(['message', 'function_call']);
    const deltas = events.flatMap((event) =>
      event.type === 'response.function_call_arguments.delta' ? [event.delta] : [],
    );
    expect(deltas.join('')).toBe('{"city":"Paris"}');
  });
});

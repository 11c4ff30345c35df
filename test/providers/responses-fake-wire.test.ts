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

describe('fake Responses wire: reasoning', () => {
  const REASONING = { kind: 'answer' as const, text: 'Four.', reasoning: 'Two and two.\n\nMakes four.' };

  it('sends a reasoning item first: summary parts only when asked, encrypted content only when included', async () => {
    fake.script(MODEL, [REASONING, REASONING]);
    const plain = await create({ input: '2+2?' });
    expect(plain.output[0]).toEqual({
      id: expect.stringMatching(/^rs_/) as unknown,
      type: 'reasoning',
      summary: [],
    });

    const asked = await create({
      input: '2+2?',
      reasoning: { effort: 'low', summary: 'auto' },
      include: ['reasoning.encrypted_content'],
    });
    expect(asked.output.map((item) => item.type)).toEqual(['reasoning', 'message']);
    expect(asked.output[0]).toMatchObject({
      summary: [
        { type: 'summary_text', text: 'Two and two.' },
        { type: 'summary_text', text: 'Makes four.' },
      ],
      encrypted_content: expect.any(String) as unknown,
    });
    expect(String((asked.output[0] as { encrypted_content: string }).encrypted_content)).not.toContain(':');
    expect(asked.reasoning).toEqual({ effort: 'low', summary: 'auto' });
    expect(asked.usage!.output_tokens_details.reasoning_tokens).toBeGreaterThan(0);
  });

  it('streams the summary part by part before the message', async () => {
    fake.script(MODEL, REASONING);
    const events = await streamed({ input: '2+2?', reasoning: { summary: 'detailed' } });
    const types = events.map((event) => event.type);
    expect(types.slice(2, 12)).toEqual([
      'response.output_item.added',
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
    ]);
    const summary = events.flatMap((event) =>
      event.type === 'response.reasoning_summary_text.done' ? [`${event.summary_index}:${event.text}`] : [],
    );
    expect(summary).toEqual(['0:Two and two.', '1:Makes four.']);
  });

  it('works with the SDK stream helper, which assembles the final response', async () => {
    fake.script(MODEL, { ...REASONING, toolCalls: [{ name: 'lookup', arguments: { q: 1 } }] });
    const stream = client.responses.stream({
      model: MODEL,
      store: false,
      input: '2+2?',
      tools: TOOLS,
      reasoning: { summary: 'auto' },
    });
    let text = '';
    stream.on('response.output_text.delta', (event) => (text += event.delta));
    const final = await stream.finalResponse();
    expect(text).toBe('Four.');
    expect(final.output.map((item) => item.type)).toEqual(['reasoning', 'message', 'function_call']);
    const message = final.output.find((item) => item.type === 'message');
    expect(message?.content).toMatchObject([{ type: 'output_text', text: 'Four.' }]);
  });
});

describe('fake Responses wire: accepted input', () => {
  const PNG =
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

  it('takes every message role, images, files, a JSON schema format and sampling settings', async () => {
    const response = await create({
      input: [
        { role: 'developer', content: 'Answer in JSON.' },
        { role: 'system', content: [{ type: 'input_text', text: 'Be exact.' }] },
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'Describe.' },
            { type: 'input_image', image_url: `data:image/png;base64,${PNG}`, detail: 'low' },
            { type: 'input_image', image_url: 'https://example.com/a.png', detail: 'auto' },
            { type: 'input_file', file_data: 'data:application/pdf;base64,JVBERi0xLjQ=', filename: 'a.pdf' },
          ],
        },
        {
          type: 'message',
          id: 'msg_earlier',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: '{}', annotations: [] }],
        },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Once more.' }] },
        { role: 'assistant', content: '{}' },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Again.' }] },
      ],
      text: { format: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: false } },
      temperature: 0.2,
      top_p: 0.9,
      max_output_tokens: 200,
      metadata: { run: 'test' },
      parallel_tool_calls: false,
      tools: TOOLS,
      tool_choice: { type: 'function', name: 'lookup' },
    });
    expect(response.output_text).toBe('Echo: Again.');
    expect(response).toMatchObject({
      temperature: 0.2,
      top_p: 0.9,
      max_output_tokens: 200,
      metadata: { run: 'test' },
      parallel_tool_calls: false,
      text: { format: { type: 'json_schema', name: 'answer' } },
      tool_choice: { type: 'function', name: 'lookup' },
    });
  });
});

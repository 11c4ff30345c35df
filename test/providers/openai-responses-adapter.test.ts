// The openai-responses adapter over real HTTP against the fake's Responses wire: answers, a tool loop carrying the
// encrypted reasoning back, streamed pieces, classified failures, and what is refused before sending.
import { createProviderRegistry } from '../../src/activities/provider-registry';
import { parseConfig } from '../../src/config/load-config';
import { fingerprintApiKey, startFakeProvider, type FakeProvider } from '../../src/fake-provider';
import { assistantMessageOf } from '../../src/config/conversation';
import { GenerationRequestSchema, type GenerationRequestInput } from '../../src/config/request';
import { createProvider } from '../../src/providers';
import type { GenerationResult, OutputDelta } from '../../src/providers/types';
import { OPENAI_KEY, REQUEST, captureFailure } from './provider-fixtures';

const MODEL = 'gpt-responses-adapter';
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const OPTIONS = { timeoutMs: 5_000 } as const;
const LOOKUP = {
  name: 'lookup',
  description: 'Weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } } },
};

let fake: FakeProvider;

beforeAll(async () => {
  fake = await startFakeProvider();
});

afterEach(() => fake.reset());

afterAll(async () => {
  await fake.close();
});

function responses(modelsWithoutReasoning: readonly string[] = []) {
  return createProvider({
    name: 'openai',
    kind: 'openai-responses',
    apiKey: OPENAI_KEY,
    baseURL: fake.openaiBaseURL,
    modelsWithoutReasoning,
  });
}

function request(input: GenerationRequestInput) {
  return GenerationRequestSchema.parse(input);
}

function sentBodies(): Record<string, unknown>[] {
  return fake.requestsFor(MODEL).map((received) => received.body as Record<string, unknown>);
}

/** The answer the streamed pieces make, joined the way a surface joins them. */
function joinPieces(pieces: readonly OutputDelta[]) {
  let text = '';
  const toolCalls: { id: string; name: string; arguments: string }[] = [];
  const reasoning: { text: string; id?: string; signature?: string }[] = [];
  for (const piece of pieces) {
    switch (piece.type) {
      case 'text':
        text += piece.text;
        break;
      case 'tool_call': {
        const call = (toolCalls[piece.index] ??= { id: '', name: '', arguments: '' });
        if (piece.id !== undefined) call.id = piece.id;
        if (piece.name !== undefined) call.name = piece.name;
        call.arguments += piece.arguments;
        break;
      }
      case 'reasoning': {
        const part = (reasoning[piece.index] ??= { text: '' });
        part.text += piece.text;
        if (piece.id !== undefined) part.id = piece.id;
        if (piece.signature !== undefined) part.signature = piece.signature;
        break;
      }
      default:
        piece satisfies never;
    }
  }
  return { text, toolCalls, reasoning };
}

describe('openai-responses adapter: answers', () => {
  it('returns a normalized answer with usage and the request id, from a stateless request', async () => {
    const result = await responses().generate(MODEL, REQUEST, OPTIONS);
    const [received] = fake.requestsFor(MODEL);
    expect(result).toMatchObject({
      text: 'Echo: Say hello to the switchyard.',
      toolCalls: [],
      finishReason: { unified: 'stop', raw: 'completed' },
      provider: 'openai',
      model: MODEL,
      requestId: received?.requestId,
    });
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(fake.billed(MODEL)).toMatchObject({
      answers: 1,
      inputTokens: result.usage.inputTokens,
      outputTokens: result.usage.outputTokens,
    });
    expect(received).toMatchObject({ path: '/v1/responses', provider: 'openai-responses' });
    expect(received?.headers.authorization).toBe('[redacted]');
    expect(received?.apiKeyFingerprint).toBe(fingerprintApiKey(OPENAI_KEY));
    expect(received?.body).toEqual({
      model: MODEL,
      store: false,
      include: ['reasoning.encrypted_content'],
      instructions: 'You are terse.',
      input: [{ type: 'message', role: 'user', content: 'Say hello to the switchyard.' }],
      max_output_tokens: 200,
    });
  });

  it.each([false, true])(
    'splits cached tokens out and counts reasoning tokens (stream: %p)',
    async (stream) => {
      fake.script(MODEL, {
        kind: 'answer',
        text: 'ok',
        reasoning: 'Thinking it over.',
        usage: { inputTokens: 100, cachedInputTokens: 40, outputTokens: 30, reasoningTokens: 20 },
      });
      const result = await responses().generate(MODEL, REQUEST, { ...OPTIONS, stream });
      expect(result.usage).toMatchObject({
        inputTokens: 100,
        cachedInputTokens: 40,
        outputTokens: 30,
        reasoningTokens: 20,
      });
      expect(result.usage.raw).toMatchObject({
        input_tokens: 140,
        input_tokens_details: { cached_tokens: 40 },
      });
    },
  );

  it('stops at the sent bound: a long echo with a small bound finishes with length', async () => {
    const small = request({
      ...REQUEST,
      messages: [{ role: 'user', content: 'Say hello to the switchyard. '.repeat(20) }],
      maxOutputTokens: 16,
    });
    const result = await responses().generate(MODEL, small, OPTIONS);
    expect(result.finishReason).toEqual({ unified: 'length', raw: 'max_output_tokens' });
    expect(sentBodies()[0]?.max_output_tokens).toBe(16);
  });

  it('asks a model configured without reasoning for no encrypted reasoning', async () => {
    await responses([MODEL]).generate(MODEL, REQUEST, OPTIONS);
    expect(sentBodies()[0]).not.toHaveProperty('include');
  });

  it('the worker registry reads which models do not reason from the config (supports.reasoning false)', async () => {
    const config = parseConfig({
      providers: {
        openai: {
          kind: 'openai-responses',
          apiKeyEnv: 'RESPONSES_KEY',
          baseURL: fake.openaiBaseURL,
          models: {
            [MODEL]: { inputUsdPerMillion: 1, outputUsdPerMillion: 1, supports: { reasoning: false } },
            'gpt-reasons': { inputUsdPerMillion: 1, outputUsdPerMillion: 1 },
          },
        },
      },
      routes: { r: { targets: [{ provider: 'openai', model: MODEL }] } },
    });
    const provider = createProviderRegistry(config, { RESPONSES_KEY: OPENAI_KEY }).get('openai');
    expect(provider.kind).toBe('openai-responses');
    await provider.generate(MODEL, REQUEST, OPTIONS);
    await provider.generate('gpt-reasons', REQUEST, OPTIONS);
    expect(sentBodies()[0]).not.toHaveProperty('include');
    expect(fake.requestsFor('gpt-reasons')[0]?.body).toMatchObject({
      include: ['reasoning.encrypted_content'],
    });
  });

  it('keeps the request id and billed usage on a refusal, and on a content-filter stop', async () => {
    fake.script(MODEL, [{ kind: 'refusal', text: 'I will not do that.' }, { kind: 'content_filter' }]);
    const refused = await captureFailure(responses().generate(MODEL, REQUEST, OPTIONS));
    expect(refused).toMatchObject({
      failureClass: 'refused',
      details: { status: 200, providerCode: 'refusal' },
    });
    expect(refused.details.requestId).toBe(fake.requestsFor(MODEL)[0]?.requestId);
    expect(refused.details.usage?.outputTokens).toBeGreaterThan(0);
    expect(refused.message).not.toContain('I will not do that');
    const filtered = await captureFailure(responses().generate(MODEL, REQUEST, { ...OPTIONS, stream: true }));
    expect(filtered).toMatchObject({
      failureClass: 'content_policy',
      details: { providerCode: 'content_filter' },
    });
  });
});

describe('openai-responses adapter: a tool loop carrying reasoning', () => {
  it.each([false, true])(
    'two turns: the reasoning item goes back with its encrypted content before the call, and the fake takes it (stream: %p)',
    async (stream) => {
      fake.script(MODEL, [
        {
          kind: 'answer',
          reasoning: 'The user wants Oslo weather; call lookup.',
          toolCalls: [{ name: 'lookup', arguments: { city: 'Oslo' } }],
        },
        { kind: 'answer', reasoning: 'The tool said sunny.', text: 'Sunny in Oslo.' },
      ]);
      const first = request({
        messages: [{ role: 'user', content: 'Weather in Oslo?' }],
        tools: [LOOKUP],
        reasoning: { effort: 'low' },
      });
      const asked = await responses().generate(MODEL, first, { ...OPTIONS, stream });
      expect(asked.finishReason.unified).toBe('tool_calls');
      const [call] = asked.toolCalls;
      const [thought] = asked.reasoning ?? [];
      expect(thought).toMatchObject({
        type: 'reasoning',
        origin: 'openai-responses',
        id: expect.stringMatching(/^rs_/),
        signature: expect.stringMatching(/^fakeenc1\./),
        // No summary is asked for, so none comes: the encrypted content carries the reasoning.
        text: '',
      });

      const second = request({
        ...first,
        messages: [
          ...first.messages,
          assistantMessageOf(asked),
          { role: 'tool', content: [{ type: 'tool_result', callId: call!.id, content: '21°C, sunny' }] },
        ],
      });
      const answered = await responses().generate(MODEL, second, { ...OPTIONS, stream });
      expect(answered).toMatchObject({ text: 'Sunny in Oslo.', finishReason: { unified: 'stop' } });

      const [, body] = sentBodies();
      expect(body).toMatchObject({ store: false, reasoning: { effort: 'low' } });
      expect(body?.input).toEqual([
        { type: 'message', role: 'user', content: 'Weather in Oslo?' },
        { type: 'reasoning', id: thought!.id, summary: [], encrypted_content: thought!.signature },
        { type: 'function_call', call_id: call!.id, name: 'lookup', arguments: '{"city":"Oslo"}' },
        { type: 'function_call_output', call_id: call!.id, output: '21°C, sunny' },
      ]);
    },
  );

  it('the fake refuses reasoning it did not sign: an altered encrypted content is the 400 invalid_request', async () => {
    const altered = request({
      messages: [
        { role: 'user', content: 'Hi' },
        {
          role: 'assistant',
          content: [
            {
              type: 'reasoning',
              text: '',
              id: 'rs_1',
              signature: 'fakeenc1.bm90.c2ln',
              origin: 'openai-responses',
            },
            { type: 'text', text: 'Hello.' },
          ],
        },
        { role: 'user', content: 'Again' },
      ],
    });
    const failure = await captureFailure(responses().generate(MODEL, altered, OPTIONS));
    expect(failure).toMatchObject({
      failureClass: 'invalid_request',
      details: { status: 400, requestSent: true, providerCode: 'invalid_encrypted_content' },
    });
  });

  it('sends another kind reasoning nowhere, and this kind reasoning only followed by what it led to', async () => {
    const conversation = request({
      messages: [
        { role: 'user', content: 'Hi' },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'Anthropic thinking', signature: 'sig', origin: 'anthropic' },
            { type: 'text', text: 'Hello.' },
          ],
        },
        { role: 'user', content: 'Again' },
        {
          role: 'assistant',
          // Cut off while thinking: a reasoning item with no item after it, which the API refuses.
          content: [
            {
              type: 'reasoning',
              text: '',
              id: 'rs_x',
              signature: 'fakeenc1.x.y',
              origin: 'openai-responses',
            },
          ],
        },
        { role: 'user', content: 'Once more' },
      ],
    });
    const result = await responses().generate(MODEL, conversation, OPTIONS);
    expect(result.text).toBe('Echo: Once more');
    expect(sentBodies()[0]?.input).toEqual([
      { type: 'message', role: 'user', content: 'Hi' },
      {
        type: 'message',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Hello.', annotations: [] }],
      },
      { type: 'message', role: 'user', content: 'Again' },
      { type: 'message', role: 'user', content: 'Once more' },
    ]);
  });
});

describe('openai-responses adapter: what the API checks', () => {
  it('sends images, a PDF, a tool result with an image and every option in shapes the API takes', async () => {
    fake.script(MODEL, [
      { kind: 'answer', toolCalls: [{ name: 'screenshot', arguments: {} }] },
      { kind: 'answer', text: '{"answer":"a red pixel"}' },
    ]);
    const options = {
      system: [{ type: 'text' as const, text: 'Answer in JSON.', cache: {} }],
      tools: [
        LOOKUP,
        {
          name: 'screenshot',
          parameters: { type: 'object', properties: {}, required: [], additionalProperties: false },
          strict: true,
        },
      ],
      toolChoice: 'required' as const,
      parallelToolCalls: false,
      temperature: 0.2,
      topP: 0.9,
      reasoning: { budgetTokens: 4096 },
      maxOutputTokens: 8_000,
      jsonSchema: { type: 'object', properties: { answer: { type: 'string' } } },
    };
    const user = {
      role: 'user' as const,
      content: [
        { type: 'text' as const, text: 'What is in these?' },
        { type: 'image' as const, url: 'https://example.com/a.png', detail: 'low' as const },
        { type: 'image' as const, data: PNG, mediaType: 'image/png' as const },
        {
          type: 'document' as const,
          data: 'JVBERi0xLjQK',
          mediaType: 'application/pdf' as const,
          title: 'a.pdf',
        },
      ],
    };
    const asked = await responses().generate(MODEL, request({ ...options, messages: [user] }), OPTIONS);
    const answered = await responses().generate(
      MODEL,
      request({
        ...options,
        toolChoice: 'auto',
        messages: [
          user,
          assistantMessageOf(asked),
          {
            role: 'tool',
            content: [
              {
                type: 'tool_result',
                callId: asked.toolCalls[0]!.id,
                content: [
                  { type: 'text', text: 'The screen:' },
                  { type: 'image', data: PNG, mediaType: 'image/png' },
                ],
              },
            ],
          },
        ],
      }),
      OPTIONS,
    );
    expect(answered.text).toBe('{"answer":"a red pixel"}');
    const [first, second] = sentBodies();
    expect(first).toMatchObject({
      instructions: 'Answer in JSON.',
      tool_choice: 'required',
      parallel_tool_calls: false,
      temperature: 0.2,
      top_p: 0.9,
      reasoning: { effort: 'medium' },
      text: { format: { type: 'json_schema', name: 'response' } },
    });
    expect((second?.input as unknown[]).at(-1)).toEqual({
      type: 'function_call_output',
      call_id: asked.toolCalls[0]!.id,
      output: [
        { type: 'input_text', text: 'The screen:' },
        { type: 'input_image', image_url: `data:image/png;base64,${PNG}`, detail: 'auto' },
      ],
    });
  });
});

describe('openai-responses adapter: streaming', () => {
  it('relays reasoning (id first, encrypted content last), text and tool call pieces that join to the answer', async () => {
    fake.script(MODEL, {
      kind: 'answer',
      reasoning: 'Plan the call.',
      text: 'Let me look that up for you.',
      toolCalls: [
        { name: 'lookup', arguments: { city: 'Oslo' } },
        { name: 'lookup', arguments: { city: 'Bergen' } },
      ],
    });
    const pieces: OutputDelta[] = [];
    let progress = 0;
    const result: GenerationResult = await responses().generate(
      MODEL,
      request({ messages: [{ role: 'user', content: 'Weather?' }], tools: [LOOKUP] }),
      { ...OPTIONS, stream: true, onDelta: (piece) => pieces.push(piece), onProgress: () => (progress += 1) },
    );
    expect(sentBodies()[0]?.stream).toBe(true);
    expect(progress).toBeGreaterThan(5);
    const joined = joinPieces(pieces);
    expect(joined.text).toBe(result.text);
    expect(joined.toolCalls).toEqual(result.toolCalls);
    expect(result.toolCalls.map((call) => JSON.parse(call.arguments) as unknown)).toEqual([
      { city: 'Oslo' },
      { city: 'Bergen' },
    ]);
    const [thought] = result.reasoning ?? [];
    expect(joined.reasoning).toEqual([{ text: '', id: thought!.id, signature: thought!.signature }]);
    const reasoningPieces = pieces.filter((piece) => piece.type === 'reasoning');
    expect(reasoningPieces[0]).toMatchObject({ index: 0, origin: 'openai-responses', id: thought!.id });
    expect(reasoningPieces.at(-1)).toMatchObject({ signature: thought!.signature });
    expect(reasoningPieces.every((piece) => piece.origin === 'openai-responses')).toBe(true);
    // The reasoning comes before the text, and each call's first piece carries its id and name.
    expect(pieces.findIndex((piece) => piece.type === 'reasoning')).toBe(0);
    const firstOfEachCall = [0, 1].map((index) =>
      pieces.find((piece) => piece.type === 'tool_call' && piece.index === index),
    );
    expect(firstOfEachCall).toEqual([
      { type: 'tool_call', index: 0, id: result.toolCalls[0]!.id, name: 'lookup', arguments: '' },
      { type: 'tool_call', index: 1, id: result.toolCalls[1]!.id, name: 'lookup', arguments: '' },
    ]);
  });
});

describe('openai-responses adapter: failures', () => {
  it('a 429 with retry-after is rate_limited, with the wait and the request id', async () => {
    fake.script(MODEL, { kind: 'error', error: 'rate_limited', retryAfterSeconds: 7 });
    const failure = await captureFailure(responses().generate(MODEL, REQUEST, OPTIONS));
    expect(failure).toMatchObject({
      failureClass: 'rate_limited',
      details: { status: 429, retryAfterMs: 7_000, requestSent: true, providerCode: 'rate_limit_exceeded' },
    });
    expect(failure.details.requestId).toBe(fake.requestsFor(MODEL)[0]?.requestId);
  });

  it.each([
    ['server_error', 500, 'unavailable'],
    ['bad_request', 400, 'invalid_request'],
    ['context_overflow', 400, 'context_overflow'],
    ['authentication', 401, 'authentication'],
  ] as const)('an HTTP %p is %p %p', async (error, status, failureClass) => {
    fake.script(MODEL, { kind: 'error', error });
    const failure = await captureFailure(responses().generate(MODEL, REQUEST, OPTIONS));
    expect(failure).toMatchObject({ failureClass, details: { status, requestSent: true } });
  });

  it('no headers within the attempt deadline is a timeout', async () => {
    fake.script(MODEL, { kind: 'hang' });
    const failure = await captureFailure(responses().generate(MODEL, REQUEST, { timeoutMs: 300 }));
    expect(failure).toMatchObject({ failureClass: 'timeout', details: { requestSent: true } });
  });

  it('a stream cut mid-answer is unavailable, with the request id of the headers it had', async () => {
    fake.script(MODEL, { kind: 'stream_cut', afterEvents: 4 });
    const failure = await captureFailure(responses().generate(MODEL, REQUEST, { ...OPTIONS, stream: true }));
    expect(failure).toMatchObject({ failureClass: 'unavailable', details: { requestSent: true } });
    expect(failure.details.requestId).toBe(fake.requestsFor(MODEL)[0]?.requestId);
  });

  it('a stream that ends without response.completed is invalid_response', async () => {
    fake.script(MODEL, { kind: 'stream_no_final_event' });
    const failure = await captureFailure(responses().generate(MODEL, REQUEST, { ...OPTIONS, stream: true }));
    expect(failure).toMatchObject({ failureClass: 'invalid_response', details: { status: 200 } });
  });

  it.each([
    ['response.failed', 'server_error', 'unavailable', 'server_error'],
    ['response.failed', 'rate_limited', 'rate_limited', 'rate_limit_exceeded'],
    ['error', 'rate_limited', 'rate_limited', 'rate_limit_exceeded'],
    ['error', 'server_error', 'unavailable', 'server_error'],
  ] as const)(
    'a %p event for %p inside the stream is %p',
    async (responsesEvent, error, failureClass, providerCode) => {
      fake.script(MODEL, { kind: 'stream_error', error, afterEvents: 3, responsesEvent });
      const failure = await captureFailure(
        responses().generate(MODEL, REQUEST, { ...OPTIONS, stream: true }),
      );
      expect(failure).toMatchObject({ failureClass, details: { requestSent: true, providerCode } });
    },
  );

  it.each([
    [{ stopSequences: ['END'] }, 'stopSequences'],
    [{ seed: 7 }, 'seed'],
    [{ topK: 5 }, 'topK'],
    [{ maxOutputTokens: 8 }, 'maxOutputTokens'],
  ])('refuses %p before sending anything', async (options, field) => {
    const failure = await captureFailure(
      responses().generate(MODEL, request({ ...REQUEST, ...options }), OPTIONS),
    );
    expect(failure).toMatchObject({ failureClass: 'invalid_request', details: { requestSent: false } });
    expect(failure.message).toContain(`${field}: `);
    expect(fake.requestsFor(MODEL)).toHaveLength(0);
  });
});

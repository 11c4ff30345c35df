// The OpenAI adapter over real HTTP against the fake: tool loops, tool images, options on the wire, reasoning, ids.
import { startFakeProvider, type FakeProvider } from '../../src/fake-provider';
import { GenerationRequestSchema, type GenerationRequestInput } from '../../src/config/request';
import { createProvider } from '../../src/providers';
import type { GenerationResult, OutputDelta } from '../../src/providers/types';
import { OPENAI_KEY, captureFailure } from './provider-fixtures';

const MODEL = 'gpt-conversation';
const OPTIONS = { timeoutMs: 5_000 } as const;
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
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

function provider(kind: 'openai' | 'openai-compatible' = 'openai') {
  return createProvider({
    name: kind === 'openai' ? 'openai' : 'local-llm',
    kind,
    apiKey: OPENAI_KEY,
    baseURL: fake.openaiBaseURL,
  });
}

function request(input: GenerationRequestInput) {
  return GenerationRequestSchema.parse(input);
}

function sentBodies(): Record<string, unknown>[] {
  return fake.requestsFor(MODEL).map((received) => received.body as Record<string, unknown>);
}

/** The assistant turn an answer makes, as a caller sends it back: its reasoning, text and tool calls. */
function assistantTurn(answer: GenerationResult) {
  return {
    role: 'assistant' as const,
    content: [
      ...(answer.reasoning ?? []),
      ...(answer.text !== '' ? [{ type: 'text' as const, text: answer.text }] : []),
      ...answer.toolCalls.map((call) => ({ type: 'tool_call' as const, ...call })),
    ],
  };
}

describe('OpenAI adapter: conversations', () => {
  it.each([false, true])(
    'runs a tool loop: a tool call, then the call and its result sent back, then the answer (stream: %p)',
    async (stream) => {
      fake.script(MODEL, [
        { kind: 'answer', toolCalls: [{ name: 'lookup', arguments: { city: 'Oslo' } }] },
        { kind: 'answer', text: 'Sunny in Oslo.' },
      ]);
      const first = request({
        messages: [{ role: 'user', content: 'Weather in Oslo?' }],
        tools: [LOOKUP],
      });
      const asked = await provider().generate(MODEL, first, { ...OPTIONS, stream });
      expect(asked.finishReason.unified).toBe('tool_calls');
      const [call] = asked.toolCalls;
      expect(call).toMatchObject({ id: expect.stringMatching(/^call_/), name: 'lookup' });

      const second = request({
        messages: [
          ...first.messages,
          assistantTurn(asked),
          { role: 'tool', content: [{ type: 'tool_result', callId: call!.id, content: '21°C, sunny' }] },
        ],
        tools: [LOOKUP],
      });
      const answered = await provider().generate(MODEL, second, { ...OPTIONS, stream });
      expect(answered).toMatchObject({ text: 'Sunny in Oslo.', finishReason: { unified: 'stop' } });

      const [, body] = sentBodies();
      expect(body?.messages).toEqual([
        { role: 'user', content: 'Weather in Oslo?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: call!.id, type: 'function', function: { name: 'lookup', arguments: '{"city":"Oslo"}' } },
          ],
        },
        { role: 'tool', tool_call_id: call!.id, content: '21°C, sunny' },
      ]);
    },
  );

  it('the fake refuses an orphan tool result with OpenAI 400, classified invalid_request', async () => {
    const orphan = request({
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'tool', content: [{ type: 'tool_result', callId: 'call_missing', content: 'Sunny' }] },
      ],
    });
    const failure = await captureFailure(provider().generate(MODEL, orphan, OPTIONS));
    expect(failure).toMatchObject({
      failureClass: 'invalid_request',
      details: { status: 400, requestSent: true },
    });
    expect(fake.requestsFor(MODEL)).toHaveLength(1);
  });

  it('the fake refuses a tool call left without its result', async () => {
    const unanswered = request({
      messages: [
        { role: 'user', content: 'Weather?' },
        {
          role: 'assistant',
          content: [{ type: 'tool_call', id: 'call_x', name: 'lookup', arguments: '{}' }],
        },
        { role: 'user', content: 'Well?' },
      ],
      tools: [LOOKUP],
    });
    const failure = await captureFailure(provider().generate(MODEL, unanswered, OPTIONS));
    expect(failure).toMatchObject({ failureClass: 'invalid_request', details: { status: 400 } });
  });

  it('sends a tool result image in a user message after the tool message, which the fake accepts', async () => {
    const withImage = request({
      messages: [
        { role: 'user', content: 'Screenshot the page.' },
        {
          role: 'assistant',
          content: [{ type: 'tool_call', id: 'call_shot', name: 'shot', arguments: '{}' }],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool_result',
              callId: 'call_shot',
              content: [
                { type: 'text', text: 'Rendered.' },
                { type: 'image', data: PNG, mediaType: 'image/png' },
              ],
            },
          ],
        },
      ],
    });
    const answer = await provider().generate(MODEL, withImage, OPTIONS);
    expect(answer.finishReason.unified).toBe('stop');
    const messages = sentBodies()[0]?.messages as Record<string, unknown>[];
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(messages[2]).toEqual({
      role: 'tool',
      tool_call_id: 'call_shot',
      content: [{ type: 'text', text: 'Rendered.' }],
    });
    expect(messages[3]?.content).toContainEqual({
      type: 'image_url',
      image_url: { url: `data:image/png;base64,${PNG}` },
    });
  });

  it('the fake refuses an image whose bytes are not an image', async () => {
    const notAnImage = request({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image', data: Buffer.from('plain text').toString('base64'), mediaType: 'image/png' },
          ],
        },
      ],
    });
    const failure = await captureFailure(provider().generate(MODEL, notAnImage, OPTIONS));
    expect(failure).toMatchObject({
      failureClass: 'invalid_request',
      details: { status: 400, providerCode: 'invalid_image_format' },
    });
  });

  it('sends stop, top_p, seed, temperature, tool_choice, parallel_tool_calls and reasoning_effort', async () => {
    await provider().generate(
      MODEL,
      request({
        messages: [{ role: 'user', content: 'hi' }],
        stopSequences: ['END'],
        topP: 0.9,
        seed: 42,
        temperature: 0.1,
        tools: [{ ...LOOKUP, strict: true }],
        toolChoice: { type: 'tool', name: 'lookup' },
        parallelToolCalls: false,
        reasoning: { effort: 'low' },
      }),
      OPTIONS,
    );
    expect(sentBodies()[0]).toMatchObject({
      stop: ['END'],
      top_p: 0.9,
      seed: 42,
      temperature: 0.1,
      tool_choice: { type: 'function', function: { name: 'lookup' } },
      parallel_tool_calls: false,
      reasoning_effort: 'low',
      tools: [{ type: 'function', function: { name: 'lookup', strict: true } }],
    });
  });

  it('refuses topK and a fifth stop sequence for OpenAI before sending; a compatible server gets top_k', async () => {
    const withTopK = request({ messages: [{ role: 'user', content: 'hi' }], topK: 20 });
    const topK = await captureFailure(provider().generate(MODEL, withTopK, OPTIONS));
    expect(topK).toMatchObject({ failureClass: 'invalid_request', details: { requestSent: false } });
    expect(topK.message).toContain('topK');
    const fiveStops = request({
      messages: [{ role: 'user', content: 'hi' }],
      stopSequences: ['a', 'b', 'c', 'd', 'e'],
    });
    const stops = await captureFailure(provider().generate(MODEL, fiveStops, OPTIONS));
    expect(stops).toMatchObject({ failureClass: 'invalid_request', details: { requestSent: false } });
    expect(stops.message).toContain('stopSequences');
    expect(fake.requestsFor(MODEL)).toHaveLength(0);

    await provider('openai-compatible').generate(MODEL, withTopK, OPTIONS);
    expect(sentBodies()[0]?.top_k).toBe(20);
  });

  it.each([false, true])(
    'returns reasoning_content as a reasoning part with origin openai-compatible and its tokens (stream: %p)',
    async (stream) => {
      fake.script(MODEL, {
        kind: 'answer',
        text: 'The answer is 4.',
        reasoning: 'Two plus two is four, so the answer is 4.',
        usage: { outputTokens: 30, reasoningTokens: 12 },
      });
      const deltas: OutputDelta[] = [];
      const answer = await provider('openai-compatible').generate(
        MODEL,
        request({ messages: [{ role: 'user', content: '2+2?' }] }),
        { ...OPTIONS, stream, onDelta: (delta) => deltas.push(delta) },
      );
      expect(answer.text).toBe('The answer is 4.');
      expect(answer.reasoning).toEqual([
        { type: 'reasoning', text: 'Two plus two is four, so the answer is 4.', origin: 'openai-compatible' },
      ]);
      expect(answer.usage).toMatchObject({ outputTokens: 30, reasoningTokens: 12 });
      if (stream) {
        const reasoningDeltas = deltas.filter((delta) => delta.type === 'reasoning');
        expect(reasoningDeltas.length).toBeGreaterThan(1);
        expect(reasoningDeltas.every((delta) => delta.index === 0)).toBe(true);
        expect(reasoningDeltas.map((delta) => delta.text).join('')).toBe(answer.reasoning?.[0]?.text);
        // The thinking streams before the text.
        expect(deltas.findIndex((delta) => delta.type === 'text')).toBeGreaterThan(
          deltas.findIndex((delta) => delta.type === 'reasoning'),
        );
      }
    },
  );

  it('never sends reasoning parts back, whatever their origin', async () => {
    fake.script(MODEL, [
      {
        kind: 'answer',
        reasoning: 'I should look it up.',
        toolCalls: [{ name: 'lookup', arguments: { city: 'Oslo' } }],
      },
      { kind: 'answer', text: 'Done.' },
    ]);
    const first = request({ messages: [{ role: 'user', content: 'Weather in Oslo?' }], tools: [LOOKUP] });
    const asked = await provider('openai-compatible').generate(MODEL, first, OPTIONS);
    expect(asked.reasoning?.[0]?.origin).toBe('openai-compatible');
    const turn = assistantTurn(asked);
    await provider('openai-compatible').generate(
      MODEL,
      request({
        messages: [
          ...first.messages,
          {
            ...turn,
            content: [
              ...turn.content,
              { type: 'reasoning', text: 'signed', signature: 'sig-abc', origin: 'anthropic' },
            ],
          },
          {
            role: 'tool',
            content: [{ type: 'tool_result', callId: asked.toolCalls[0]!.id, content: 'Sunny' }],
          },
        ],
        tools: [LOOKUP],
      }),
      OPTIONS,
    );
    const sent = JSON.stringify(sentBodies()[1]);
    expect(sent).not.toContain('I should look it up');
    expect(sent).not.toContain('sig-abc');
    expect(sent).not.toContain('reasoning');
  });

  it('maps a tool call id longer than 40 characters the same way in the call and its result', async () => {
    const longId = `toolu_01${'A'.repeat(50)}`;
    const answer = await provider().generate(
      MODEL,
      request({
        messages: [
          { role: 'user', content: 'Weather?' },
          {
            role: 'assistant',
            content: [{ type: 'tool_call', id: longId, name: 'lookup', arguments: '{}' }],
          },
          { role: 'tool', content: [{ type: 'tool_result', callId: longId, content: 'Sunny' }] },
        ],
        tools: [LOOKUP],
      }),
      OPTIONS,
    );
    expect(answer.finishReason.unified).toBe('stop');
    const messages = sentBodies()[0]?.messages as { tool_calls?: { id: string }[]; tool_call_id?: string }[];
    const sentId = messages[1]?.tool_calls?.[0]?.id;
    expect(sentId).toBeDefined();
    expect(sentId!.length).toBeLessThanOrEqual(40);
    expect(sentId).not.toBe(longId);
    expect(messages[2]?.tool_call_id).toBe(sentId);
  });
});

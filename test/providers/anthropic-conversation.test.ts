// The Anthropic adapter with whole conversations, over real HTTP against the fake: tool loops, signed thinking, images, cache, options.
import { startFakeProvider, type FakeProvider } from '../../src/fake-provider';
import { signThinking } from '../../src/fake-provider/thinking-signature';
import {
  GenerationRequestSchema,
  type GenerationRequestInput,
  type ReasoningPart,
} from '../../src/config/request';
import { createProvider } from '../../src/providers';
import type { GenerationResult, OutputDelta } from '../../src/providers/types';
import { ANTHROPIC_KEY, captureFailure } from './provider-fixtures';

const MODEL = 'claude-conversation';
const OPTIONS = { timeoutMs: 5_000 } as const;
/** A real 1x1 PNG: the fake, like Anthropic, checks the bytes are the image type they claim. */
const PNG_1X1 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
const LOOKUP_TOOL = {
  name: 'lookup',
  description: 'Weather by city',
  parameters: { properties: { city: { type: 'string' } } },
};

let fake: FakeProvider;

beforeAll(async () => {
  fake = await startFakeProvider();
});

afterEach(() => fake.reset());

afterAll(async () => {
  await fake.close();
});

function anthropic() {
  return createProvider({
    name: 'anthropic',
    kind: 'anthropic',
    apiKey: ANTHROPIC_KEY,
    baseURL: fake.anthropicBaseURL,
  });
}

function generate(
  input: GenerationRequestInput,
  options: { stream?: boolean; onDelta?: (delta: OutputDelta) => void } = {},
) {
  return anthropic().generate(MODEL, GenerationRequestSchema.parse(input), { ...OPTIONS, ...options });
}

/** The JSON body of the `index`th request the fake received for the model. */
function sentBody(index: number): Record<string, unknown> {
  const received = fake.requestsFor(MODEL);
  expect(received.length).toBeGreaterThan(index);
  return received[index]?.body as Record<string, unknown>;
}

/** The assistant turn that sends `answer` back, as a client would: reasoning, text, then its tool calls. */
function assistantTurn(answer: GenerationResult, reasoning = answer.reasoning ?? []) {
  return {
    role: 'assistant' as const,
    content: [
      ...reasoning,
      ...(answer.text !== '' ? [{ type: 'text' as const, text: answer.text }] : []),
      ...answer.toolCalls.map((call) => ({ type: 'tool_call' as const, ...call })),
    ],
  };
}

describe.each([false, true])('Anthropic conversations (stream: %p)', (stream) => {
  it('runs a tool loop: a tool call, its result sent back, then the final answer', async () => {
    fake.script(MODEL, {
      kind: 'answer',
      text: 'Checking.',
      toolCalls: [{ name: 'lookup', arguments: { city: 'Oslo' } }],
    });
    const question = { role: 'user' as const, content: 'Weather in Oslo?' };
    const first = await generate({ messages: [question], tools: [LOOKUP_TOOL] }, { stream });
    expect(first.finishReason.unified).toBe('tool_calls');
    const [call] = first.toolCalls;
    expect(call).toMatchObject({ name: 'lookup', arguments: '{"city":"Oslo"}' });

    const final = await generate(
      {
        messages: [
          question,
          assistantTurn(first),
          { role: 'tool', content: [{ type: 'tool_result', callId: call!.id, content: 'Sunny, 18 C' }] },
        ],
        tools: [LOOKUP_TOOL],
      },
      { stream },
    );
    // The fake echoes the last user turn's text, here the tool result it read.
    expect(final.text).toBe('Echo: Sunny, 18 C');
    expect(final.finishReason.unified).toBe('stop');
    expect(sentBody(1).messages).toEqual([
      { role: 'user', content: 'Weather in Oslo?' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: call!.id, name: 'lookup', input: { city: 'Oslo' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: call!.id, content: 'Sunny, 18 C' }] },
    ]);
  });

  it('returns signed thinking, and the thinking sent back unchanged continues the tool loop', async () => {
    fake.script(MODEL, {
      kind: 'answer',
      reasoning: 'The user wants the weather; I should call lookup.',
      toolCalls: [{ name: 'lookup', arguments: { city: 'Oslo' } }],
    });
    const deltas: OutputDelta[] = [];
    const base = { tools: [LOOKUP_TOOL], maxOutputTokens: 4096, reasoning: { budgetTokens: 2048 } };
    const question = { role: 'user' as const, content: 'Weather in Oslo?' };
    const first = await generate(
      { ...base, messages: [question] },
      { stream, onDelta: (delta) => deltas.push(delta) },
    );
    expect(sentBody(0).thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(first.reasoning).toEqual([
      {
        type: 'reasoning',
        text: 'The user wants the weather; I should call lookup.',
        signature: signThinking('The user wants the weather; I should call lookup.'),
        origin: 'anthropic',
      },
    ]);
    if (stream) {
      const pieces = deltas.filter((delta) => delta.type === 'reasoning');
      expect(pieces.map((piece) => piece.text).join('')).toBe(first.reasoning![0]!.text);
      // Every piece says whose thinking it is, so a surface can mark it from its first piece.
      expect(pieces.every((piece) => piece.origin === 'anthropic')).toBe(true);
      expect(pieces.filter((piece) => piece.signature !== undefined)).toEqual([
        {
          type: 'reasoning',
          index: 0,
          origin: 'anthropic',
          text: '',
          signature: first.reasoning![0]!.signature,
        },
      ]);
    }

    const toolResult = {
      role: 'tool' as const,
      content: [{ type: 'tool_result' as const, callId: first.toolCalls[0]!.id, content: 'Sunny' }],
    };
    const final = await generate(
      { ...base, messages: [question, assistantTurn(first), toolResult] },
      { stream },
    );
    expect(final.text).toBe('Echo: Sunny');
    const sentBack = (sentBody(1).messages as { content: unknown[] }[])[1]!.content[0];
    expect(sentBack).toEqual({
      type: 'thinking',
      thinking: first.reasoning![0]!.text,
      signature: first.reasoning![0]!.signature,
    });

    // The same turn with its thinking edited: the fake, like Anthropic, refuses the signature.
    const altered: ReasoningPart = { ...first.reasoning![0]!, text: 'I will call lookup.' };
    const failure = await captureFailure(
      generate({ ...base, messages: [question, assistantTurn(first, [altered]), toolResult] }, { stream }),
    );
    expect(failure.failureClass).toBe('invalid_request');
    expect(failure.details).toMatchObject({
      status: 400,
      providerCode: 'invalid_request_error',
      requestSent: true,
    });
  });

  it('returns a redacted thinking block as reasoning with its data, and takes it back', async () => {
    fake.script(MODEL, { kind: 'answer', text: 'Done.', redactedReasoning: 'EncryptedOpaqueData==' });
    const deltas: OutputDelta[] = [];
    const question = { role: 'user' as const, content: 'Think hard.' };
    const first = await generate(
      { messages: [question] },
      { stream, onDelta: (delta) => deltas.push(delta) },
    );
    expect(first.reasoning).toEqual([
      { type: 'reasoning', text: '', redactedData: 'EncryptedOpaqueData==', origin: 'anthropic' },
    ]);
    if (stream) {
      expect(deltas.filter((delta) => delta.type === 'reasoning')).toEqual([
        { type: 'reasoning', index: 0, origin: 'anthropic', text: '', redactedData: 'EncryptedOpaqueData==' },
      ]);
    }
    await generate(
      { messages: [question, assistantTurn(first), { role: 'user', content: 'And?' }] },
      { stream },
    );
    expect((sentBody(1).messages as { content: unknown }[])[1]!.content).toEqual([
      { type: 'redacted_thinking', data: 'EncryptedOpaqueData==' },
      { type: 'text', text: 'Done.' },
    ]);
  });

  it('converts cache usage: reads, 5-minute and 1-hour writes apart from plain input', async () => {
    fake.script(MODEL, {
      kind: 'answer',
      text: 'ok',
      usage: {
        inputTokens: 50,
        cachedInputTokens: 400,
        cacheWriteInputTokens: 30,
        cacheWrite1hInputTokens: 20,
        outputTokens: 5,
      },
    });
    const result = await generate({ messages: [{ role: 'user', content: 'hi' }] }, { stream });
    expect(result.usage).toMatchObject({
      inputTokens: 50,
      cachedInputTokens: 400,
      cacheWriteInputTokens: 30,
      cacheWrite1hInputTokens: 20,
      outputTokens: 5,
    });
    expect(result.usage.raw).toMatchObject({
      cache_creation_input_tokens: 50,
      cache_creation: { ephemeral_5m_input_tokens: 30, ephemeral_1h_input_tokens: 20 },
    });
  });
});

describe('Anthropic conversations: what reaches the wire', () => {
  it('sends an image tool result as a tool_result holding text and image blocks', async () => {
    const result = await generate({
      messages: [
        { role: 'user', content: 'Take a screenshot.' },
        {
          role: 'assistant',
          content: [{ type: 'tool_call', id: 'toolu_shot', name: 'screenshot', arguments: '{}' }],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool_result',
              callId: 'toolu_shot',
              content: [
                { type: 'text', text: 'Here it is.' },
                { type: 'image', data: PNG_1X1, mediaType: 'image/png' },
              ],
            },
          ],
        },
      ],
      tools: [{ name: 'screenshot', parameters: {} }],
    });
    expect(result.text).toBe('Echo: Here it is.');
    const messages = sentBody(0).messages as { content: unknown }[];
    expect(messages[2]!.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'toolu_shot',
        content: [
          { type: 'text', text: 'Here it is.' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_1X1 } },
        ],
      },
    ]);
  });

  it('refuses, through the fake, image data that is not the type it claims', async () => {
    const failure = await captureFailure(
      generate({
        messages: [{ role: 'user', content: [{ type: 'image', data: PNG_1X1, mediaType: 'image/jpeg' }] }],
      }),
    );
    expect(failure.failureClass).toBe('invalid_request');
    expect(failure.details.status).toBe(400);
  });

  it('merges a tool message and the next user message into one user turn, tool results first', async () => {
    await generate({
      messages: [
        { role: 'user', content: 'Look it up.' },
        {
          role: 'assistant',
          content: [{ type: 'tool_call', id: 'toolu_a', name: 'lookup', arguments: '{}' }],
        },
        {
          role: 'tool',
          content: [{ type: 'tool_result', callId: 'toolu_a', content: 'Rain', isError: false }],
        },
        { role: 'user', content: 'Summarize.' },
      ],
      tools: [LOOKUP_TOOL],
    });
    expect((sentBody(0).messages as unknown[])[2]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_a', content: 'Rain' },
        { type: 'text', text: 'Summarize.' },
      ],
    });
  });

  it('does not send reasoning of another provider kind', async () => {
    const foreign: ReasoningPart = {
      type: 'reasoning',
      text: 'OpenAI thoughts',
      signature: 'enc_abc',
      origin: 'openai',
    };
    await generate({
      messages: [
        { role: 'user', content: 'Hi.' },
        { role: 'assistant', content: [foreign, { type: 'text', text: 'Hello.' }] },
        { role: 'user', content: 'Again.' },
      ],
    });
    expect((sentBody(0).messages as unknown[])[1]).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'Hello.' }],
    });
    expect(JSON.stringify(sentBody(0))).not.toContain('OpenAI thoughts');
  });

  it('maps a tool call id Anthropic cannot carry the same way in the call and its result', async () => {
    const oddId = 'call:7/weather.lookup';
    await generate({
      messages: [
        { role: 'user', content: 'Weather?' },
        {
          role: 'assistant',
          content: [{ type: 'tool_call', id: oddId, name: 'lookup', arguments: '{"city":"Oslo"}' }],
        },
        { role: 'tool', content: [{ type: 'tool_result', callId: oddId, content: 'Sunny' }] },
      ],
      tools: [LOOKUP_TOOL],
    });
    const messages = sentBody(0).messages as { content: Record<string, unknown>[] }[];
    const useId = messages[1]!.content[0]!.id;
    expect(useId).toMatch(/^[a-zA-Z0-9_-]+$/);
    expect(useId).not.toBe(oddId);
    expect(messages[2]!.content[0]!.tool_use_id).toBe(useId);
  });

  it('sends stop sequences, top_p, top_k, tool choice and cache breakpoints', async () => {
    await generate({
      system: [
        { type: 'text', text: 'Long instructions.', cache: { ttl: '1h' } },
        { type: 'text', text: 'Today is Monday.' },
      ],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi.', cache: {} }] }],
      tools: [{ ...LOOKUP_TOOL, cache: { ttl: '1h' } }],
      toolChoice: 'required',
      parallelToolCalls: false,
      stopSequences: ['END'],
      topP: 0.9,
      topK: 40,
      temperature: 0.5,
    });
    expect(sentBody(0)).toMatchObject({
      stop_sequences: ['END'],
      top_p: 0.9,
      top_k: 40,
      temperature: 0.5,
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
      system: [
        { type: 'text', text: 'Long instructions.', cache_control: { type: 'ephemeral', ttl: '1h' } },
        { type: 'text', text: 'Today is Monday.' },
      ],
      tools: [expect.objectContaining({ name: 'lookup', cache_control: { type: 'ephemeral', ttl: '1h' } })],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Hi.', cache_control: { type: 'ephemeral' } }] },
      ],
    });
  });

  it.each([
    ['seed', { seed: 7 }, /seed: Anthropic has no seed/],
    [
      'temperature with thinking',
      { temperature: 0.2, maxOutputTokens: 4096, reasoning: { effort: 'low' } },
      /temperature/,
    ],
    [
      'a thinking budget at max tokens',
      { maxOutputTokens: 2048, reasoning: { budgetTokens: 2048 } },
      /reasoning\.budgetTokens/,
    ],
  ] as const)('refuses %s before sending anything', async (_name, options, message) => {
    const failure = await captureFailure(
      generate({ messages: [{ role: 'user', content: 'hi' }], ...options }),
    );
    expect(failure).toMatchObject({ failureClass: 'invalid_request', details: { requestSent: false } });
    expect(failure.message).toMatch(message);
    expect(fake.requestsFor(MODEL)).toHaveLength(0);
  });

  it('refuses tool call arguments that are not JSON, naming the field, before sending', async () => {
    const failure = await captureFailure(
      generate({
        messages: [
          { role: 'user', content: 'Weather?' },
          {
            role: 'assistant',
            content: [{ type: 'tool_call', id: 'toolu_b', name: 'lookup', arguments: '{"city":' }],
          },
          { role: 'tool', content: [{ type: 'tool_result', callId: 'toolu_b', content: 'Sunny' }] },
        ],
      }),
    );
    expect(failure).toMatchObject({ failureClass: 'invalid_request', details: { requestSent: false } });
    expect(failure.message).toContain('messages[1].content[0].arguments');
    expect(fake.requestsFor(MODEL)).toHaveLength(0);
  });
});

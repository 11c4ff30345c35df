// Unit tests: neutral conversations and options as Anthropic Messages bodies, and what the adapter refuses before sending.
import { GenerationRequestSchema, type GenerationRequestInput } from '../../../src/config/request';
import { convertRequest } from '../../../src/providers/anthropic/convert-request';
import { ProviderError } from '../../../src/providers/types';

function convert(input: GenerationRequestInput) {
  return convertRequest('claude-test', GenerationRequestSchema.parse(input));
}

function refused(input: GenerationRequestInput): ProviderError {
  try {
    convert(input);
  } catch (error) {
    if (error instanceof ProviderError) return error;
    throw error;
  }
  throw new Error('expected the conversion to refuse the request');
}

const hi = { role: 'user' as const, content: 'hi' };

describe('Anthropic convertRequest: messages', () => {
  it('keeps a lone string message a string, and parts as blocks with cache breakpoints', () => {
    const body = convert({
      messages: [
        hi,
        { role: 'assistant', content: 'hello' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look:', cache: { ttl: '1h' } },
            { type: 'image', url: 'https://example.com/cat.png' },
            {
              type: 'document',
              data: 'JVBERi0=',
              mediaType: 'application/pdf',
              title: 'spec.pdf',
              cache: {},
            },
          ],
        },
      ],
    });
    expect(body.messages).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Look:', cache_control: { type: 'ephemeral', ttl: '1h' } },
          { type: 'image', source: { type: 'url', url: 'https://example.com/cat.png' } },
          {
            type: 'document',
            source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' },
            title: 'spec.pdf',
            cache_control: { type: 'ephemeral' },
          },
        ],
      },
    ]);
  });

  it('puts tool results in a user turn, first, merged with the user message after them', () => {
    const body = convert({
      messages: [
        hi,
        {
          role: 'assistant',
          content: [
            { type: 'tool_call', id: 'toolu_1', name: 'a', arguments: '{"x":1}' },
            { type: 'tool_call', id: 'toolu_2', name: 'b', arguments: '' },
          ],
        },
        {
          role: 'tool',
          content: [
            { type: 'tool_result', callId: 'toolu_1', content: 'one' },
            { type: 'tool_result', callId: 'toolu_2', content: 'failed', isError: true, cache: {} },
          ],
        },
        { role: 'user', content: 'and now?' },
      ],
    });
    expect(body.messages).toEqual([
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'toolu_1', name: 'a', input: { x: 1 } },
          { type: 'tool_use', id: 'toolu_2', name: 'b', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: 'one' },
          {
            type: 'tool_result',
            tool_use_id: 'toolu_2',
            content: 'failed',
            is_error: true,
            cache_control: { type: 'ephemeral' },
          },
          { type: 'text', text: 'and now?' },
        ],
      },
    ]);
  });

  it('sends Anthropic reasoning (signed or redacted) and drops other kinds and unsigned thinking', () => {
    const body = convert({
      messages: [
        hi,
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'mine', signature: 'sig', origin: 'anthropic' },
            { type: 'reasoning', text: '', redactedData: 'opaque', origin: 'anthropic' },
            { type: 'reasoning', text: 'theirs', signature: 'enc', origin: 'openai' },
            { type: 'reasoning', text: 'no origin', signature: 'sig2' },
            { type: 'reasoning', text: 'cut before its signature', origin: 'anthropic' },
            { type: 'text', text: 'answer' },
          ],
        },
      ],
    });
    expect(body.messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'mine', signature: 'sig' },
        { type: 'redacted_thinking', data: 'opaque' },
        { type: 'text', text: 'answer' },
      ],
    });
  });

  it('leaves out a turn that only held reasoning of another kind, keeping turns alternating', () => {
    const body = convert({
      messages: [
        hi,
        { role: 'assistant', content: [{ type: 'reasoning', text: 'x', signature: 'y', origin: 'openai' }] },
        { role: 'user', content: 'again' },
      ],
    });
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'hi' },
          { type: 'text', text: 'again' },
        ],
      },
    ]);
  });

  it('maps a tool call id Anthropic cannot carry, identically in the call and its result', () => {
    const body = convert({
      messages: [
        hi,
        { role: 'assistant', content: [{ type: 'tool_call', id: 'call.1', name: 'a', arguments: '{}' }] },
        { role: 'tool', content: [{ type: 'tool_result', callId: 'call.1', content: 'ok' }] },
      ],
    });
    const use = (body.messages[1]!.content as { id: string }[])[0]!;
    const result = (body.messages[2]!.content as { tool_use_id: string }[])[0]!;
    expect(use.id).toMatch(/^call_1_[0-9a-f]{8}$/);
    expect(result.tool_use_id).toBe(use.id);
  });

  it.each([
    ['not JSON', '{"x":'],
    ['not an object', '[1,2]'],
  ])('refuses tool call arguments that are %s, naming the field', (_name, argumentsText) => {
    const error = refused({
      messages: [
        hi,
        {
          role: 'assistant',
          content: [{ type: 'tool_call', id: 'toolu_1', name: 'a', arguments: argumentsText }],
        },
      ],
    });
    expect(error.failureClass).toBe('invalid_request');
    expect(error.details.requestSent).toBe(false);
    expect(error.message).toContain('messages[1].content[0].arguments');
    // The reason is the adapter's own phrase: the arguments themselves are not quoted.
    expect(error.message).not.toContain(argumentsText);
  });
});

describe('Anthropic convertRequest: options', () => {
  it('sends sampling options, stop sequences, tools with cache and strict, and a system of blocks', () => {
    const body = convert({
      messages: [hi],
      system: [{ type: 'text', text: 'Be brief.', cache: { ttl: '1h' } }],
      temperature: 0.4,
      topP: 0.8,
      topK: 20,
      stopSequences: ['STOP'],
      tools: [{ name: 'lookup', parameters: { properties: {} }, strict: true, cache: {} }],
    });
    expect(body).toMatchObject({
      system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral', ttl: '1h' } }],
      temperature: 0.4,
      top_p: 0.8,
      top_k: 20,
      stop_sequences: ['STOP'],
      tools: [
        {
          name: 'lookup',
          input_schema: { type: 'object', properties: {} },
          strict: true,
          cache_control: { type: 'ephemeral' },
        },
      ],
    });
    expect(body).not.toHaveProperty('tool_choice');
  });

  it.each([
    [{ toolChoice: 'auto' }, undefined],
    [
      { toolChoice: 'auto', parallelToolCalls: false },
      { type: 'auto', disable_parallel_tool_use: true },
    ],
    [{ parallelToolCalls: false }, { type: 'auto', disable_parallel_tool_use: true }],
    [{ toolChoice: 'none' }, { type: 'none' }],
    [{ toolChoice: 'required' }, { type: 'any' }],
    [
      { toolChoice: { type: 'tool', name: 'lookup' }, parallelToolCalls: false },
      { type: 'tool', name: 'lookup', disable_parallel_tool_use: true },
    ],
  ] as const)('maps tool choice %j to %j', (options, expected) => {
    const body = convert({ messages: [hi], tools: [{ name: 'lookup', parameters: {} }], ...options });
    expect(body.tool_choice).toEqual(expected);
  });

  it.each([
    ['minimal', 4096, 1024],
    ['low', 4096, 2048],
    ['medium', 32000, 8192],
    ['high', 32000, 16384],
    ['high', 4096, 4095],
  ] as const)(
    'turns effort %s with max %d into a thinking budget of %d',
    (effort, maxOutputTokens, budget) => {
      const body = convert({ messages: [hi], maxOutputTokens, reasoning: { effort } });
      expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: budget });
    },
  );

  it('sends an explicit thinking budget as it is', () => {
    const body = convert({ messages: [hi], maxOutputTokens: 8000, reasoning: { budgetTokens: 3000 } });
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 3000 });
  });

  it.each<[string, Partial<GenerationRequestInput>, string]>([
    ['seed', { seed: 1 }, 'seed'],
    ['a temperature above 1', { temperature: 1.5 }, 'temperature'],
    [
      'a temperature other than 1 with thinking',
      { temperature: 0.5, maxOutputTokens: 4096, reasoning: { effort: 'low' } },
      'temperature',
    ],
    ['top_k with thinking', { topK: 5, maxOutputTokens: 4096, reasoning: { effort: 'low' } }, 'topK'],
    ['a low top_p with thinking', { topP: 0.5, maxOutputTokens: 4096, reasoning: { effort: 'low' } }, 'topP'],
    [
      'a budget not below max tokens',
      { maxOutputTokens: 2000, reasoning: { budgetTokens: 2000 } },
      'reasoning.budgetTokens',
    ],
    [
      'an effort with max tokens too small to think',
      { maxOutputTokens: 1024, reasoning: { effort: 'minimal' } },
      'reasoning',
    ],
    [
      'a forced tool with thinking',
      {
        maxOutputTokens: 4096,
        reasoning: { effort: 'low' },
        tools: [{ name: 'lookup', parameters: {} }],
        toolChoice: 'required',
      },
      'toolChoice',
    ],
  ])('refuses %s, naming the field', (_name, options, field) => {
    const error = refused({ messages: [hi], ...options });
    expect(error.failureClass).toBe('invalid_request');
    expect(error.details.requestSent).toBe(false);
    expect(error.message).toContain(`(${field}: `);
  });
});

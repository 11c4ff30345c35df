// Unit tests: whole conversations and request options converted into Chat Completions bodies, and what is refused.
import { GenerationRequestSchema, type GenerationRequestInput } from '../../../src/config/request';
import {
  convertRequest,
  reasoningEffortFor,
  TOOL_IMAGES_PLACEHOLDER,
  toolImagesNote,
} from '../../../src/providers/openai/convert-request';
import { openAIToolCallId } from '../../../src/providers/openai/openai-tool-call-id';
import { ProviderError } from '../../../src/providers/types';

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const LOOKUP = { name: 'lookup', parameters: { type: 'object', properties: {} } };

function parse(input: GenerationRequestInput) {
  return GenerationRequestSchema.parse(input);
}

function refusalOf(convert: () => unknown): ProviderError {
  try {
    convert();
  } catch (error) {
    if (error instanceof ProviderError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('OpenAI convertRequest: messages', () => {
  it('sends user parts as text, image_url (url or data URL with detail) and file parts', () => {
    const body = convertRequest(
      'gpt-test',
      parse({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Look', cache: { ttl: '5m' } },
              { type: 'image', url: 'https://example.com/a.png', detail: 'low' },
              { type: 'image', data: PNG, mediaType: 'image/png' },
              { type: 'document', data: 'JVBERi0=', mediaType: 'application/pdf', title: 'report.pdf' },
              { type: 'document', data: 'JVBERi0=', mediaType: 'application/pdf' },
            ],
          },
        ],
      }),
      'openai',
    );
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          // The cache breakpoint is a no-op: OpenAI caches by itself.
          { type: 'text', text: 'Look' },
          { type: 'image_url', image_url: { url: 'https://example.com/a.png', detail: 'low' } },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
          {
            type: 'file',
            file: { file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'report.pdf' },
          },
          {
            type: 'file',
            file: { file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'document.pdf' },
          },
        ],
      },
    ]);
  });

  it('sends system parts as text parts to OpenAI and as one string to compatible servers', () => {
    const request = parse({
      system: [
        { type: 'text', text: 'One.' },
        { type: 'text', text: 'Two.', cache: {} },
      ],
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(convertRequest('gpt-test', request, 'openai').messages[0]).toEqual({
      role: 'system',
      content: [
        { type: 'text', text: 'One.' },
        { type: 'text', text: 'Two.' },
      ],
    });
    expect(convertRequest('llama', request, 'openai-compatible').messages[0]).toEqual({
      role: 'system',
      content: 'One.\n\nTwo.',
    });
  });

  it('sends assistant text and tool calls, drops reasoning of any origin, and one tool message per result', () => {
    const request = parse({
      messages: [
        { role: 'user', content: 'Weather in Oslo and Bergen?' },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'Two lookups.', origin: 'openai-compatible' },
            { type: 'reasoning', text: 'signed', signature: 'sig', origin: 'anthropic' },
            { type: 'text', text: 'Checking.' },
            { type: 'tool_call', id: 'call_1', name: 'lookup', arguments: '{"city":"Oslo"}' },
            { type: 'tool_call', id: 'call_2', name: 'lookup', arguments: '{"city":"Bergen"}' },
          ],
        },
        {
          role: 'tool',
          content: [
            { type: 'tool_result', callId: 'call_1', content: 'Sunny' },
            {
              type: 'tool_result',
              callId: 'call_2',
              content: [{ type: 'text', text: 'Rain' }],
              isError: true,
            },
          ],
        },
      ],
      tools: [LOOKUP],
    });
    for (const kind of ['openai', 'openai-compatible'] as const) {
      const body = convertRequest('model', request, kind);
      expect(body.messages).toEqual([
        { role: 'user', content: 'Weather in Oslo and Bergen?' },
        {
          role: 'assistant',
          content: 'Checking.',
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"city":"Oslo"}' } },
            { id: 'call_2', type: 'function', function: { name: 'lookup', arguments: '{"city":"Bergen"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'Sunny' },
        {
          role: 'tool',
          tool_call_id: 'call_2',
          // isError is a no-op: Chat Completions has no error flag; the content says it.
          content: kind === 'openai' ? [{ type: 'text', text: 'Rain' }] : 'Rain',
        },
      ]);
      expect(JSON.stringify(body)).not.toContain('Two lookups');
      expect(JSON.stringify(body)).not.toContain('sig');
    }
  });

  it('sends content null beside tool calls without text', () => {
    const body = convertRequest(
      'gpt-test',
      parse({
        messages: [
          { role: 'user', content: 'go' },
          { role: 'assistant', content: [{ type: 'tool_call', id: 'c', name: 'lookup', arguments: '{}' }] },
          { role: 'tool', content: [{ type: 'tool_result', callId: 'c', content: 'ok' }] },
        ],
        tools: [LOOKUP],
      }),
      'openai',
    );
    expect(body.messages[1]).toMatchObject({ role: 'assistant', content: null });
  });

  it('puts tool result images in a user message after all the tool messages of the turn', () => {
    const body = convertRequest(
      'gpt-test',
      parse({
        messages: [
          { role: 'user', content: 'Screenshots?' },
          {
            role: 'assistant',
            content: [
              { type: 'tool_call', id: 'a', name: 'shot', arguments: '{}' },
              { type: 'tool_call', id: 'b', name: 'shot', arguments: '{}' },
            ],
          },
          {
            role: 'tool',
            content: [
              {
                type: 'tool_result',
                callId: 'a',
                content: [
                  { type: 'text', text: 'Front page' },
                  { type: 'image', data: PNG, mediaType: 'image/png' },
                ],
              },
            ],
          },
          {
            role: 'tool',
            content: [
              {
                type: 'tool_result',
                callId: 'b',
                content: [{ type: 'image', url: 'https://example.com/b.png' }],
              },
            ],
          },
          { role: 'user', content: 'Compare them.' },
        ],
      }),
      'openai',
    );
    expect(body.messages).toEqual([
      { role: 'user', content: 'Screenshots?' },
      expect.objectContaining({ role: 'assistant' }),
      { role: 'tool', tool_call_id: 'a', content: [{ type: 'text', text: 'Front page' }] },
      { role: 'tool', tool_call_id: 'b', content: [{ type: 'text', text: TOOL_IMAGES_PLACEHOLDER }] },
      {
        role: 'user',
        content: [
          { type: 'text', text: toolImagesNote('a') },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
          { type: 'text', text: toolImagesNote('b') },
          { type: 'image_url', image_url: { url: 'https://example.com/b.png' } },
        ],
      },
      { role: 'user', content: 'Compare them.' },
    ]);
  });

  it('maps tool call ids longer than 40 characters the same way in the call and in its result', () => {
    const longId = `toolu_${'x'.repeat(60)}`;
    const otherLongId = `toolu_${'x'.repeat(59)}y`;
    const body = convertRequest(
      'gpt-test',
      parse({
        messages: [
          { role: 'user', content: 'go' },
          {
            role: 'assistant',
            content: [
              { type: 'tool_call', id: longId, name: 'lookup', arguments: '{}' },
              { type: 'tool_call', id: otherLongId, name: 'lookup', arguments: '{}' },
            ],
          },
          {
            role: 'tool',
            content: [
              { type: 'tool_result', callId: longId, content: 'one' },
              { type: 'tool_result', callId: otherLongId, content: 'two' },
            ],
          },
        ],
      }),
      'openai',
    );
    const [, assistant, first, second] = body.messages as unknown as [
      unknown,
      { tool_calls: { id: string }[] },
      { tool_call_id: string },
      { tool_call_id: string },
    ];
    const [callId, otherCallId] = assistant.tool_calls.map((call) => call.id);
    expect(callId).toBe(openAIToolCallId(longId));
    expect(callId!.length).toBeLessThanOrEqual(40);
    expect(otherCallId!.length).toBeLessThanOrEqual(40);
    expect(callId).not.toBe(otherCallId);
    expect(first.tool_call_id).toBe(callId);
    expect(second.tool_call_id).toBe(otherCallId);
    // An id that fits is sent unchanged.
    expect(openAIToolCallId('call_abc')).toBe('call_abc');
  });
});

describe('OpenAI convertRequest: options', () => {
  const base = { messages: [{ role: 'user' as const, content: 'hi' }] };

  it('sends stop, top_p, seed, temperature, tool_choice, parallel_tool_calls and strict tools', () => {
    const body = convertRequest(
      'gpt-test',
      parse({
        ...base,
        stopSequences: ['END', 'STOP'],
        topP: 0.5,
        seed: 7,
        temperature: 0,
        tools: [{ ...LOOKUP, strict: true }],
        toolChoice: { type: 'tool', name: 'lookup' },
        parallelToolCalls: false,
      }),
      'openai',
    );
    expect(body).toMatchObject({
      stop: ['END', 'STOP'],
      top_p: 0.5,
      seed: 7,
      temperature: 0,
      tool_choice: { type: 'function', function: { name: 'lookup' } },
      parallel_tool_calls: false,
      tools: [{ type: 'function', function: { name: 'lookup', strict: true } }],
    });
    expect(body).not.toHaveProperty('top_k');
  });

  it('leaves out parallel_tool_calls and auto/none tool_choice when there are no tools', () => {
    const body = convertRequest(
      'gpt-test',
      parse({ ...base, toolChoice: 'none', parallelToolCalls: true }),
      'openai',
    );
    expect(body).not.toHaveProperty('tool_choice');
    expect(body).not.toHaveProperty('parallel_tool_calls');
  });

  it('maps reasoning effort and budgets to reasoning_effort for both kinds', () => {
    expect(reasoningEffortFor({ effort: 'minimal' })).toBe('minimal');
    expect(reasoningEffortFor({ budgetTokens: 1024 })).toBe('low');
    expect(reasoningEffortFor({ budgetTokens: 2048 })).toBe('low');
    expect(reasoningEffortFor({ budgetTokens: 2049 })).toBe('medium');
    expect(reasoningEffortFor({ budgetTokens: 8192 })).toBe('medium');
    expect(reasoningEffortFor({ budgetTokens: 8193 })).toBe('high');
    for (const kind of ['openai', 'openai-compatible'] as const) {
      const body = convertRequest('model', parse({ ...base, reasoning: { budgetTokens: 4000 } }), kind);
      expect(body.reasoning_effort).toBe('medium');
    }
  });

  it('sends top_k to compatible servers and refuses topK for OpenAI before sending', () => {
    expect(convertRequest('llama', parse({ ...base, topK: 40 }), 'openai-compatible').top_k).toBe(40);
    const refusal = refusalOf(() => convertRequest('gpt-test', parse({ ...base, topK: 40 }), 'openai'));
    expect(refusal.failureClass).toBe('invalid_request');
    expect(refusal.details.requestSent).toBe(false);
    expect(refusal.message).toContain('topK');
  });

  it('refuses more than 4 stop sequences for OpenAI, naming stopSequences; compatible servers get them all', () => {
    const five = parse({ ...base, stopSequences: ['a', 'b', 'c', 'd', 'e'] });
    const refusal = refusalOf(() => convertRequest('gpt-test', five, 'openai'));
    expect(refusal).toMatchObject({ failureClass: 'invalid_request', details: { requestSent: false } });
    expect(refusal.message).toContain('stopSequences');
    expect(convertRequest('llama', five, 'openai-compatible').stop).toHaveLength(5);
  });
});

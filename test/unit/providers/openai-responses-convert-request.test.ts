// Unit tests: whole conversations and request options converted into stateless Responses API bodies, and refusals.
import { assistantMessageOf } from '../../../src/config/conversation';
import { GenerationRequestSchema, type GenerationRequestInput } from '../../../src/config/request';
import { convertRequest } from '../../../src/providers/openai-responses/convert-request';
import { convertResponsesResponse } from '../../../src/providers/openai-responses/convert-response';
import { responsesCallId } from '../../../src/providers/openai-responses/responses-tool-call-id';
import { ProviderError } from '../../../src/providers/types';
import reasoningToolCall from '../../fixtures/wire/responses-reasoning-tool-call.json';

const MODEL = 'o4-mini';
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const LOOKUP = {
  name: 'lookup',
  description: 'Weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } } },
};
const CONTEXT = { label: 'openai o4-mini', provider: 'openai', model: MODEL, requestId: 'req_1' };

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

describe('Responses convertRequest: the stateless body', () => {
  it('always sends store false and asks for the encrypted reasoning; the system prompt is instructions', () => {
    const body = convertRequest(
      MODEL,
      parse({
        system: [
          { type: 'text', text: 'You are terse.', cache: { ttl: '5m' } },
          { type: 'text', text: 'Answer in English.' },
        ],
        messages: [{ role: 'user', content: 'Hello' }],
        maxOutputTokens: 300,
      }),
    );
    expect(body).toEqual({
      model: MODEL,
      store: false,
      include: ['reasoning.encrypted_content'],
      // Parts are joined as one text; the cache breakpoint is a no-op: OpenAI caches by itself.
      instructions: 'You are terse.\n\nAnswer in English.',
      input: [{ type: 'message', role: 'user', content: 'Hello' }],
      max_output_tokens: 300,
    });
    expect(body).not.toHaveProperty('previous_response_id');
  });

  it('asks a model that does not reason for no encrypted reasoning, and sends it no reasoning items', () => {
    const answer = convertResponsesResponse(reasoningToolCall, CONTEXT);
    const body = convertRequest(
      'gpt-4.1',
      parse({
        messages: [
          { role: 'user', content: 'Weather in Oslo?' },
          assistantMessageOf(answer),
          {
            role: 'tool',
            content: [{ type: 'tool_result', callId: answer.toolCalls[0]!.id, content: 'Sunny' }],
          },
        ],
        tools: [LOOKUP],
      }),
      undefined,
      { reasoningItems: false },
    );
    expect(body).not.toHaveProperty('include');
    expect(body.input.map((item) => item.type)).toEqual(['message', 'function_call', 'function_call_output']);
  });

  it('sends user text, images (url with detail, data URL) and PDFs as input parts', () => {
    const body = convertRequest(
      MODEL,
      parse({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Look', cache: {} },
              { type: 'image', url: 'https://example.com/a.png', detail: 'low' },
              { type: 'image', data: PNG, mediaType: 'image/png' },
              { type: 'document', data: 'JVBERi0=', mediaType: 'application/pdf', title: 'report.pdf' },
              { type: 'document', data: 'JVBERi0=', mediaType: 'application/pdf' },
            ],
          },
        ],
      }),
    );
    expect(body.input).toEqual([
      {
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_text', text: 'Look' },
          { type: 'input_image', image_url: 'https://example.com/a.png', detail: 'low' },
          { type: 'input_image', image_url: `data:image/png;base64,${PNG}`, detail: 'auto' },
          { type: 'input_file', filename: 'report.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' },
          { type: 'input_file', filename: 'document.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' },
        ],
      },
    ]);
  });
});

describe('Responses convertRequest: an answer sent back', () => {
  it('sends a recorded answer back as it came: reasoning item (id, summary, encrypted content), then the call', () => {
    const answer = convertResponsesResponse(reasoningToolCall, CONTEXT);
    const [reasoning, call] = reasoningToolCall.output as unknown as [
      Record<string, unknown>,
      Record<string, unknown>,
    ];
    const body = convertRequest(
      MODEL,
      parse({
        messages: [
          { role: 'user', content: 'Weather in Oslo?' },
          assistantMessageOf(answer),
          {
            role: 'tool',
            content: [{ type: 'tool_result', callId: answer.toolCalls[0]!.id, content: 'Sunny' }],
          },
        ],
        tools: [LOOKUP],
      }),
    );
    expect(body.input).toEqual([
      { type: 'message', role: 'user', content: 'Weather in Oslo?' },
      {
        type: 'reasoning',
        id: reasoning.id,
        // Summary parts come back as one text: OpenAI reads the encrypted content, not the summary.
        summary: [
          {
            type: 'summary_text',
            text: '**Checking the weather**\n\nThe user wants the weather in Oslo; the lookup tool gives it.\n\n**Calling lookup**\n\nOne call with the city is enough.',
          },
        ],
        encrypted_content: reasoning.encrypted_content,
      },
      { type: 'function_call', call_id: call.call_id, name: 'lookup', arguments: '{"city":"Oslo"}' },
      { type: 'function_call_output', call_id: call.call_id, output: 'Sunny' },
    ]);
  });

  it('keeps the order of an assistant turn: each reasoning item before what followed it, text runs as one message', () => {
    const body = convertRequest(
      MODEL,
      parse({
        messages: [
          { role: 'user', content: 'Go' },
          {
            role: 'assistant',
            content: [
              { type: 'reasoning', text: '', signature: 'enc-a', id: 'rs_a', origin: 'openai-responses' },
              { type: 'text', text: 'Part one, ' },
              { type: 'text', text: 'part two.' },
              { type: 'reasoning', text: 'More', signature: 'enc-b', id: 'rs_b', origin: 'openai-responses' },
              { type: 'tool_call', id: 'call_1', name: 'lookup', arguments: '{}' },
            ],
          },
          { role: 'tool', content: [{ type: 'tool_result', callId: 'call_1', content: 'ok' }] },
        ],
        tools: [LOOKUP],
      }),
    );
    expect(body.input.slice(1)).toEqual([
      { type: 'reasoning', id: 'rs_a', summary: [], encrypted_content: 'enc-a' },
      {
        type: 'message',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Part one, part two.', annotations: [] }],
      },
      {
        type: 'reasoning',
        id: 'rs_b',
        summary: [{ type: 'summary_text', text: 'More' }],
        encrypted_content: 'enc-b',
      },
      { type: 'function_call', call_id: 'call_1', name: 'lookup', arguments: '{}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'ok' },
    ]);
  });

  it('sends no reasoning of another kind, none without its encrypted content or id, none with nothing after it', () => {
    const body = convertRequest(
      MODEL,
      parse({
        messages: [
          { role: 'user', content: 'Go' },
          {
            role: 'assistant',
            content: [
              { type: 'reasoning', text: 'Anthropic thinking', signature: 'sig', origin: 'anthropic' },
              { type: 'reasoning', text: 'Chat reasoning', origin: 'openai-compatible' },
              { type: 'reasoning', text: 'Stored only', id: 'rs_stored', origin: 'openai-responses' },
              { type: 'reasoning', text: 'No origin', signature: 'enc', id: 'rs_no_origin' },
              { type: 'reasoning', text: 'No id', signature: 'enc', origin: 'openai-responses' },
              { type: 'text', text: 'Answer.' },
            ],
          },
          { role: 'user', content: 'Again' },
          {
            role: 'assistant',
            // An answer cut off while thinking: its reasoning has no following item, which OpenAI refuses.
            content: [
              { type: 'reasoning', text: '', signature: 'enc-cut', id: 'rs_cut', origin: 'openai-responses' },
            ],
          },
          { role: 'user', content: 'Once more' },
        ],
      }),
    );
    expect(body.input).toEqual([
      { type: 'message', role: 'user', content: 'Go' },
      {
        type: 'message',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Answer.', annotations: [] }],
      },
      { type: 'message', role: 'user', content: 'Again' },
      { type: 'message', role: 'user', content: 'Once more' },
    ]);
  });

  it('deals a run of reasoning parts out again, one before each item after the run, keeping the last ones', () => {
    const reasoning = (id: string) =>
      ({ type: 'reasoning', text: '', signature: `enc-${id}`, id, origin: 'openai-responses' }) as const;
    const call = (id: string) => ({ type: 'tool_call', id, name: 'lookup', arguments: '{}' }) as const;
    const body = convertRequest(
      MODEL,
      parse({
        messages: [
          { role: 'user', content: 'Go' },
          // An answer that went reasoning, call, reasoning, call, carried as neutral parts.
          {
            role: 'assistant',
            content: [reasoning('rs_1'), reasoning('rs_2'), call('call_1'), call('call_2')],
          },
          {
            role: 'tool',
            content: [
              { type: 'tool_result', callId: 'call_1', content: 'a' },
              { type: 'tool_result', callId: 'call_2', content: 'b' },
            ],
          },
          {
            role: 'assistant',
            content: [
              reasoning('rs_3'),
              reasoning('rs_4'),
              reasoning('rs_5'),
              { type: 'text', text: 'Done.' },
            ],
          },
          { role: 'user', content: 'Thanks' },
        ],
        tools: [LOOKUP],
      }),
    );
    expect(
      body.input.map((item) => ('id' in item && item.id) || ('call_id' in item && item.call_id) || item.type),
    ).toEqual([
      'message',
      'rs_1',
      'call_1',
      'rs_2',
      'call_2',
      'call_1',
      'call_2',
      'rs_5',
      'message',
      'message',
    ]);
  });

  it('sends a plain-string assistant message as one output_text message', () => {
    const body = convertRequest(
      MODEL,
      parse({
        messages: [
          { role: 'user', content: 'Hi' },
          { role: 'assistant', content: 'Hello.' },
          { role: 'user', content: 'Bye' },
        ],
      }),
    );
    expect(body.input[1]).toEqual({
      type: 'message',
      role: 'assistant',
      content: [{ type: 'output_text', text: 'Hello.', annotations: [] }],
    });
  });
});

describe('Responses convertRequest: tool results and ids', () => {
  it('sends text results as a string and results with images in the list form, in their order', () => {
    const body = convertRequest(
      MODEL,
      parse({
        messages: [
          { role: 'user', content: 'Look' },
          {
            role: 'assistant',
            content: [
              { type: 'tool_call', id: 'call_a', name: 'lookup', arguments: '{}' },
              { type: 'tool_call', id: 'call_b', name: 'lookup', arguments: '{}' },
              { type: 'tool_call', id: 'call_c', name: 'lookup', arguments: '{}' },
            ],
          },
          {
            role: 'tool',
            content: [
              {
                type: 'tool_result',
                callId: 'call_a',
                content: [
                  { type: 'text', text: 'line 1' },
                  { type: 'text', text: 'line 2' },
                ],
                isError: true,
              },
              {
                type: 'tool_result',
                callId: 'call_b',
                content: [
                  { type: 'text', text: 'The screenshot:' },
                  { type: 'image', data: PNG, mediaType: 'image/png', detail: 'high' },
                ],
              },
              { type: 'tool_result', callId: 'call_c', content: [] },
            ],
          },
        ],
        tools: [LOOKUP],
      }),
    );
    expect(body.input.slice(4)).toEqual([
      { type: 'function_call_output', call_id: 'call_a', output: 'line 1\nline 2' },
      {
        type: 'function_call_output',
        call_id: 'call_b',
        output: [
          { type: 'input_text', text: 'The screenshot:' },
          { type: 'input_image', image_url: `data:image/png;base64,${PNG}`, detail: 'high' },
        ],
      },
      { type: 'function_call_output', call_id: 'call_c', output: '' },
    ]);
  });

  it('maps a call id over 64 characters the same way on the call and on its output', () => {
    const longId = `toolu_${'x'.repeat(80)}`;
    const body = convertRequest(
      MODEL,
      parse({
        messages: [
          { role: 'user', content: 'Go' },
          {
            role: 'assistant',
            content: [{ type: 'tool_call', id: longId, name: 'lookup', arguments: '{}' }],
          },
          { role: 'tool', content: [{ type: 'tool_result', callId: longId, content: 'ok' }] },
        ],
        tools: [LOOKUP],
      }),
    );
    const mapped = responsesCallId(longId);
    expect(mapped.length).toBeLessThanOrEqual(64);
    expect(mapped).not.toBe(responsesCallId(`${longId}y`));
    expect(body.input[1]).toMatchObject({ type: 'function_call', call_id: mapped });
    expect(body.input[2]).toMatchObject({ type: 'function_call_output', call_id: mapped });
    expect(responsesCallId('call_short')).toBe('call_short');
  });
});

describe('Responses convertRequest: options', () => {
  it('sends tools with strict false unless asked, tool choice, parallel calls, sampling, effort and the schema', () => {
    const body = convertRequest(
      MODEL,
      parse({
        messages: [{ role: 'user', content: 'Go' }],
        tools: [LOOKUP, { ...LOOKUP, name: 'exact', strict: true, cache: {} }],
        toolChoice: { type: 'tool', name: 'exact' },
        parallelToolCalls: false,
        temperature: 0.3,
        topP: 0.9,
        reasoning: { effort: 'minimal' },
        jsonSchema: { type: 'object', properties: { answer: { type: 'string' } } },
      }),
    );
    expect(body).toMatchObject({
      tools: [
        {
          type: 'function',
          name: 'lookup',
          description: 'Weather for a city',
          parameters: LOOKUP.parameters,
          strict: false,
        },
        {
          type: 'function',
          name: 'exact',
          description: 'Weather for a city',
          parameters: LOOKUP.parameters,
          strict: true,
        },
      ],
      tool_choice: { type: 'function', name: 'exact' },
      parallel_tool_calls: false,
      temperature: 0.3,
      top_p: 0.9,
      reasoning: { effort: 'minimal' },
      text: {
        format: {
          type: 'json_schema',
          name: 'response',
          schema: { type: 'object', properties: { answer: { type: 'string' } } },
        },
      },
    });
    expect(body.reasoning).not.toHaveProperty('summary');
  });

  it('leaves tool choice and parallel calls out without tools', () => {
    const body = convertRequest(
      MODEL,
      parse({ messages: [{ role: 'user', content: 'Go' }], toolChoice: 'none', parallelToolCalls: true }),
    );
    expect(body).not.toHaveProperty('tool_choice');
    expect(body).not.toHaveProperty('parallel_tool_calls');
    expect(body).not.toHaveProperty('tools');
  });

  it.each([
    [2048, 'low'],
    [8192, 'medium'],
    [8193, 'high'],
  ] as const)('sends a reasoning budget of %p tokens as the effort %p', (budgetTokens, effort) => {
    const body = convertRequest(
      MODEL,
      parse({
        messages: [{ role: 'user', content: 'Go' }],
        maxOutputTokens: 20_000,
        reasoning: { budgetTokens },
      }),
    );
    expect(body.reasoning).toEqual({ effort });
    expect(body.max_output_tokens).toBe(20_000);
  });

  it.each([
    [{ stopSequences: ['END'] }, 'stopSequences'],
    [{ seed: 7 }, 'seed'],
    [{ topK: 40 }, 'topK'],
    [{ maxOutputTokens: 15 }, 'maxOutputTokens'],
  ])('refuses %p before sending, naming the field', (options, field) => {
    const refusal = refusalOf(() =>
      convertRequest(MODEL, parse({ messages: [{ role: 'user', content: 'Go' }], ...options })),
    );
    expect(refusal.failureClass).toBe('invalid_request');
    expect(refusal.details.requestSent).toBe(false);
    expect(refusal.message).toContain(`${field}: `);
  });

  it('takes the smallest output bound the API takes', () => {
    const body = convertRequest(
      MODEL,
      parse({ messages: [{ role: 'user', content: 'Go' }], maxOutputTokens: 16 }),
    );
    expect(body.max_output_tokens).toBe(16);
  });
});

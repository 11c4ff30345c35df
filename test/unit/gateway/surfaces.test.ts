// The OpenAI and Anthropic surfaces: requests made neutral (bad fields named), answers and stream events rendered.
import { anthropicSurface, parseAnthropicRequest } from '../../../src/gateway/anthropic-surface';
import { GatewayError } from '../../../src/gateway/gateway-error';
import { openAISurface, parseOpenAIRequest } from '../../../src/gateway/openai-surface';
import type { Answer } from '../../../src/gateway/surface';

function refusal(parse: () => unknown): GatewayError {
  try {
    parse();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected the request to be refused');
}

const answer: Answer = {
  text: 'hi',
  toolCalls: [{ id: 'call_1', name: 'lookup', arguments: '{"id":7}' }],
  finishReason: { unified: 'tool_calls', raw: 'tool_calls' },
  usage: { inputTokens: 8, cachedInputTokens: 2, outputTokens: 3, raw: {} },
  requestId: null,
};
const routing = {
  workflowId: 'switchyard-call-gw-1',
  route: 'support',
  servedBy: 'openai/gpt',
  fallbacks: 1,
  costUsd: 0.5,
};
const identity = { id: 'id-1', model: 'gpt', created: 1 };

describe('the OpenAI surface', () => {
  test('system and developer messages become the system prompt; text parts are kept; limits and formats map', () => {
    const parsed = parseOpenAIRequest({
      model: 'support',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'developer', content: [{ type: 'text', text: 'Use English.' }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Hel' },
            { type: 'text', text: 'lo' },
          ],
        },
        { role: 'assistant', content: 'Hi.' },
        { role: 'user', content: 'Again' },
      ],
      max_completion_tokens: 99,
      temperature: 0.3,
      response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object' } } },
      tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }],
      stream: true,
      stream_options: { include_usage: true },
      user: 'ignored',
    });
    expect(parsed).toEqual({
      route: 'support',
      stream: true,
      includeUsage: true,
      request: {
        system: [
          { type: 'text', text: 'Be brief.' },
          { type: 'text', text: 'Use English.' },
        ],
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Hel' },
              { type: 'text', text: 'lo' },
            ],
          },
          { role: 'assistant', content: 'Hi.' },
          { role: 'user', content: 'Again' },
        ],
        maxOutputTokens: 99,
        temperature: 0.3,
        jsonSchema: { type: 'object' },
        tools: [{ name: 'lookup', parameters: { type: 'object' } }],
      },
    });
    expect(parseOpenAIRequest({ messages: [{ role: 'user', content: 'x' }] }).route).toBeUndefined();
  });

  test.each([
    [{ messages: [{ role: 'function', content: 'r', name: 'f' }] }, 'messages.0.role'],
    [
      { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: {} }] }] },
      'messages.0.content.0.image_url.url',
    ],
    [{ messages: [{ role: 'user', content: 'x' }], n: 2 }, 'n'],
    [{ messages: [{ role: 'user', content: 'x' }], stop: ['END', ''] }, 'stop.1'],
    [{ messages: [{ role: 'user', content: 'x' }], container: 'c' }, 'container'],
    [{ messages: [{ role: 'user', content: 'x' }], tool_choice: 'required' }, 'tool_choice'],
    [{ messages: [] }, 'messages'],
    [{ messages: [{ role: 'user', content: 'x' }], max_tokens: -1 }, 'max_tokens'],
  ])('%j is refused naming %s', (body, param) => {
    const error = refusal(() => parseOpenAIRequest(body));
    expect(error.status).toBe(400);
    expect(error.context.param).toBe(param);
  });

  test('an answer renders as a chat completion with tool calls, usage and the routing metadata', () => {
    const body = JSON.parse(JSON.stringify(openAISurface.answer(answer, identity, routing)));
    expect(body.choices[0]).toMatchObject({
      finish_reason: 'tool_calls',
      message: {
        role: 'assistant',
        content: 'hi',
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"id":7}' } }],
      },
    });
    expect(body.usage).toEqual({
      prompt_tokens: 10,
      completion_tokens: 3,
      total_tokens: 13,
      prompt_tokens_details: { cached_tokens: 2 },
    });
    expect(body.switchyard).toEqual({
      workflow_id: 'switchyard-call-gw-1',
      route: 'support',
      served_by: 'openai/gpt',
      fallbacks: 1,
      cost_usd: 0.5,
    });
  });

  test('a stream: role chunk, pieces, a finish chunk with the metadata, the usage chunk, [DONE]', () => {
    const renderer = openAISurface.streamRenderer({
      request: { messages: [] },
      stream: true,
      includeUsage: true,
    });
    const text =
      renderer.start(identity) +
      renderer.delta({ type: 'text', text: 'hi' }) +
      renderer.delta({ type: 'tool_call', index: 0, id: 'call_1', name: 'lookup', arguments: '{"id"' }) +
      renderer.delta({ type: 'tool_call', index: 0, arguments: ':7}' }) +
      renderer.finish(answer, routing);
    const events = text
      .split('\n\n')
      .filter(Boolean)
      .map((event) => event.replace(/^data: /, ''));
    expect(events[events.length - 1]).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((event) => JSON.parse(event));
    expect(chunks[0].choices[0].delta).toEqual({ role: 'assistant', content: '' });
    expect(chunks[2].choices[0].delta.tool_calls[0]).toEqual({
      index: 0,
      id: 'call_1',
      type: 'function',
      function: { name: 'lookup', arguments: '{"id"' },
    });
    expect(chunks[3].choices[0].delta.tool_calls[0]).toEqual({ index: 0, function: { arguments: ':7}' } });
    expect(chunks[4].choices[0].finish_reason).toBe('tool_calls');
    expect(chunks[4].switchyard.workflow_id).toBe('switchyard-call-gw-1');
    expect(chunks[5]).toMatchObject({ choices: [], usage: { total_tokens: 13 } });
  });
});

describe('the Anthropic surface', () => {
  test('system blocks, text blocks and max_tokens map; tools keep their input schema', () => {
    const parsed = parseAnthropicRequest({
      model: 'reverse',
      max_tokens: 50,
      system: [{ type: 'text', text: 'Be brief.' }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
      tools: [{ name: 'lookup', input_schema: { type: 'object' } }],
      metadata: { user_id: 'ignored' },
    });
    expect(parsed).toEqual({
      route: 'reverse',
      stream: false,
      includeUsage: true,
      request: {
        system: [{ type: 'text', text: 'Be brief.' }],
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
        maxOutputTokens: 50,
        tools: [{ name: 'lookup', parameters: { type: 'object' } }],
      },
    });
  });

  test.each([
    [
      { messages: [{ role: 'user', content: [{ type: 'image', source: {} }] }] },
      'messages.0.content.0.source.type',
    ],
    [
      { messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x', extra: 1 }] }] },
      'messages.0.content.0.extra',
    ],
    [{ messages: [{ role: 'system', content: 'x' }] }, 'messages.0.role'],
    [{ messages: [{ role: 'user', content: 'x' }], stop_sequences: [''] }, 'stop_sequences.0'],
    [{ messages: [{ role: 'user', content: 'x' }], container: 'c' }, 'container'],
  ])('%j is refused naming %s', (body, param) => {
    expect(refusal(() => parseAnthropicRequest(body)).context.param).toBe(param);
  });

  test('a stream opens and closes a block per kind of piece, and ends with message_delta and message_stop', () => {
    const renderer = anthropicSurface.streamRenderer({
      request: { messages: [] },
      stream: true,
      includeUsage: true,
    });
    const text =
      renderer.start(identity) +
      renderer.delta({ type: 'text', text: 'hi' }) +
      renderer.delta({ type: 'tool_call', index: 0, id: 'toolu_1', name: 'lookup', arguments: '' }) +
      renderer.delta({ type: 'tool_call', index: 0, arguments: '{"id":7}' }) +
      renderer.finish(answer, routing);
    const events = text
      .split('\n\n')
      .filter(Boolean)
      .map((event) => {
        const [name, data] = event.split('\n');
        return { name: name!.replace('event: ', ''), data: JSON.parse(data!.replace('data: ', '')) };
      });
    expect(events.map((event) => event.name)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(events[4]!.data).toMatchObject({
      index: 1,
      content_block: { type: 'tool_use', id: 'toolu_1', name: 'lookup' },
    });
    expect(events[7]!.data).toMatchObject({
      delta: { stop_reason: 'tool_use' },
      usage: {
        input_tokens: 8,
        cache_read_input_tokens: 2,
        cache_creation_input_tokens: 0,
        output_tokens: 3,
      },
    });
    expect(events[7]!.data.switchyard.served_by).toBe('openai/gpt');
  });

  test('an error body is Anthropic-shaped and carries the failure type', () => {
    const error = new GatewayError('no', 'budget', 'BudgetExceeded');
    expect(error.status).toBe(402);
    expect(anthropicSurface.errorBody(error)).toEqual({
      type: 'error',
      error: { type: 'billing_error', message: 'no', code: 'BudgetExceeded' },
    });
    expect(openAISurface.errorBody(error)).toEqual({
      error: { message: 'no', type: 'insufficient_quota', param: null, code: 'BudgetExceeded' },
    });
  });
});

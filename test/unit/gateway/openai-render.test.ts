// The OpenAI surface's rendering: reasoning_content in answers and streams, usage with cache writes and reasoning tokens.
import { GatewayError } from '../../../src/gateway/gateway-error';
import { openAISurface } from '../../../src/gateway/openai-surface';
import type { Answer } from '../../../src/gateway/surface';

const identity = { id: 'chatcmpl-1', model: 'deep', created: 1 };
const routing = { workflowId: 'switchyard-call-gw-1', route: 'support', servedBy: 'openai/deep' };

const answer: Answer = {
  text: 'It is sunny.',
  toolCalls: [],
  reasoning: [
    { type: 'reasoning', text: 'The tool said sunny.', signature: 'c2ln', origin: 'anthropic' },
    { type: 'reasoning', text: '', redactedData: 'b3BhcXVl', origin: 'anthropic' },
    { type: 'reasoning', text: 'So: sunny.', origin: 'anthropic' },
  ],
  finishReason: { unified: 'stop', raw: 'end_turn' },
  usage: {
    inputTokens: 10,
    cachedInputTokens: 20,
    cacheWriteInputTokens: 30,
    cacheWrite1hInputTokens: 40,
    outputTokens: 9,
    reasoningTokens: 6,
    raw: {},
  },
  requestId: null,
};

function chunksOf(text: string): Record<string, unknown>[] {
  const events = text
    .split('\n\n')
    .filter(Boolean)
    .map((event) => event.replace(/^data: /, ''));
  expect(events.at(-1)).toBe('[DONE]');
  return events.slice(0, -1).map((event) => JSON.parse(event) as Record<string, unknown>);
}

test("an answer's reasoning text is reasoning_content (no signature, no redacted data); usage counts the whole prompt", () => {
  const body = JSON.parse(JSON.stringify(openAISurface.answer(answer, identity, routing)));
  expect(body.choices[0].message).toEqual({
    role: 'assistant',
    content: 'It is sunny.',
    refusal: null,
    reasoning_content: 'The tool said sunny.\n\nSo: sunny.',
  });
  expect(JSON.stringify(body)).not.toContain('c2ln');
  expect(JSON.stringify(body)).not.toContain('b3BhcXVl');
  expect(body.usage).toEqual({
    prompt_tokens: 100,
    completion_tokens: 9,
    total_tokens: 109,
    prompt_tokens_details: { cached_tokens: 20 },
    completion_tokens_details: { reasoning_tokens: 6 },
  });
});

test('an answer without reasoning has no reasoning_content, and usage without a reasoning count has no details for it', () => {
  const plain: Answer = {
    ...answer,
    text: '',
    reasoning: undefined,
    toolCalls: [{ id: 'call_1', name: 'weather', arguments: '{}' }],
    finishReason: { unified: 'tool_calls', raw: 'tool_calls' },
    usage: { inputTokens: 5, cachedInputTokens: 0, outputTokens: 2, raw: {} },
  };
  const body = JSON.parse(JSON.stringify(openAISurface.answer(plain, identity, routing)));
  expect(body.choices[0].message).toEqual({
    role: 'assistant',
    content: null,
    refusal: null,
    tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{}' } }],
  });
  expect(body.usage).toEqual({
    prompt_tokens: 5,
    completion_tokens: 2,
    total_tokens: 7,
    prompt_tokens_details: { cached_tokens: 0 },
  });
});

test('a stream: reasoning pieces as delta.reasoning_content (parts a paragraph apart), then text, tool calls by index', () => {
  const renderer = openAISurface.streamRenderer({
    request: { messages: [] },
    stream: true,
    includeUsage: true,
  });
  const text =
    renderer.start(identity) +
    renderer.delta({ type: 'reasoning', index: 0, text: 'The tool ' }) +
    renderer.delta({ type: 'reasoning', index: 0, text: 'said sunny.' }) +
    renderer.delta({ type: 'reasoning', index: 0, text: '', signature: 'c2ln' }) +
    renderer.delta({ type: 'reasoning', index: 1, text: '', redactedData: 'b3BhcXVl' }) +
    renderer.delta({ type: 'reasoning', index: 2, text: 'So: sunny.' }) +
    renderer.delta({ type: 'text', text: 'It is sunny.' }) +
    renderer.delta({ type: 'tool_call', index: 0, id: 'call_1', name: 'weather', arguments: '' }) +
    renderer.delta({ type: 'tool_call', index: 0, arguments: '{"city":' }) +
    renderer.delta({ type: 'tool_call', index: 1, id: 'call_2', name: 'time', arguments: '{}' }) +
    renderer.delta({ type: 'tool_call', index: 0, arguments: '"Paris"}' }) +
    renderer.finish(answer, routing);
  expect(text).not.toContain('c2ln');
  expect(text).not.toContain('b3BhcXVl');
  const deltas = chunksOf(text).map(
    (chunk) => (chunk.choices as { delta: Record<string, unknown> }[])[0]?.delta ?? chunk.usage,
  );
  expect(deltas).toEqual([
    { role: 'assistant', content: '' },
    { reasoning_content: 'The tool ' },
    { reasoning_content: 'said sunny.' },
    { reasoning_content: '\n\nSo: sunny.' },
    { content: 'It is sunny.' },
    {
      tool_calls: [
        { index: 0, id: 'call_1', type: 'function', function: { name: 'weather', arguments: '' } },
      ],
    },
    { tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] },
    {
      tool_calls: [{ index: 1, id: 'call_2', type: 'function', function: { name: 'time', arguments: '{}' } }],
    },
    { tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] },
    {},
    expect.objectContaining({ prompt_tokens: 100, completion_tokens_details: { reasoning_tokens: 6 } }),
  ]);
  // The joined reasoning pieces are the answer's reasoning_content.
  const streamed = deltas
    .map((delta) => (delta as { reasoning_content?: string }).reasoning_content ?? '')
    .join('');
  expect(streamed).toBe('The tool said sunny.\n\nSo: sunny.');
});

test('an error mid-stream is an OpenAI error object carrying the routing metadata', () => {
  const renderer = openAISurface.streamRenderer({
    request: { messages: [] },
    stream: true,
    includeUsage: false,
  });
  const event = renderer.error(new GatewayError('cut', 'upstream', 'StreamInterrupted'), routing);
  expect(JSON.parse(event.replace(/^data: /, ''))).toEqual({
    error: {
      message: 'cut',
      type: 'upstream_error',
      param: null,
      code: 'StreamInterrupted',
      switchyard: { workflow_id: 'switchyard-call-gw-1', route: 'support', served_by: 'openai/deep' },
    },
  });
});

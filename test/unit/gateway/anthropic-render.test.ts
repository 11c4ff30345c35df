// The Anthropic surface's answers and streams: thinking first, cache-write usage, and reasoning that round-trips by origin.
import { anthropicSurface, parseAnthropicRequest } from '../../../src/gateway/anthropic-surface';
import type { Answer } from '../../../src/gateway/surface';

const identity = { id: 'msg_1', model: 'claude', created: 1 };
const routing = { workflowId: 'switchyard-call-gw-1', route: 'reverse', servedBy: 'anthropic/claude' };

const answer: Answer = {
  text: 'It is sunny.',
  toolCalls: [{ id: 'toolu_1', name: 'weather', arguments: '{"city":"Paris"}' }],
  reasoning: [
    { type: 'reasoning', text: 'Let me think.', signature: 'c2lnbmVk', origin: 'anthropic' },
    { type: 'reasoning', text: '', redactedData: 'b3BhcXVl', origin: 'anthropic' },
    { type: 'reasoning', text: 'Elsewhere.', origin: 'openai-compatible' },
  ],
  finishReason: { unified: 'tool_calls', raw: 'tool_use' },
  usage: {
    inputTokens: 10,
    cachedInputTokens: 100,
    cacheWriteInputTokens: 20,
    cacheWrite1hInputTokens: 30,
    outputTokens: 7,
    raw: {},
  },
  requestId: null,
};

interface Event {
  readonly name: string;
  readonly data: {
    readonly index?: number;
    readonly delta?: { readonly type: string; readonly signature?: string };
    readonly content_block?: { readonly type: string };
    readonly usage?: Record<string, unknown>;
  };
}

function events(text: string): Event[] {
  return text
    .split('\n\n')
    .filter(Boolean)
    .map((event) => {
      const [name, data] = event.split('\n');
      return { name: name!.replace('event: ', ''), data: JSON.parse(data!.replace('data: ', '')) };
    });
}

test('an answer: thinking blocks first, then text, then tool_use; usage splits cache reads and writes', () => {
  const body = anthropicSurface.answer(answer, identity, routing) as {
    content: unknown[];
    stop_reason: string;
    usage: unknown;
  };
  expect(body.content).toEqual([
    { type: 'thinking', thinking: 'Let me think.', signature: 'c2lnbmVk' },
    { type: 'redacted_thinking', data: 'b3BhcXVl' },
    {
      type: 'thinking',
      thinking: 'Elsewhere.',
      signature: expect.stringMatching(/^switchyard:openai-compatible:/),
    },
    { type: 'text', text: 'It is sunny.' },
    { type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Paris' } },
  ]);
  expect(body.stop_reason).toBe('tool_use');
  expect(body.usage).toEqual({
    input_tokens: 10,
    cache_read_input_tokens: 100,
    cache_creation_input_tokens: 50,
    cache_creation: { ephemeral_5m_input_tokens: 20, ephemeral_1h_input_tokens: 30 },
    output_tokens: 7,
  });
});

test("an answer's blocks sent back unchanged parse to the answer's parts: Anthropic's signed, others by origin only", () => {
  const body = anthropicSurface.answer(answer, identity, routing) as { content: unknown[] };
  const { request } = parseAnthropicRequest({
    messages: [
      { role: 'user', content: 'Weather?' },
      { role: 'assistant', content: body.content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' }] },
    ],
  });
  expect(request.messages[1]!.content).toEqual([
    ...answer.reasoning!.slice(0, 2),
    // Its made-up signature is gone: it is never sent to Anthropic as signed.
    { type: 'reasoning', text: 'Elsewhere.', origin: 'openai-compatible' },
    { type: 'text', text: 'It is sunny.' },
    { type: 'tool_call', id: 'toolu_1', name: 'weather', arguments: '{"city":"Paris"}' },
  ]);
});

test('a stream: a thinking block with thinking deltas and its signature last, a redacted block, text, tool_use', () => {
  const renderer = anthropicSurface.streamRenderer({
    request: { messages: [] },
    stream: true,
    includeUsage: true,
  });
  const streamed = events(
    renderer.start(identity) +
      renderer.delta({ type: 'reasoning', index: 0, text: 'Let me ' }) +
      renderer.delta({ type: 'reasoning', index: 0, text: 'think.' }) +
      renderer.delta({ type: 'reasoning', index: 0, text: '', signature: 'c2lnbmVk' }) +
      renderer.delta({ type: 'reasoning', index: 1, text: '', redactedData: 'b3BhcXVl' }) +
      renderer.delta({ type: 'text', text: 'It is ' }) +
      renderer.delta({ type: 'text', text: 'sunny.' }) +
      renderer.delta({ type: 'tool_call', index: 0, id: 'toolu_1', name: 'weather', arguments: '{"city"' }) +
      renderer.delta({ type: 'tool_call', index: 0, arguments: ':"Paris"}' }) +
      renderer.finish(answer, routing),
  );
  expect(
    streamed.map(({ name, data }) =>
      `${name} ${data.index ?? ''} ${data.delta?.type ?? data.content_block?.type ?? ''}`.trim(),
    ),
  ).toEqual([
    'message_start',
    'content_block_start 0 thinking',
    'content_block_delta 0 thinking_delta',
    'content_block_delta 0 thinking_delta',
    'content_block_delta 0 signature_delta',
    'content_block_stop 0',
    'content_block_start 1 redacted_thinking',
    'content_block_stop 1',
    'content_block_start 2 text',
    'content_block_delta 2 text_delta',
    'content_block_delta 2 text_delta',
    'content_block_stop 2',
    'content_block_start 3 tool_use',
    'content_block_delta 3 input_json_delta',
    'content_block_delta 3 input_json_delta',
    'content_block_stop 3',
    'message_delta',
    'message_stop',
  ]);
  expect(streamed[1]!.data.content_block).toEqual({ type: 'thinking', thinking: '', signature: '' });
  expect(streamed[2]!.data.delta).toEqual({ type: 'thinking_delta', thinking: 'Let me ' });
  expect(streamed[4]!.data.delta).toEqual({ type: 'signature_delta', signature: 'c2lnbmVk' });
  expect(streamed[6]!.data.content_block).toEqual({ type: 'redacted_thinking', data: 'b3BhcXVl' });
  expect(streamed[12]!.data.content_block).toEqual({
    type: 'tool_use',
    id: 'toolu_1',
    name: 'weather',
    input: {},
  });
  expect(streamed[16]!.data.usage).toMatchObject({ cache_creation_input_tokens: 50, input_tokens: 10 });
});

test('a streamed thinking block without a signature is marked foreign, and parses back unsigned', () => {
  const renderer = anthropicSurface.streamRenderer({
    request: { messages: [] },
    stream: true,
    includeUsage: true,
  });
  const streamed = events(
    renderer.start(identity) +
      renderer.delta({ type: 'reasoning', index: 0, text: 'hmm' }) +
      renderer.delta({ type: 'text', text: 'ok' }) +
      renderer.finish({ ...answer, toolCalls: [], reasoning: [] }, routing),
  );
  const signatureEvent = streamed.find((event) => event.data.delta?.type === 'signature_delta');
  const signature = signatureEvent?.data.delta?.signature ?? '';
  expect(signature).toMatch(/^switchyard:/);
  const { request } = parseAnthropicRequest({
    messages: [
      { role: 'user', content: 'x' },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'hmm', signature }] },
      { role: 'user', content: 'y' },
    ],
  });
  expect(request.messages[1]!.content).toEqual([{ type: 'reasoning', text: 'hmm' }]);
});

test("a streamed thinking block of another kind is marked with that kind, and parses back as that kind's", () => {
  const renderer = anthropicSurface.streamRenderer({
    request: { messages: [] },
    stream: true,
    includeUsage: true,
  });
  const streamed = events(
    renderer.start(identity) +
      renderer.delta({ type: 'reasoning', index: 0, origin: 'openai-compatible', text: 'hmm' }) +
      renderer.delta({ type: 'text', text: 'ok' }) +
      renderer.finish({ ...answer, toolCalls: [], reasoning: [] }, routing),
  );
  const signatureEvent = streamed.find((event) => event.data.delta?.type === 'signature_delta');
  const signature = signatureEvent?.data.delta?.signature ?? '';
  expect(signature).toMatch(/^switchyard:openai-compatible:/);
  const { request } = parseAnthropicRequest({
    messages: [
      { role: 'user', content: 'x' },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'hmm', signature }] },
      { role: 'user', content: 'y' },
    ],
  });
  expect(request.messages[1]!.content).toEqual([
    { type: 'reasoning', text: 'hmm', origin: 'openai-compatible' },
  ]);
});

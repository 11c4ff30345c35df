// The Anthropic surface's requests made neutral: a whole tool loop, media, thinking, cache breakpoints, options, refusals.
import { GenerationRequestSchema } from '../../../src/config/request';
import { ANTHROPIC_IGNORED_FIELDS, parseAnthropicRequest } from '../../../src/gateway/anthropic-surface';
import { GatewayError } from '../../../src/gateway/gateway-error';

function refusal(body: unknown): GatewayError {
  try {
    parseAnthropicRequest(body);
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected the request to be refused');
}

/** The parsed request, checked to be a valid neutral request too. */
function neutral(body: Record<string, unknown>) {
  const { request } = parseAnthropicRequest(body);
  const checked = GenerationRequestSchema.safeParse(request);
  if (!checked.success) throw new Error(`not a valid neutral request: ${checked.error.message}`);
  return request;
}

const png = 'iVBORw0KGgo=';
const pdf = 'JVBERi0xLjQK';

describe('a tool loop', () => {
  test('tool results leave the user message as a tool message first; thinking and tool_use become parts', () => {
    const request = neutral({
      max_tokens: 4096,
      thinking: { type: 'enabled', budget_tokens: 2048 },
      messages: [
        { role: 'user', content: 'What is the weather in Paris?' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'I should look it up.', signature: 'c2lnbmVk' },
            { type: 'redacted_thinking', data: 'b3BhcXVl' },
            { type: 'text', text: 'Looking.', citations: null },
            { type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Paris' } },
            { type: 'tool_use', id: 'toolu_2', name: 'camera', input: {}, caller: { type: 'direct' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: '18°C' },
            {
              type: 'tool_result',
              tool_use_id: 'toolu_2',
              is_error: false,
              content: [
                { type: 'text', text: 'a photo' },
                { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
              ],
              cache_control: { type: 'ephemeral' },
            },
            { type: 'text', text: 'And tomorrow?' },
          ],
        },
        { role: 'assistant', content: 'Sunny.' },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_9' }] },
      ],
    });
    expect(request.reasoning).toEqual({ budgetTokens: 2048 });
    expect(request.messages).toEqual([
      { role: 'user', content: 'What is the weather in Paris?' },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'I should look it up.', signature: 'c2lnbmVk', origin: 'anthropic' },
          { type: 'reasoning', text: '', redactedData: 'b3BhcXVl', origin: 'anthropic' },
          { type: 'text', text: 'Looking.' },
          { type: 'tool_call', id: 'toolu_1', name: 'weather', arguments: '{"city":"Paris"}' },
          { type: 'tool_call', id: 'toolu_2', name: 'camera', arguments: '{}' },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool_result', callId: 'toolu_1', name: 'weather', content: '18°C' },
          {
            type: 'tool_result',
            callId: 'toolu_2',
            name: 'camera',
            isError: false,
            content: [
              { type: 'text', text: 'a photo' },
              { type: 'image', data: png, mediaType: 'image/png' },
            ],
            cache: {},
          },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'And tomorrow?' }] },
      { role: 'assistant', content: 'Sunny.' },
      // Only tool results: no user message follows; a result without content is empty text.
      { role: 'tool', content: [{ type: 'tool_result', callId: 'toolu_9', content: '' }] },
    ]);
  });

  test('a thinking block the gateway marked as foreign comes back as that kind, unsigned', () => {
    const request = neutral({
      messages: [
        { role: 'user', content: 'x' },
        {
          role: 'assistant',
          content: [
            {
              type: 'thinking',
              thinking: 'deep',
              signature: 'switchyard:openai-compatible:bm90LXNpZ25lZA==',
            },
            { type: 'thinking', thinking: 'whose?', signature: 'switchyard:none:bm90LXNpZ25lZA==' },
            { type: 'text', text: 'y' },
          ],
        },
        { role: 'user', content: 'z' },
      ],
    });
    expect(request.messages[1]!.content).toEqual([
      { type: 'reasoning', text: 'deep', origin: 'openai-compatible' },
      { type: 'reasoning', text: 'whose?' },
      { type: 'text', text: 'y' },
    ]);
  });
});

test('media, documents and cache breakpoints on system, blocks and tools', () => {
  const request = neutral({
    system: [
      { type: 'text', text: 'You are a coding agent.', cache_control: { type: 'ephemeral', ttl: '1h' } },
      { type: 'text', text: 'Today is Monday.' },
    ],
    tools: [
      {
        name: 'read_file',
        description: 'Reads a file',
        input_schema: { type: 'object', properties: { path: { type: 'string' } } },
        cache_control: { type: 'ephemeral' },
      },
      { type: 'custom', name: 'write_file', input_schema: { type: 'object' }, strict: true },
    ],
    messages: [
      {
        role: 'user',
        content: [
          { type: 'image', source: { type: 'url', url: 'https://example.com/cat.png' } },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
          {
            type: 'document',
            source: { type: 'base64', media_type: 'application/pdf', data: pdf },
            title: 'spec.pdf',
            cache_control: { type: 'ephemeral', ttl: '5m' },
          },
          { type: 'text', text: 'Compare them.', cache_control: { type: 'ephemeral' } },
        ],
      },
    ],
  });
  expect(request.system).toEqual([
    { type: 'text', text: 'You are a coding agent.', cache: { ttl: '1h' } },
    { type: 'text', text: 'Today is Monday.' },
  ]);
  expect(request.tools).toEqual([
    {
      name: 'read_file',
      description: 'Reads a file',
      parameters: { type: 'object', properties: { path: { type: 'string' } } },
      cache: {},
    },
    { name: 'write_file', parameters: { type: 'object' }, strict: true },
  ]);
  expect(request.messages[0]!.content).toEqual([
    { type: 'image', url: 'https://example.com/cat.png' },
    { type: 'image', data: png, mediaType: 'image/png' },
    { type: 'document', data: pdf, mediaType: 'application/pdf', title: 'spec.pdf', cache: { ttl: '5m' } },
    { type: 'text', text: 'Compare them.', cache: {} },
  ]);
});

test('options: sampling, stop sequences, tool choice, thinking, structured output; the ignored fields', () => {
  const base = { messages: [{ role: 'user', content: 'x' }] };
  expect(
    neutral({
      ...base,
      temperature: 0.2,
      top_p: 0.9,
      top_k: 40,
      stop_sequences: ['END', '###'],
      tools: [{ name: 'lookup', input_schema: { type: 'object' } }],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
      thinking: { type: 'disabled' },
      output_config: { format: { type: 'json_schema', schema: { type: 'object' } } },
      metadata: { user_id: 'user-1' },
      service_tier: 'standard_only',
    }),
  ).toEqual({
    messages: [{ role: 'user', content: 'x' }],
    temperature: 0.2,
    topP: 0.9,
    topK: 40,
    stopSequences: ['END', '###'],
    jsonSchema: { type: 'object' },
    tools: [{ name: 'lookup', parameters: { type: 'object' } }],
    toolChoice: 'required',
    parallelToolCalls: false,
  });
  const lookup = [{ name: 'lookup', input_schema: { type: 'object' } }];
  expect(
    neutral({ ...base, tools: lookup, tool_choice: { type: 'tool', name: 'lookup' } }).toolChoice,
  ).toEqual({
    type: 'tool',
    name: 'lookup',
  });
  expect(neutral({ ...base, tool_choice: { type: 'none' } })).toMatchObject({ toolChoice: 'none' });
  const auto = neutral({ ...base, tool_choice: { type: 'auto' } });
  expect(auto.toolChoice).toBe('auto');
  expect(auto.parallelToolCalls).toBeUndefined();
  // With thinking on, temperature 1 is Anthropic's only value and its default: nothing to pass on.
  const thinking = neutral({ ...base, temperature: 1, thinking: { type: 'enabled', budget_tokens: 1024 } });
  expect(thinking.temperature).toBeUndefined();
  expect(thinking.reasoning).toEqual({ budgetTokens: 1024 });
  expect(Object.keys(ANTHROPIC_IGNORED_FIELDS).sort()).toEqual(['metadata', 'service_tier']);
  expect(parseAnthropicRequest({ ...base, stream: true })).toMatchObject({
    stream: true,
    includeUsage: true,
  });
});

const user = (content: unknown) => ({ messages: [{ role: 'user', content }] });
const assistant = (content: unknown) => ({
  messages: [
    { role: 'user', content: 'x' },
    { role: 'assistant', content },
  ],
});

test.each([
  // Top level: anything unhandled is named, ignored fields are still checked.
  [{ ...user('x'), context_management: {} }, 'context_management'],
  [{ ...user('x'), cache_control: { type: 'ephemeral' } }, 'cache_control'],
  [{ ...user('x'), mcp_servers: [] }, 'mcp_servers'],
  [{ ...user('x'), metadata: { user_id: 'u', tags: [] } }, 'metadata.tags'],
  [{ ...user('x'), service_tier: 'priority' }, 'service_tier'],
  [{ ...user('x'), temperature: 1.5 }, 'temperature'],
  [{ ...user('x'), top_k: 0 }, 'top_k'],
  [{ ...user('x'), output_config: { effort: 'high' } }, 'output_config.effort'],
  // Thinking.
  [{ ...user('x'), thinking: { type: 'adaptive' } }, 'thinking.type'],
  [{ ...user('x'), thinking: { type: 'enabled', budget_tokens: 512 } }, 'thinking.budget_tokens'],
  [
    { ...user('x'), max_tokens: 2000, thinking: { type: 'enabled', budget_tokens: 2000 } },
    'thinking.budget_tokens',
  ],
  [{ ...user('x'), temperature: 0.5, thinking: { type: 'enabled', budget_tokens: 1024 } }, 'temperature'],
  // Tools.
  [{ ...user('x'), tools: [{ type: 'web_search_20250305', name: 'web_search' }] }, 'tools.0.type'],
  [{ ...user('x'), tools: [{ type: 'bash_20250124', name: 'bash' }] }, 'tools.0.type'],
  [{ ...user('x'), tools: [{ name: 'a b', input_schema: {} }] }, 'tools.0.name'],
  [{ ...user('x'), tools: [{ name: 'a', input_schema: {}, defer_loading: true }] }, 'tools.0.defer_loading'],
  [{ ...user('x'), tool_choice: { type: 'sometimes' } }, 'tool_choice.type'],
  [{ ...user('x'), tool_choice: { type: 'tool' } }, 'tool_choice.name'],
  [{ ...user('x'), tool_choice: { type: 'any' } }, 'tool_choice'],
  [
    { ...user('x'), tools: [{ name: 'a', input_schema: {} }], tool_choice: { type: 'tool', name: 'b' } },
    'tool_choice.name',
  ],
  // User content.
  [user([]), 'messages.0.content'],
  [user(''), 'messages.0.content'],
  [user([{ type: 'search_result' }]), 'messages.0.content.0.type'],
  [user([{ type: 'image', source: { type: 'file', file_id: 'f' } }]), 'messages.0.content.0.source.type'],
  [
    user([{ type: 'image', source: { type: 'base64', media_type: 'image/bmp', data: png } }]),
    'messages.0.content.0.source.media_type',
  ],
  [
    user([{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'data:x' } }]),
    'messages.0.content.0.source.data',
  ],
  [
    user([{ type: 'image', source: { type: 'url', url: 'ftp://x/y.png' } }]),
    'messages.0.content.0.source.url',
  ],
  [
    user([{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'hi' } }]),
    'messages.0.content.0.source.type',
  ],
  [
    user([{ type: 'document', source: { type: 'content', content: [] } }]),
    'messages.0.content.0.source.type',
  ],
  [
    user([
      {
        type: 'document',
        source: { type: 'base64', media_type: 'application/pdf', data: pdf },
        citations: { enabled: true },
      },
    ]),
    'messages.0.content.0.citations',
  ],
  [
    user([{ type: 'text', text: 'x', cache_control: { type: 'persistent' } }]),
    'messages.0.content.0.cache_control.type',
  ],
  [
    user([{ type: 'text', text: 'x', cache_control: { type: 'ephemeral', ttl: '1d' } }]),
    'messages.0.content.0.cache_control.ttl',
  ],
  [
    user([{ type: 'tool_result', tool_use_id: 't', content: [{ type: 'document', source: {} }] }]),
    'messages.0.content.0.content.0.type',
  ],
  [user([{ type: 'tool_result', content: 'x' }]), 'messages.0.content.0.tool_use_id'],
  // Assistant content.
  [
    assistant([{ type: 'server_tool_use', id: 's', name: 'web_search', input: {} }]),
    'messages.1.content.0.type',
  ],
  [assistant([{ type: 'tool_use', id: 't', name: 'n', input: 'text' }]), 'messages.1.content.0.input'],
  [assistant([{ type: 'thinking', thinking: 'x' }]), 'messages.1.content.0.signature'],
  [
    assistant([{ type: 'thinking', thinking: 'x', signature: 'switchyard:anthropic:AA==' }]),
    'messages.1.content.0.signature',
  ],
  [
    assistant([{ type: 'thinking', thinking: 'x', signature: 'switchyard:gemini:AA==' }]),
    'messages.1.content.0.signature',
  ],
  [
    assistant([{ type: 'thinking', thinking: 'x', signature: 's', cache_control: { type: 'ephemeral' } }]),
    'messages.1.content.0.cache_control',
  ],
  [
    assistant([{ type: 'text', text: 'x', citations: [{ type: 'char_location' }] }]),
    'messages.1.content.0.citations',
  ],
  // System.
  [{ ...user('x'), system: [{ type: 'image', source: {} }] }, 'system.0.type'],
  [{ ...user('x'), system: [{ type: 'text' }] }, 'system.0.text'],
])('%j is refused naming %s', (body, param) => {
  const error = refusal(body);
  expect(error.status).toBe(400);
  expect(error.context.param).toBe(param);
  expect(error.message.startsWith(`${param}: `)).toBe(true);
});

test('a body that is not an object is refused', () => {
  expect(refusal([]).status).toBe(400);
  expect(refusal('x').status).toBe(400);
});

// The OpenAI surface's parser: whole conversations made neutral, options mapped, ignored fields listed, the rest refused by name.
import { GenerationRequestSchema } from '../../../src/config/request';
import { GatewayError } from '../../../src/gateway/gateway-error';
import { OPENAI_IGNORED_FIELDS, parseOpenAIRequest } from '../../../src/gateway/openai-surface';

function refusal(body: unknown): GatewayError {
  try {
    parseOpenAIRequest(body);
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected the request to be refused');
}

const PNG = 'iVBORw0KGgo=';
const PDF = 'JVBERi0xLjQ=';
const user = { role: 'user', content: 'What is the weather in Paris?' };

test('a tool loop: assistant tool calls become tool_call parts, consecutive tool messages one tool message', () => {
  const parsed = parseOpenAIRequest({
    model: 'support',
    messages: [
      { role: 'system', content: 'Use the tools.' },
      user,
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
          { id: 'call_b', type: 'function', function: { name: 'time', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: 'sunny, 21C' },
      { role: 'tool', tool_call_id: 'call_b', content: [{ type: 'text', text: '14:00' }] },
      { role: 'assistant', content: 'It is sunny.', refusal: null, reasoning_content: 'thought about it' },
      { role: 'user', content: 'Thanks' },
    ],
  });
  expect(parsed.request.system).toBe('Use the tools.');
  expect(parsed.request.messages).toEqual([
    user,
    {
      role: 'assistant',
      content: [
        { type: 'tool_call', id: 'call_a', name: 'weather', arguments: '{"city":"Paris"}' },
        { type: 'tool_call', id: 'call_b', name: 'time', arguments: '{}' },
      ],
    },
    {
      role: 'tool',
      content: [
        { type: 'tool_result', callId: 'call_a', name: 'weather', content: 'sunny, 21C' },
        { type: 'tool_result', callId: 'call_b', name: 'time', content: [{ type: 'text', text: '14:00' }] },
      ],
    },
    // reasoning_content is dropped: it is a known no-op.
    { role: 'assistant', content: 'It is sunny.' },
    { role: 'user', content: 'Thanks' },
  ]);
  expect(GenerationRequestSchema.safeParse(parsed.request).success).toBe(true);
  expect(Object.keys(OPENAI_IGNORED_FIELDS)).toContain('messages.*.reasoning_content');
});

test('an assistant turn with text and tool calls keeps both in order; a refusal it made is what it said', () => {
  const parsed = parseOpenAIRequest({
    messages: [
      user,
      {
        role: 'assistant',
        content: [{ type: 'text', text: 'Let me look.' }],
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'weather', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: '' },
      { role: 'assistant', content: null, refusal: 'I cannot help with that.' },
      { role: 'user', content: 'ok' },
    ],
  });
  expect(parsed.request.messages[1]).toEqual({
    role: 'assistant',
    content: [
      { type: 'text', text: 'Let me look.' },
      { type: 'tool_call', id: 'c1', name: 'weather', arguments: '{}' },
    ],
  });
  expect(parsed.request.messages[3]).toEqual({
    role: 'assistant',
    content: [{ type: 'text', text: 'I cannot help with that.' }],
  });
  expect(GenerationRequestSchema.safeParse(parsed.request).success).toBe(true);
});

test('user images by URL and data URL, and a PDF file, become image and document parts', () => {
  const parsed = parseOpenAIRequest({
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Compare these.' },
          { type: 'image_url', image_url: { url: 'https://example.com/a.png', detail: 'low' } },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
          { type: 'file', file: { file_data: `data:application/pdf;base64,${PDF}`, filename: 'spec.pdf' } },
        ],
      },
    ],
  });
  expect(parsed.request.messages[0]!.content).toEqual([
    { type: 'text', text: 'Compare these.' },
    { type: 'image', url: 'https://example.com/a.png', detail: 'low' },
    { type: 'image', data: PNG, mediaType: 'image/png' },
    { type: 'document', data: PDF, mediaType: 'application/pdf', title: 'spec.pdf' },
  ]);
  expect(GenerationRequestSchema.safeParse(parsed.request).success).toBe(true);
});

test('options map: stop, top_p, seed, tools with strict, tool choice, parallel tool calls, reasoning effort', () => {
  const parsed = parseOpenAIRequest({
    messages: [user],
    stop: 'END',
    top_p: 0.9,
    seed: 7,
    max_tokens: 50,
    tools: [
      {
        type: 'function',
        function: {
          name: 'weather',
          description: 'Weather by city',
          parameters: { type: 'object' },
          strict: true,
        },
      },
    ],
    tool_choice: { type: 'function', function: { name: 'weather' } },
    parallel_tool_calls: false,
    reasoning_effort: 'low',
    response_format: { type: 'json_object' },
  });
  expect(parsed.request).toMatchObject({
    stopSequences: ['END'],
    topP: 0.9,
    seed: 7,
    maxOutputTokens: 50,
    tools: [
      { name: 'weather', description: 'Weather by city', parameters: { type: 'object' }, strict: true },
    ],
    toolChoice: { type: 'tool', name: 'weather' },
    parallelToolCalls: false,
    reasoning: { effort: 'low' },
    jsonSchema: { type: 'object' },
  });
  expect(
    parseOpenAIRequest({ messages: [user], stop: ['a', 'b'], tool_choice: 'none' }).request,
  ).toMatchObject({
    stopSequences: ['a', 'b'],
    toolChoice: 'none',
  });
  expect(GenerationRequestSchema.safeParse(parsed.request).success).toBe(true);
});

test('ignored fields are accepted with values that change nothing, and nulls everywhere mean "not set"', () => {
  const parsed = parseOpenAIRequest({
    messages: [user],
    user: 'u-1',
    safety_identifier: 's-1',
    metadata: { team: 'a' },
    store: false,
    service_tier: 'auto',
    logprobs: false,
    frequency_penalty: 0,
    presence_penalty: 0,
    modalities: ['text'],
    stream: true,
    stream_options: { include_usage: true, include_obfuscation: false },
    temperature: null,
    top_p: null,
    logit_bias: null,
    audio: null,
  });
  expect(parsed).toEqual({ stream: true, includeUsage: true, request: { messages: [user] } });
});

test.each([
  // Roles and messages.
  [{ messages: [{ role: 'function', name: 'f', content: 'r' }] }, 'messages.0.role'],
  [{ messages: [{ role: 'critic', content: 'r' }] }, 'messages.0.role'],
  [{ messages: [{ role: 'system', content: 'x' }] }, 'messages'],
  [{ messages: [{ role: 'user', content: 'x', name: 'ann' }] }, 'messages.0.name'],
  [{ messages: [{ role: 'user', content: '' }] }, 'messages.0.content'],
  [
    {
      messages: [
        { role: 'system', content: [{ type: 'image_url', image_url: { url: 'https://a/b' } }] },
        user,
      ],
    },
    'messages.0.content.0.type',
  ],
  // User parts.
  [
    { messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: {} }] }] },
    'messages.0.content.0.type',
  ],
  [
    { messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }, { type: 'video' }] }] },
    'messages.0.content.1.type',
  ],
  [
    { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'ftp://a/b' } }] }] },
    'messages.0.content.0.image_url.url',
  ],
  [
    {
      messages: [
        { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/tiff;base64,AAAA' } }] },
      ],
    },
    'messages.0.content.0.image_url.url',
  ],
  [
    { messages: [{ role: 'user', content: [{ type: 'file', file: { file_id: 'file-1' } }] }] },
    'messages.0.content.0.file.file_id',
  ],
  [
    {
      messages: [
        { role: 'user', content: [{ type: 'file', file: { file_data: 'data:text/plain;base64,AAAA' } }] },
      ],
    },
    'messages.0.content.0.file.file_data',
  ],
  [
    { messages: [{ role: 'user', content: [{ type: 'text', text: 'x', cache_control: {} }] }] },
    'messages.0.content.0.cache_control',
  ],
  // Assistant and tool messages.
  [{ messages: [user, { role: 'assistant', content: 'x', audio: { id: 'a' } }] }, 'messages.1.audio'],
  [
    { messages: [user, { role: 'assistant', content: 'x', function_call: { name: 'f', arguments: '{}' } }] },
    'messages.1.function_call',
  ],
  [
    {
      messages: [
        user,
        { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'custom', custom: {} }] },
      ],
    },
    'messages.1.tool_calls.0.type',
  ],
  [
    {
      messages: [
        user,
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ type: 'function', function: { name: 'f', arguments: '{}' } }],
        },
      ],
    },
    'messages.1.tool_calls.0.id',
  ],
  [{ messages: [user, { role: 'tool', content: 'r' }] }, 'messages.1.tool_call_id'],
  [
    {
      messages: [
        user,
        {
          role: 'tool',
          tool_call_id: 'c',
          content: [{ type: 'image_url', image_url: { url: 'https://a/b' } }],
        },
      ],
    },
    'messages.1.content.0.type',
  ],
  // Options.
  [{ messages: [user], n: 2 }, 'n'],
  [{ messages: [user], stop: '' }, 'stop'],
  [{ messages: [user], tool_choice: 'required' }, 'tool_choice'],
  [{ messages: [user], tool_choice: 'sometimes' }, 'tool_choice'],
  [
    {
      messages: [user],
      tools: [{ type: 'function', function: { name: 'a', parameters: {} } }],
      tool_choice: { type: 'function', function: { name: 'b' } },
    },
    'tool_choice.function.name',
  ],
  [
    {
      messages: [user],
      tools: [{ type: 'function', function: { name: 'a' } }],
      tool_choice: { type: 'allowed_tools', allowed_tools: {} },
    },
    'tool_choice.type',
  ],
  [{ messages: [user], tools: [{ type: 'custom', custom: { name: 'a' } }] }, 'tools.0.type'],
  [
    { messages: [user], tools: [{ type: 'function', function: { name: 'a', extra: 1 } }] },
    'tools.0.function.extra',
  ],
  [{ messages: [user], reasoning_effort: 'xhigh' }, 'reasoning_effort'],
  [{ messages: [user], temperature: 3 }, 'temperature'],
  [
    { messages: [user], response_format: { type: 'json_schema', json_schema: { name: 'x' } } },
    'response_format.json_schema.schema',
  ],
  // Ignored fields with values that would matter, refused fields, unknown fields.
  [{ messages: [user], service_tier: 'priority' }, 'service_tier'],
  [{ messages: [user], logprobs: true }, 'logprobs'],
  [{ messages: [user], frequency_penalty: 0.5 }, 'frequency_penalty'],
  [{ messages: [user], presence_penalty: -1 }, 'presence_penalty'],
  [{ messages: [user], modalities: ['text', 'audio'] }, 'modalities'],
  [{ messages: [user], stream_options: { include_usage: true, chunking: 'x' } }, 'stream_options.chunking'],
  [{ messages: [user], audio: { voice: 'alloy', format: 'mp3' } }, 'audio'],
  [{ messages: [user], prediction: { type: 'content', content: 'x' } }, 'prediction'],
  [{ messages: [user], web_search_options: {} }, 'web_search_options'],
  [{ messages: [user], logit_bias: { '50256': -100 } }, 'logit_bias'],
  [{ messages: [user], top_logprobs: 2 }, 'top_logprobs'],
  [{ messages: [user], functions: [] }, 'functions'],
  [{ messages: [user], top_k: 5 }, 'top_k'],
])('%j is refused naming %s', (body, param) => {
  const error = refusal(body);
  expect(error.status).toBe(400);
  expect(error.context.param).toBe(param);
  expect(error.message.startsWith(`${param}: `)).toBe(true);
});

test('a refused field says why', () => {
  expect(refusal({ messages: [user], service_tier: 'flex' }).message).toMatch(/price/);
  expect(refusal({ messages: [{ role: 'function', content: 'x' }] }).message).toMatch(/"tool" messages/);
  expect(refusal({ messages: [user], frequency_penalty: 1 }).message).toMatch(/only 0/);
});

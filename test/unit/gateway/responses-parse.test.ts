// The Responses surface's parser: input items made neutral, every option mapped, ignored fields listed, the rest refused by name.
import { GenerationRequestSchema } from '../../../src/config/request';
import { GatewayError } from '../../../src/gateway/gateway-error';
import { RESPONSES_LABELS } from '../../../src/gateway/responses-echo';
import { RESPONSES_IGNORED_FIELDS, parseResponsesRequest } from '../../../src/gateway/responses-surface';

function refusal(body: unknown): GatewayError {
  try {
    parseResponsesRequest(body);
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected the request to be refused');
}

const PNG = 'iVBORw0KGgo=';
const PDF = 'JVBERi0xLjQ=';
const weather = {
  type: 'function',
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: true,
};
/** A marker the gateway writes for Anthropic thinking: `{"signature":"sig-a"}` in base64url. */
const anthropicMarker = `switchyard:anthropic:${Buffer.from('{"signature":"sig-a"}').toString('base64url')}`;

test('a string input with every option: the neutral request, and labels for what the answer echoes', () => {
  const parsed = parseResponsesRequest({
    model: 'support',
    input: 'What is the weather in Paris?',
    instructions: 'Be brief.',
    tools: [weather, { type: 'function', name: 'noop', parameters: null, strict: null }],
    tool_choice: { type: 'function', name: 'get_weather' },
    parallel_tool_calls: false,
    text: { format: { type: 'json_schema', name: 'forecast', schema: { type: 'object' }, strict: true } },
    max_output_tokens: 300,
    reasoning: { effort: 'low', summary: 'auto' },
    temperature: 0.5,
    top_p: 0.9,
    metadata: { team: 'search', ticket: '42' },
    include: ['reasoning.encrypted_content'],
    store: false,
    stream: true,
    previous_response_id: 'resp_sabc',
    // Ignored, each with its reason in RESPONSES_IGNORED_FIELDS.
    user: 'u-1',
    safety_identifier: 'hash',
    prompt_cache_key: 'k',
    service_tier: 'auto',
    truncation: 'disabled',
    background: false,
    top_logprobs: 0,
    stream_options: { include_obfuscation: false },
    conversation: null,
  });
  expect(parsed).toEqual({
    route: 'support',
    stream: true,
    includeUsage: true,
    previousResponseId: 'resp_sabc',
    store: false,
    encryptedReasoning: true,
    labels: {
      [RESPONSES_LABELS.previousResponseId]: 'resp_sabc',
      [RESPONSES_LABELS.metadata]: '{"team":"search","ticket":"42"}',
      [RESPONSES_LABELS.textFormat]: '{"type":"json_schema","name":"forecast","strict":true}',
      [RESPONSES_LABELS.reasoningSummary]: 'auto',
    },
    request: {
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'What is the weather in Paris?' }],
      maxOutputTokens: 300,
      temperature: 0.5,
      topP: 0.9,
      jsonSchema: { type: 'object' },
      tools: [
        {
          name: 'get_weather',
          description: 'The weather in a city',
          parameters: weather.parameters,
          strict: true,
        },
        // No schema is "no arguments"; no strict leaves it to the target.
        { name: 'noop', parameters: { type: 'object', properties: {} } },
      ],
      toolChoice: { type: 'tool', name: 'get_weather' },
      parallelToolCalls: false,
      reasoning: { effort: 'low' },
    },
  });
  expect(GenerationRequestSchema.safeParse(parsed.request).success).toBe(true);
  const plain = parseResponsesRequest({ input: 'hi' });
  expect(plain).toEqual({
    request: { messages: [{ role: 'user', content: 'hi' }] },
    stream: false,
    includeUsage: true,
    store: true,
    encryptedReasoning: false,
    labels: {},
  });
});

test('a stateless tool loop sent whole: items the model made join one assistant message, outputs one tool message', () => {
  const parsed = parseResponsesRequest({
    model: 'support',
    input: [
      { role: 'developer', content: 'Use the tools.' },
      { role: 'user', content: [{ type: 'input_text', text: 'Weather in Paris and Lyon?' }] },
      {
        type: 'reasoning',
        id: 'rs_up1',
        summary: [
          { type: 'summary_text', text: 'Two cities.' },
          { type: 'summary_text', text: 'Look both up.' },
        ],
        encrypted_content: 'gAAAAopaque',
      },
      {
        type: 'message',
        id: 'msg_1',
        role: 'assistant',
        status: 'completed',
        // As the SDKs' stream helpers return it: with their parse of the text.
        content: [{ type: 'output_text', text: 'Looking.', annotations: [], logprobs: [], parsed: null }],
      },
      {
        type: 'function_call',
        id: 'fc_1',
        call_id: 'call_a',
        name: 'get_weather',
        arguments: '{"city":"Paris"}',
        status: 'completed',
      },
      {
        type: 'function_call',
        call_id: 'call_b',
        name: 'get_weather',
        arguments: '{"city":"Lyon"}',
        parsed_arguments: null,
      },
      { type: 'function_call_output', call_id: 'call_a', output: 'sunny' },
      {
        type: 'function_call_output',
        call_id: 'call_b',
        output: [
          { type: 'input_text', text: 'rain' },
          { type: 'input_image', image_url: `data:image/png;base64,${PNG}`, detail: 'low' },
        ],
      },
      {
        type: 'reasoning',
        id: 'rs_ours',
        summary: [{ type: 'summary_text', text: 'Hmm.' }],
        encrypted_content: anthropicMarker,
      },
      { role: 'assistant', content: 'Paris is sunny.' },
      { role: 'system', content: [{ type: 'input_text', text: 'Answer in English.' }] },
      {
        role: 'user',
        content: [
          { type: 'input_image', image_url: 'https://example.com/cat.png', detail: 'auto' },
          { type: 'input_file', filename: 'report.pdf', file_data: `data:application/pdf;base64,${PDF}` },
        ],
      },
    ],
    instructions: 'Be brief.',
  });
  expect(parsed.request.system).toEqual([
    { type: 'text', text: 'Be brief.' },
    { type: 'text', text: 'Use the tools.' },
    { type: 'text', text: 'Answer in English.' },
  ]);
  expect(parsed.request.messages).toEqual([
    { role: 'user', content: [{ type: 'text', text: 'Weather in Paris and Lyon?' }] },
    {
      role: 'assistant',
      content: [
        // OpenAI's own reasoning: its encrypted content and its item id, which OpenAI wants back.
        {
          type: 'reasoning',
          text: 'Two cities.\n\nLook both up.',
          signature: 'gAAAAopaque',
          id: 'rs_up1',
          origin: 'openai-responses',
        },
        { type: 'text', text: 'Looking.' },
        { type: 'tool_call', id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'tool_call', id: 'call_b', name: 'get_weather', arguments: '{"city":"Lyon"}' },
      ],
    },
    {
      role: 'tool',
      content: [
        { type: 'tool_result', callId: 'call_a', name: 'get_weather', content: 'sunny' },
        {
          type: 'tool_result',
          callId: 'call_b',
          name: 'get_weather',
          content: [
            { type: 'text', text: 'rain' },
            { type: 'image', data: PNG, mediaType: 'image/png', detail: 'low' },
          ],
        },
      ],
    },
    {
      role: 'assistant',
      content: [
        // The gateway's marker: Anthropic's thinking again, its signature intact, no id of ours.
        { type: 'reasoning', text: 'Hmm.', signature: 'sig-a', origin: 'anthropic' },
        { type: 'text', text: 'Paris is sunny.' },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'image', url: 'https://example.com/cat.png', detail: 'auto' },
        { type: 'document', data: PDF, mediaType: 'application/pdf', title: 'report.pdf' },
      ],
    },
  ]);
  expect(GenerationRequestSchema.safeParse(parsed.request).success).toBe(true);
});

test('reasoning sent back without encrypted content, or marked as no origin, goes to no provider', () => {
  const marker = `switchyard:none:${Buffer.from('{}').toString('base64url')}`;
  const parsed = parseResponsesRequest({
    input: [
      { role: 'user', content: 'hi' },
      { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: null },
      {
        type: 'reasoning',
        id: 'rs_2',
        summary: [{ type: 'summary_text', text: 'x' }],
        encrypted_content: marker,
      },
      { role: 'assistant', content: [{ type: 'refusal', refusal: 'I cannot.' }] },
      { role: 'user', content: 'ok' },
    ],
  });
  expect(parsed.request.messages[1]).toEqual({
    role: 'assistant',
    content: [
      { type: 'reasoning', text: '' },
      { type: 'reasoning', text: 'x' },
      { type: 'text', text: 'I cannot.' },
    ],
  });
});

test('with previous_response_id the input may add tool outputs only (the conversation comes from that response)', () => {
  const parsed = parseResponsesRequest({
    previous_response_id: 'resp_sx',
    input: [{ type: 'function_call_output', call_id: 'call_a', output: '{"ok":true}' }],
  });
  expect(parsed.previousResponseId).toBe('resp_sx');
  expect(parsed.request.messages).toEqual([
    { role: 'tool', content: [{ type: 'tool_result', callId: 'call_a', content: '{"ok":true}' }] },
  ]);
  expect(parseResponsesRequest({ previous_response_id: 'resp_sx' }).request.messages).toEqual([]);
});

test('json_object is any JSON object, as on Chat Completions; a text format asks for nothing', () => {
  const json = parseResponsesRequest({
    input: 'x',
    text: { format: { type: 'json_object' }, verbosity: 'medium' },
  });
  expect(json.request.jsonSchema).toEqual({ type: 'object' });
  expect(json.labels).toEqual({ [RESPONSES_LABELS.textFormat]: '{"type":"json_object"}' });
  expect(
    parseResponsesRequest({ input: 'x', text: { format: { type: 'text' } } }).request.jsonSchema,
  ).toBeUndefined();
});

const ok = { input: 'x' };
/** Each bad request, the field its refusal names, and words of its reason. */
const refusals: [unknown, string, string][] = [
  [
    { ...ok, tools: [weather, { type: 'web_search_preview' }] },
    'tools.1.type',
    'web_search_preview is a built-in tool Switchyard does not run',
  ],
  [{ ...ok, tools: [{ type: 'file_search', vector_store_ids: ['vs'] }] }, 'tools.0.type', 'built-in tool'],
  [{ ...ok, tools: [{ type: 'computer_use_preview' }] }, 'tools.0.type', 'built-in tool'],
  [{ ...ok, tools: [{ type: 'code_interpreter' }] }, 'tools.0.type', 'built-in tool'],
  [{ ...ok, tools: [{ type: 'image_generation' }] }, 'tools.0.type', 'built-in tool'],
  [{ ...ok, tools: [{ type: 'mcp', server_label: 'x' }] }, 'tools.0.type', 'built-in tool'],
  [{ ...ok, tools: [{ type: 'local_shell' }] }, 'tools.0.type', 'built-in tool'],
  [{ ...ok, tools: [{ type: 'custom', name: 'x' }] }, 'tools.0.type', 'define function tools'],
  [{ ...ok, tools: [{ ...weather, defer_loading: true }] }, 'tools.0.defer_loading', 'tool search'],
  [{ ...ok, tools: [{ ...weather, output_schema: {} }] }, 'tools.0.output_schema', 'not supported'],
  [{ ...ok, tools: [{ ...weather, name: 'bad name' }] }, 'tools.0.name', 'tool names'],
  [{ ...ok, tool_choice: 'required' }, 'tool_choice', 'no tools'],
  [
    { ...ok, tools: [weather], tool_choice: { type: 'function', name: 'other' } },
    'tool_choice.name',
    'other',
  ],
  [{ ...ok, tools: [weather], tool_choice: { type: 'file_search' } }, 'tool_choice.type', 'file_search'],
  [
    { ...ok, tools: [weather], tool_choice: { type: 'allowed_tools', mode: 'auto', tools: [] } },
    'tool_choice.type',
    'allowed',
  ],
  [{ ...ok, text: { format: { type: 'json_schema', name: 'x' } } }, 'text.format.schema', ''],
  [{ ...ok, text: { verbosity: 'low' } }, 'text.verbosity', 'medium'],
  [{ ...ok, reasoning: { effort: 'xhigh' } }, 'reasoning.effort', 'minimal, low, medium, high'],
  [{ ...ok, max_output_tokens: 0 }, 'max_output_tokens', ''],
  [{ ...ok, temperature: 3 }, 'temperature', ''],
  [{ ...ok, metadata: { k: 'v'.repeat(513) } }, 'metadata.k', '512'],
  [
    { ...ok, metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])) },
    'metadata',
    '16',
  ],
  [{ ...ok, include: ['reasoning.encrypted_content', 'file_search_call.results'] }, 'include.1', 'only'],
  [{ ...ok, include: ['message.output_text.logprobs'] }, 'include.0', 'log probabilities'],
  [{ ...ok, background: true }, 'background', 'background'],
  [{ ...ok, conversation: 'conv_1' }, 'conversation', 'previous_response_id'],
  [{ ...ok, prompt: { id: 'pmpt_1' } }, 'prompt', 'template'],
  [{ ...ok, top_logprobs: 5 }, 'top_logprobs', 'log probabilities'],
  [{ ...ok, max_tool_calls: 3 }, 'max_tool_calls', 'built-in'],
  [{ ...ok, truncation: 'auto' }, 'truncation', 'disabled'],
  [{ ...ok, service_tier: 'flex' }, 'service_tier', 'price'],
  [{ ...ok, context_management: [{ type: 'compaction' }] }, 'context_management', 'compaction'],
  [{ ...ok, frequency_penalty: 1 }, 'frequency_penalty', 'not supported'],
  [{ input: [] }, 'input', 'previous_response_id'],
  [{ input: [{ role: 'system', content: 'only instructions' }] }, 'input', 'user message'],
  [{ input: [{ role: 'user', content: '' }] }, 'input.0.content', 'content'],
  [{ input: [{ role: 'user', content: [{ type: 'input_audio' }] }] }, 'input.0.content.0.type', 'audio'],
  [
    { input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file-1' }] }] },
    'input.0.content.0.file_id',
    'file id',
  ],
  [
    { input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'ftp://x' }] }] },
    'input.0.content.0.image_url',
    'http',
  ],
  [
    {
      input: [
        { role: 'user', content: [{ type: 'input_image', image_url: 'https://x.png', detail: 'original' }] },
      ],
    },
    'input.0.content.0.detail',
    'auto',
  ],
  [
    { input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'file-1' }] }] },
    'input.0.content.0.file_id',
    'file id',
  ],
  [
    { input: [{ role: 'user', content: [{ type: 'input_file', file_url: 'https://x.pdf' }] }] },
    'input.0.content.0.file_url',
    'file_data',
  ],
  [
    {
      input: [
        { role: 'user', content: [{ type: 'input_file', file_data: `data:text/plain;base64,${PDF}` }] },
      ],
    },
    'input.0.content.0.file_data',
    'PDF',
  ],
  [
    { input: [{ role: 'system', content: [{ type: 'input_image', image_url: 'https://x.png' }] }] },
    'input.0.content.0.type',
    'input_text',
  ],
  [
    { input: [{ role: 'assistant', content: [{ type: 'input_text', text: 'x' }] }] },
    'input.0.content.0.type',
    'output_text',
  ],
  [{ input: [{ role: 'tool', content: 'x' }] }, 'input.0.role', ''],
  [{ input: [{ role: 'user', content: 'x', name: 'bob' }] }, 'input.0.name', 'not supported'],
  [{ input: [{ type: 'item_reference', id: 'msg_1' }] }, 'input.0.type', 'previous_response_id'],
  [{ input: [{ type: 'web_search_call', id: 'ws_1' }] }, 'input.0.type', 'built-in tool'],
  [{ input: [{ type: 'function_call', call_id: 'c', arguments: '{}' }] }, 'input.0.name', ''],
  [
    {
      input: [
        { type: 'function_call_output', call_id: 'c', output: [{ type: 'input_file', file_data: 'x' }] },
      ],
    },
    'input.0.output.0.type',
    'input_text and input_image',
  ],
  [
    { input: [{ type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'switchyard:anthropic:!!' }] },
    'input.0.encrypted_content',
    'not written by the gateway',
  ],
  [
    {
      input: [
        {
          type: 'reasoning',
          id: 'rs_1',
          summary: [],
          encrypted_content: `switchyard:openai-responses:${Buffer.from('{}').toString('base64url')}`,
        },
      ],
    },
    'input.0.encrypted_content',
    'not written by the gateway',
  ],
  [
    {
      input: [
        {
          type: 'reasoning',
          id: 'rs_1',
          summary: [],
          encrypted_content: `switchyard:mystery:${Buffer.from('{}').toString('base64url')}`,
        },
      ],
    },
    'input.0.encrypted_content',
    'not written by the gateway',
  ],
  [{ input: [{ content: 'x' }] }, 'input.0.type', 'type'],
  [[], '', 'JSON object'],
];

test.each(refusals.map(([body, param, words]) => [param, words, body] as const))(
  'a request is refused naming %s (%s)',
  (param, words, body) => {
    const error = refusal(body);
    expect(error.status).toBe(400);
    expect(error.context.param ?? '').toBe(param);
    expect(error.message).toContain(words);
  },
);

test('every ignored field is named with why ignoring it changes nothing', () => {
  for (const [field, why] of Object.entries(RESPONSES_IGNORED_FIELDS)) {
    expect(field).not.toBe('');
    expect(why.length).toBeGreaterThan(20);
  }
  expect(Object.keys(RESPONSES_IGNORED_FIELDS)).toEqual(
    expect.arrayContaining(['user', 'safety_identifier', 'prompt_cache_key', 'service_tier', 'truncation']),
  );
});

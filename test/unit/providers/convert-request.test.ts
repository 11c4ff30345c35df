// Unit tests: neutral requests converted into OpenAI Chat Completions and Anthropic Messages bodies.
import { GenerationRequestSchema } from '../../../src/config/request';
import { convertRequest as convertAnthropicRequest } from '../../../src/providers/anthropic/convert-request';
import {
  convertRequest as convertOpenAIRequest,
  maxTokensFieldFor,
} from '../../../src/providers/openai/convert-request';

const request = GenerationRequestSchema.parse({
  system: 'Answer briefly.',
  messages: [
    { role: 'user', content: 'Weather in Oslo?' },
    { role: 'assistant', content: 'Checking.' },
    { role: 'user', content: 'Thanks.' },
  ],
  maxOutputTokens: 321,
  temperature: 0.2,
  tools: [
    {
      name: 'lookup',
      description: 'Look up weather',
      parameters: { properties: { city: { type: 'string' } } },
    },
  ],
  jsonSchema: { type: 'object', properties: { answer: { type: 'string' } } },
});

describe('OpenAI convertRequest', () => {
  it('sends max_completion_tokens to OpenAI and max_tokens to compatible servers', () => {
    expect(maxTokensFieldFor('openai')).toBe('max_completion_tokens');
    expect(maxTokensFieldFor('openai-compatible')).toBe('max_tokens');
    const openai = convertOpenAIRequest('gpt-test', request, 'openai');
    expect(openai.max_completion_tokens).toBe(321);
    expect(openai).not.toHaveProperty('max_tokens');
    const compatible = convertOpenAIRequest('llama', request, 'openai-compatible');
    expect(compatible.max_tokens).toBe(321);
    expect(compatible).not.toHaveProperty('max_completion_tokens');
  });

  it('puts the system prompt first among the messages', () => {
    const body = convertOpenAIRequest('gpt-test', request, 'openai');
    expect(body.messages).toEqual([
      { role: 'system', content: 'Answer briefly.' },
      { role: 'user', content: 'Weather in Oslo?' },
      { role: 'assistant', content: 'Checking.' },
      { role: 'user', content: 'Thanks.' },
    ]);
  });

  it('converts tools, temperature and the JSON schema', () => {
    const body = convertOpenAIRequest('gpt-test', request, 'openai');
    expect(body.temperature).toBe(0.2);
    expect(body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'lookup',
          description: 'Look up weather',
          parameters: { properties: { city: { type: 'string' } } },
        },
      },
    ]);
    expect(body.response_format).toEqual({
      type: 'json_schema',
      json_schema: {
        name: 'response',
        schema: { type: 'object', properties: { answer: { type: 'string' } } },
      },
    });
  });

  it('omits optional fields that were not asked for', () => {
    const minimal = GenerationRequestSchema.parse({ messages: [{ role: 'user', content: 'hi' }] });
    const body = convertOpenAIRequest('gpt-test', minimal, 'openai');
    expect(Object.keys(body).sort()).toEqual(['max_completion_tokens', 'messages', 'model']);
    expect(body.max_completion_tokens).toBe(1024);
  });
});

describe('Anthropic convertRequest', () => {
  it('sends max_tokens and the system prompt as a top-level field', () => {
    const body = convertAnthropicRequest('claude-test', request);
    expect(body.max_tokens).toBe(321);
    expect(body.system).toBe('Answer briefly.');
    expect(body.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
  });

  it('converts tools with an object input schema and the JSON schema as output_config', () => {
    const body = convertAnthropicRequest('claude-test', request);
    expect(body.tools).toEqual([
      {
        name: 'lookup',
        description: 'Look up weather',
        input_schema: { type: 'object', properties: { city: { type: 'string' } } },
      },
    ]);
    expect(body.output_config).toEqual({
      format: { type: 'json_schema', schema: { type: 'object', properties: { answer: { type: 'string' } } } },
    });
  });

  it('omits optional fields that were not asked for', () => {
    const minimal = GenerationRequestSchema.parse({ messages: [{ role: 'user', content: 'hi' }] });
    expect(Object.keys(convertAnthropicRequest('claude-test', minimal)).sort()).toEqual([
      'max_tokens',
      'messages',
      'model',
    ]);
  });
});

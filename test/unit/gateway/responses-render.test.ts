// The Responses surface's answer: the response object, its items' ids, reasoning marked by origin, the echo, errors.
import { parseConfig } from '../../../src/config/load-config';
import { prepareCall } from '../../../src/gateway/call-input';
import type { StoredKey } from '../../../src/gateway/gateway-key';
import { GatewayError } from '../../../src/gateway/gateway-error';
import { responseEchoOf } from '../../../src/gateway/responses-echo';
import { outputItemId, responseIdOf, responseOfItem } from '../../../src/gateway/response-id';
import { parseResponsesRequest, responsesSurface } from '../../../src/gateway/responses-surface';
import type { Answer, SurfaceRequest } from '../../../src/gateway/surface';
import type { RoutedCallInput } from '../../../src/config/routed-call-input';
import { TEST_CONFIG } from '../cli/cli-test-io';

const identity = {
  id: responseIdOf('switchyard-call-gw-1', true),
  model: 'gpt-primary',
  created: 1_700_000_000,
};
const routing = {
  workflowId: 'switchyard-call-gw-1',
  route: 'support',
  servedBy: 'anthropic/claude',
  fallbacks: 1,
  costUsd: 0.25,
};

const answer: Answer = {
  text: 'Looking both up.',
  toolCalls: [
    { id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
    { id: 'toolu_2', name: 'get_weather', arguments: '{"city":"Lyon"}' },
  ],
  reasoning: [
    { type: 'reasoning', text: 'Two cities.', signature: 'sig-a', origin: 'anthropic' },
    { type: 'reasoning', text: '', redactedData: 'opaque', origin: 'anthropic' },
    {
      type: 'reasoning',
      text: 'Plan.',
      signature: 'gAAAA-enc',
      id: 'rs_upstream',
      origin: 'openai-responses',
    },
    { type: 'reasoning', text: 'Deep thought.', origin: 'openai-compatible' },
  ],
  finishReason: { unified: 'tool_calls', raw: 'tool_use' },
  usage: {
    inputTokens: 10,
    cachedInputTokens: 4,
    cacheWriteInputTokens: 2,
    outputTokens: 30,
    reasoningTokens: 12,
    raw: {},
  },
  requestId: null,
};

const config = parseConfig(TEST_CONFIG);
const key: StoredKey = {
  id: '0123456789ab',
  sha256: '0'.repeat(64),
  routes: ['*'],
  createdAt: '2026-01-01T00:00:00.000Z',
};

/** The call as the gateway starts it: the request parsed, then prepared (validated, with its labels). */
function callOf(body: Record<string, unknown>): { parsed: SurfaceRequest; input: RoutedCallInput } {
  const parsed = parseResponsesRequest({ model: 'cheap', ...body });
  const { input } = prepareCall({
    surface: responsesSurface,
    parsed,
    key,
    config,
    idempotencyKey: undefined,
    deadlineMs: 60_000,
  });
  return { parsed, input };
}

function rendered(body: Record<string, unknown>, result: Answer = answer) {
  const { parsed, input } = callOf(body);
  return JSON.parse(
    JSON.stringify(responsesSurface.answer(result, identity, routing, parsed, input)),
  ) as Record<string, unknown> & { output: Record<string, unknown>[] };
}

test('an answer is a response: reasoning, message and function calls as items, usage, the echo, the routing', () => {
  const body = rendered({
    input: 'Weather in Paris and Lyon?',
    instructions: 'Be brief.',
    tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object' }, strict: true }],
    metadata: { team: 'search' },
    temperature: 0.2,
  });
  expect(body).toMatchObject({
    id: identity.id,
    object: 'response',
    created_at: identity.created,
    status: 'completed',
    error: null,
    incomplete_details: null,
    model: 'gpt-primary',
    instructions: 'Be brief.',
    // Not asked: the bound every call has.
    max_output_tokens: 1024,
    metadata: { team: 'search' },
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: true,
    temperature: 0.2,
    top_p: null,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: [
      {
        type: 'function',
        name: 'get_weather',
        description: null,
        parameters: { type: 'object' },
        strict: true,
      },
    ],
    truncation: 'disabled',
    usage: {
      input_tokens: 16,
      input_tokens_details: { cached_tokens: 4 },
      output_tokens: 30,
      output_tokens_details: { reasoning_tokens: 12 },
      total_tokens: 46,
    },
    switchyard: {
      workflow_id: 'switchyard-call-gw-1',
      route: 'support',
      served_by: 'anthropic/claude',
      fallbacks: 1,
      cost_usd: 0.25,
    },
  });
  expect(typeof body.completed_at).toBe('number');
  expect(body).not.toHaveProperty('output_text');
  // Without include, no encrypted content: as OpenAI answers.
  expect(body.output).toEqual([
    {
      id: outputItemId(identity.id, 'rs', 0),
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: 'Two cities.' }],
    },
    { id: outputItemId(identity.id, 'rs', 1), type: 'reasoning', summary: [] },
    { id: 'rs_upstream', type: 'reasoning', summary: [{ type: 'summary_text', text: 'Plan.' }] },
    {
      id: outputItemId(identity.id, 'rs', 3),
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: 'Deep thought.' }],
    },
    {
      id: outputItemId(identity.id, 'msg', 0),
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: 'Looking both up.', annotations: [], logprobs: [] }],
    },
    {
      id: outputItemId(identity.id, 'fc', 0),
      type: 'function_call',
      status: 'completed',
      call_id: 'toolu_1',
      name: 'get_weather',
      arguments: '{"city":"Paris"}',
    },
    {
      id: outputItemId(identity.id, 'fc', 1),
      type: 'function_call',
      status: 'completed',
      call_id: 'toolu_2',
      name: 'get_weather',
      arguments: '{"city":"Lyon"}',
    },
  ]);
  const ids = body.output.map((item) => item.id as string);
  expect(new Set(ids).size).toBe(ids.length);
  // A stored response's item ids name it (so a client may send an item back by reference).
  expect(
    ids
      .filter((id) => id !== 'rs_upstream')
      .every((id) => responseOfItem(id) === body.id && /^(rs|msg|fc)_s\d+_/.test(id)),
  ).toBe(true);
});

test('with encrypted reasoning included, each item sent back is the same reasoning of the same origin', () => {
  const body = rendered({ input: 'x', include: ['reasoning.encrypted_content'] });
  const reasoningItems = body.output.filter((item) => item.type === 'reasoning');
  const [anthropic, redacted, openai, compatible] = reasoningItems.map(
    (item) => item.encrypted_content as string,
  );
  expect(anthropic).toMatch(/^switchyard:anthropic:/);
  expect(redacted).toMatch(/^switchyard:anthropic:/);
  // OpenAI's own encrypted content as it came.
  expect(openai).toBe('gAAAA-enc');
  expect(compatible).toMatch(/^switchyard:openai-compatible:/);

  // A stateless client sends the whole output back as input: the same parts, the answer's text and calls.
  const back = parseResponsesRequest({
    input: [{ role: 'user', content: 'x' }, ...body.output, { role: 'user', content: 'and?' }],
  });
  expect(back.request.messages[1]).toEqual({
    role: 'assistant',
    content: [
      { type: 'reasoning', text: 'Two cities.', signature: 'sig-a', origin: 'anthropic' },
      { type: 'reasoning', text: '', redactedData: 'opaque', origin: 'anthropic' },
      {
        type: 'reasoning',
        text: 'Plan.',
        signature: 'gAAAA-enc',
        id: 'rs_upstream',
        origin: 'openai-responses',
      },
      { type: 'reasoning', text: 'Deep thought.', origin: 'openai-compatible' },
      { type: 'text', text: 'Looking both up.' },
      { type: 'tool_call', id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'tool_call', id: 'toolu_2', name: 'get_weather', arguments: '{"city":"Lyon"}' },
    ],
  });
});

test('an answer cut at its length bound is incomplete; one that only called tools has no message', () => {
  const cut = rendered(
    {
      input: 'x',
      max_output_tokens: 20,
      store: false,
      text: { format: { type: 'json_schema', name: 'f', schema: { type: 'object' }, strict: true } },
    },
    {
      ...answer,
      toolCalls: [],
      reasoning: [],
      text: '{"a":',
      finishReason: { unified: 'length', raw: 'max_tokens' },
    },
  );
  expect(cut).toMatchObject({
    status: 'incomplete',
    incomplete_details: { reason: 'max_output_tokens' },
    max_output_tokens: 20,
    store: false,
    text: { format: { type: 'json_schema', name: 'f', schema: { type: 'object' }, strict: true } },
  });
  expect(cut).not.toHaveProperty('completed_at');
  expect(cut.output).toEqual([
    expect.objectContaining({
      type: 'message',
      status: 'incomplete',
      content: [expect.objectContaining({ text: '{"a":' })],
    }),
  ]);
  const toolsOnly = rendered({ input: 'x' }, { ...answer, text: '', reasoning: undefined });
  expect(toolsOnly.output.map((item) => item.type)).toEqual(['function_call', 'function_call']);
  // Said nothing and called nothing: one empty message, so output_text is ''.
  const silent = rendered({ input: 'x' }, { ...answer, text: '', toolCalls: [], reasoning: undefined });
  expect(silent.output).toEqual([
    expect.objectContaining({ type: 'message', content: [expect.objectContaining({ text: '' })] }),
  ]);
});

test('the echo is rebuilt from the call input alone, as a stored response read back gets it', () => {
  const { input } = callOf({
    input: [
      { role: 'developer', content: 'Use tools.' },
      { role: 'user', content: 'x' },
    ],
    instructions: 'Be brief.',
    previous_response_id: 'resp_sprev',
    reasoning: { effort: 'high', summary: 'detailed' },
    parallel_tool_calls: false,
    top_p: 0.5,
    tools: [{ type: 'function', name: 'f', description: 'd', parameters: { type: 'object' } }],
    tool_choice: { type: 'function', name: 'f' },
    text: { format: { type: 'json_object' } },
  });
  expect(responseEchoOf(input)).toEqual({
    instructions: 'Be brief.\n\nUse tools.',
    max_output_tokens: 1024,
    metadata: {},
    parallel_tool_calls: false,
    previous_response_id: 'resp_sprev',
    reasoning: { effort: 'high', summary: 'detailed' },
    store: true,
    temperature: null,
    text: { format: { type: 'json_object' } },
    tool_choice: { type: 'function', name: 'f' },
    tools: [{ type: 'function', name: 'f', description: 'd', parameters: { type: 'object' }, strict: null }],
    top_p: 0.5,
    truncation: 'disabled',
    background: false,
  });
});

test('errors are shaped as on Chat Completions, with the failure type as code', () => {
  const error = new GatewayError('over budget', 'budget', 'BudgetExceeded');
  expect(responsesSurface.errorBody(error)).toEqual({
    error: { message: 'over budget', type: 'insufficient_quota', param: null, code: 'BudgetExceeded' },
  });
  const bad = new GatewayError('tools.0.type: no', 'invalid_request', 'invalid_request', {
    param: 'tools.0.type',
  });
  expect(responsesSurface.errorBody(bad, routing)).toMatchObject({
    error: {
      type: 'invalid_request_error',
      param: 'tools.0.type',
      switchyard: { workflow_id: routing.workflowId },
    },
  });
});

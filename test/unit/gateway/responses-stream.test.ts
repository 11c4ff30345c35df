// The Responses surface's stream: the event sequence, numbered from 0, items opened and closed in turn, the whole response last.
import { parseConfig } from '../../../src/config/load-config';
import type { RoutedCallInput } from '../../../src/config/routed-call-input';
import { prepareCall } from '../../../src/gateway/call-input';
import { GatewayError } from '../../../src/gateway/gateway-error';
import type { StoredKey } from '../../../src/gateway/gateway-key';
import { outputItemId } from '../../../src/gateway/response-id';
import { parseResponsesRequest, responsesSurface } from '../../../src/gateway/responses-surface';
import type { Answer, SurfaceRequest } from '../../../src/gateway/surface';
import type { OutputDelta } from '../../../src/providers/types';
import { TEST_CONFIG } from '../cli/cli-test-io';

const config = parseConfig(TEST_CONFIG);
const key: StoredKey = {
  id: '0123456789ab',
  sha256: '0'.repeat(64),
  routes: ['*'],
  createdAt: '2026-01-01T00:00:00.000Z',
};
const identity = { id: 'resp_sstream', model: 'claude', created: 1_700_000_000 };
const routing = {
  workflowId: 'wf-1',
  route: 'cheap',
  servedBy: 'anthropic/claude',
  fallbacks: 0,
  costUsd: 0.1,
};

function callOf(body: Record<string, unknown>): { parsed: SurfaceRequest; input: RoutedCallInput } {
  const parsed = parseResponsesRequest({ model: 'cheap', stream: true, ...body });
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

interface StreamEvent {
  readonly name: string;
  readonly data: Record<string, unknown> & { type: string; sequence_number: number };
}

function events(text: string): StreamEvent[] {
  return text
    .split('\n\n')
    .filter(Boolean)
    .map((event) => {
      const [name, data] = event.split('\n');
      return { name: name!.replace('event: ', ''), data: JSON.parse(data!.replace('data: ', '')) };
    });
}

const answer: Answer = {
  text: 'Paris is sunny.',
  toolCalls: [{ id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Lyon"}' }],
  reasoning: [{ type: 'reasoning', text: 'Think.', signature: 'sig-a', origin: 'anthropic' }],
  finishReason: { unified: 'tool_calls', raw: 'tool_use' },
  usage: { inputTokens: 5, cachedInputTokens: 0, outputTokens: 9, raw: {} },
  requestId: null,
};

const pieces: OutputDelta[] = [
  { type: 'reasoning', index: 0, text: 'Thi', origin: 'anthropic' },
  { type: 'reasoning', index: 0, text: 'nk.', origin: 'anthropic' },
  { type: 'reasoning', index: 0, text: '', signature: 'sig-a', origin: 'anthropic' },
  { type: 'text', text: 'Paris ' },
  { type: 'text', text: 'is sunny.' },
  { type: 'tool_call', index: 0, id: 'toolu_1', name: 'get_weather', arguments: '' },
  { type: 'tool_call', index: 0, arguments: '{"city":' },
  { type: 'tool_call', index: 0, arguments: '"Lyon"}' },
];

function streamed(
  body: Record<string, unknown>,
  deltas: readonly OutputDelta[],
  end: (r: ReturnType<typeof responsesSurface.streamRenderer>) => string,
) {
  const { parsed, input } = callOf(body);
  const renderer = responsesSurface.streamRenderer(parsed, input);
  let text = renderer.start(identity);
  for (const delta of deltas) text += renderer.delta(delta);
  return events(text + end(renderer));
}

test('a stream: created, in progress, each item added, its pieces, done in turn, then the whole response', () => {
  const all = streamed({ input: 'x', include: ['reasoning.encrypted_content'] }, pieces, (renderer) =>
    renderer.finish(answer, routing),
  );
  expect(all.map((event) => event.name)).toEqual([
    'response.created',
    'response.in_progress',
    'response.output_item.added',
    'response.reasoning_summary_part.added',
    'response.reasoning_summary_text.delta',
    'response.reasoning_summary_text.delta',
    'response.reasoning_summary_text.done',
    'response.reasoning_summary_part.done',
    'response.output_item.done',
    'response.output_item.added',
    'response.content_part.added',
    'response.output_text.delta',
    'response.output_text.delta',
    'response.output_text.done',
    'response.content_part.done',
    'response.output_item.done',
    'response.output_item.added',
    'response.function_call_arguments.delta',
    'response.function_call_arguments.delta',
    'response.function_call_arguments.done',
    'response.output_item.done',
    'response.completed',
  ]);
  // The event line names the type the data holds; numbered from 0, one by one.
  expect(all.every((event) => event.name === event.data.type)).toBe(true);
  expect(all.map((event) => event.data.sequence_number)).toEqual(all.map((_, index) => index));
  expect(all[0]!.data.response).toMatchObject({
    id: 'resp_sstream',
    status: 'in_progress',
    output: [],
    usage: null,
  });

  const reasoningId = outputItemId('resp_sstream', 'rs', 0);
  const messageId = outputItemId('resp_sstream', 'msg', 0);
  const callId = outputItemId('resp_sstream', 'fc', 0);
  expect(all[2]!.data).toMatchObject({
    output_index: 0,
    item: { id: reasoningId, type: 'reasoning', summary: [] },
  });
  expect(all[4]!.data).toMatchObject({
    item_id: reasoningId,
    output_index: 0,
    summary_index: 0,
    delta: 'Thi',
  });
  expect(all[8]!.data.item).toMatchObject({
    id: reasoningId,
    summary: [{ type: 'summary_text', text: 'Think.' }],
    encrypted_content: expect.stringMatching(/^switchyard:anthropic:/),
  });
  expect(all[9]!.data).toMatchObject({
    output_index: 1,
    item: { id: messageId, type: 'message', status: 'in_progress', content: [] },
  });
  expect(all[11]!.data).toEqual({
    type: 'response.output_text.delta',
    sequence_number: 11,
    item_id: messageId,
    output_index: 1,
    content_index: 0,
    delta: 'Paris ',
    logprobs: [],
  });
  expect(all[13]!.data).toMatchObject({ text: 'Paris is sunny.', logprobs: [] });
  expect(all[16]!.data.item).toEqual({
    id: callId,
    type: 'function_call',
    status: 'in_progress',
    call_id: 'toolu_1',
    name: 'get_weather',
    arguments: '',
  });
  expect(all[19]!.data).toMatchObject({ item_id: callId, name: 'get_weather', arguments: '{"city":"Lyon"}' });

  // The last event holds the whole response: the same as the answer without a stream, routing included.
  const { parsed, input } = callOf({ input: 'x', include: ['reasoning.encrypted_content'] });
  const whole = JSON.parse(JSON.stringify(responsesSurface.answer(answer, identity, routing, parsed, input)));
  const completed = all.at(-1)!.data.response as Record<string, unknown>;
  expect({ ...completed, completed_at: 0 }).toEqual({ ...whole, completed_at: 0 });
  expect(completed.switchyard).toMatchObject({ workflow_id: 'wf-1', served_by: 'anthropic/claude' });
});

test('an answer stopped at its length bound ends with response.incomplete', () => {
  const all = streamed({ input: 'x' }, [{ type: 'text', text: 'cut' }], (renderer) =>
    renderer.finish(
      {
        ...answer,
        text: 'cut',
        toolCalls: [],
        reasoning: [],
        finishReason: { unified: 'length', raw: null },
      },
      routing,
    ),
  );
  const last = all.at(-1)!;
  expect(last.name).toBe('response.incomplete');
  expect(last.data.response).toMatchObject({
    status: 'incomplete',
    incomplete_details: { reason: 'max_output_tokens' },
    output: [{ type: 'message', status: 'incomplete', content: [{ text: 'cut' }] }],
  });
  const done = all.find((event) => event.name === 'response.output_item.done')!;
  expect(done.data.item).toMatchObject({ status: 'incomplete' });
});

test('a failure after the first piece ends the stream with response.failed: the failure type, what was said so far', () => {
  const all = streamed({ input: 'x' }, [{ type: 'text', text: 'Par' }], (renderer) =>
    renderer.error(new GatewayError('the provider cut the stream', 'upstream', 'StreamInterrupted'), routing),
  );
  const last = all.at(-1)!;
  expect(last.name).toBe('response.failed');
  expect(last.data.sequence_number).toBe(all.length - 1);
  expect(last.data.response).toMatchObject({
    id: 'resp_sstream',
    status: 'failed',
    error: { code: 'StreamInterrupted', message: 'the provider cut the stream' },
    output: [{ type: 'message', status: 'in_progress', content: [{ text: 'Par' }] }],
    usage: null,
    switchyard: { workflow_id: 'wf-1' },
  });
  // No top-level `error`: the SDKs throw on that, and this is an event to read.
  expect(last.data).not.toHaveProperty('error');
});

test("OpenAI's reasoning keeps its item id in the stream as in the answer; an answer without pieces streams whole", () => {
  const openaiAnswer: Answer = {
    ...answer,
    toolCalls: [],
    reasoning: [
      { type: 'reasoning', text: 'Plan.', signature: 'enc', id: 'rs_up', origin: 'openai-responses' },
    ],
  };
  const all = streamed(
    { input: 'x', include: ['reasoning.encrypted_content'] },
    [
      { type: 'reasoning', index: 0, text: 'Plan.', id: 'rs_up', origin: 'openai-responses' },
      { type: 'reasoning', index: 0, text: '', signature: 'enc', origin: 'openai-responses' },
    ],
    (renderer) => renderer.finish(openaiAnswer, routing),
  );
  expect(all[2]!.data.item).toMatchObject({ id: 'rs_up' });
  expect((all.at(-1)!.data.response as { output: unknown[] }).output[0]).toEqual({
    id: 'rs_up',
    type: 'reasoning',
    summary: [{ type: 'summary_text', text: 'Plan.' }],
    encrypted_content: 'enc',
  });
  // Nothing streamed (an answer replayed, or empty): start then finish still makes a whole, valid sequence.
  const replay = streamed({ input: 'x' }, [], (renderer) =>
    renderer.finish({ ...answer, reasoning: [], toolCalls: [], text: '' }, routing),
  );
  // An answer that said nothing still has its empty message, as without a stream.
  expect(replay.map((event) => event.name)).toEqual([
    'response.created',
    'response.in_progress',
    'response.output_item.added',
    'response.content_part.added',
    'response.output_text.done',
    'response.content_part.done',
    'response.output_item.done',
    'response.completed',
  ]);
  expect((replay.at(-1)!.data.response as { output: unknown[] }).output).toEqual([
    expect.objectContaining({
      type: 'message',
      status: 'completed',
      content: [expect.objectContaining({ text: '' })],
    }),
  ]);
});

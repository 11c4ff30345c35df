// A stored conversation as OpenAI's list of input items: each kind of part, stable ids, pages, bad queries.
import { GatewayError } from '../../../src/gateway/gateway-error';
import { inputItemsList, inputItemsOf, inputItemsPageOf } from '../../../src/gateway/responses-input-items';
import type { Message } from '../../../src/config/request';

const conversation: Message[] = [
  {
    role: 'user',
    content: [
      { type: 'text', text: 'What is in this picture and this file?' },
      { type: 'image', url: 'https://example.com/cat.png', detail: 'low' },
      { type: 'document', data: 'JVBERi0=', mediaType: 'application/pdf', title: 'notes.pdf' },
    ],
  },
  {
    role: 'assistant',
    content: [
      { type: 'reasoning', text: 'Look closely.', signature: 'sig', origin: 'anthropic' },
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_call', id: 'call_1', name: 'zoom', arguments: '{"x":1}' },
    ],
  },
  {
    role: 'tool',
    content: [
      {
        type: 'tool_result',
        callId: 'call_1',
        content: [
          { type: 'text', text: 'zoomed' },
          { type: 'image', data: 'iVBORw0=', mediaType: 'image/png' },
        ],
      },
    ],
  },
  { role: 'assistant', content: 'A cat.' },
];

test('each part becomes its input item, reasoning is left out, and ids are stable and distinct', () => {
  const items = inputItemsOf('resp_sabc', conversation);
  expect(items.map(({ id: _id, ...item }) => item)).toEqual([
    {
      type: 'message',
      role: 'user',
      status: 'completed',
      content: [
        { type: 'input_text', text: 'What is in this picture and this file?' },
        { type: 'input_image', image_url: 'https://example.com/cat.png', detail: 'low' },
        { type: 'input_file', file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'notes.pdf' },
      ],
    },
    {
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: 'Let me check.', annotations: [], logprobs: [] }],
    },
    { type: 'function_call', status: 'completed', call_id: 'call_1', name: 'zoom', arguments: '{"x":1}' },
    {
      type: 'function_call_output',
      call_id: 'call_1',
      status: 'completed',
      output: [
        { type: 'input_text', text: 'zoomed' },
        { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0=', detail: 'auto' },
      ],
    },
    {
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: 'A cat.', annotations: [], logprobs: [] }],
    },
  ]);
  const ids = items.map((item) => item.id as string);
  expect(ids.map((id) => id.split('_')[0])).toEqual(['msg', 'msg', 'fc', 'fco', 'msg']);
  expect(new Set(ids).size).toBe(ids.length);
  expect(inputItemsOf('resp_sabc', conversation).map((item) => item.id)).toEqual(ids);
  expect(inputItemsOf('resp_sother', conversation)[0]!.id).not.toBe(ids[0]);
});

test('pages: newest first by default, after an id, has_more, first and last ids', () => {
  const items = inputItemsOf('resp_sabc', conversation);
  const ids = items.map((item) => item.id);
  const first = inputItemsList(items, inputItemsPageOf({ limit: '2' }));
  expect(first).toMatchObject({ object: 'list', has_more: true, first_id: ids[4], last_id: ids[3] });
  expect(first.data.map((item) => item.id)).toEqual([ids[4], ids[3]]);
  const last = inputItemsList(items, inputItemsPageOf({ limit: '2', order: 'asc', after: ids[2] as string }));
  expect(last.data.map((item) => item.id)).toEqual([ids[3], ids[4]]);
  expect(last.has_more).toBe(false);
  expect(inputItemsList([], inputItemsPageOf({}))).toEqual({
    object: 'list',
    data: [],
    first_id: null,
    last_id: null,
    has_more: false,
  });
});

test('a bad limit, order or after is a 400 naming it', () => {
  const items = inputItemsOf('resp_sabc', conversation);
  const refusal = (read: () => unknown) => {
    try {
      read();
    } catch (error) {
      return error instanceof GatewayError ? [error.status, error.context.param] : error;
    }
    return 'accepted';
  };
  for (const limit of ['0', '101', '2.5', 'ten']) {
    expect(refusal(() => inputItemsPageOf({ limit }))).toEqual([400, 'limit']);
  }
  expect(refusal(() => inputItemsPageOf({ order: 'newest' }))).toEqual([400, 'order']);
  expect(refusal(() => inputItemsList(items, inputItemsPageOf({ after: 'msg_nope' })))).toEqual([
    400,
    'after',
  ]);
});

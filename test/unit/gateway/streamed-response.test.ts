// A streamed gateway response over real HTTP: relayed pieces, then the answer's rest (reasoning, text, tool calls).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RelayPushSchema, type RelayAnswer, type RelayBatch } from '../../../src/config/relay';
import type { GatewayError } from '../../../src/gateway/gateway-error';
import { StreamedResponse } from '../../../src/gateway/streamed-response';
import type { Surface } from '../../../src/gateway/surface';
import type { OutputDelta } from '../../../src/providers/types';
import type { RoutedCallResult } from '../../../src/routing/routing-record';

const TARGET = { provider: 'anthropic', model: 'claude-test' } as const;

/** Renders each piece as one JSON line, the end as `finish`, an error as `error <code>`. */
const renderer = {
  start: () => 'start\n',
  delta: (delta: OutputDelta) => `${JSON.stringify(delta)}\n`,
  finish: () => 'finish\n',
  error: (error: GatewayError) => `error ${error.code}\n`,
};

type Answer = RoutedCallResult['answer'];

function answerOf(parts: Partial<Answer>): RoutedCallResult {
  return {
    answer: {
      text: '',
      toolCalls: [],
      finishReason: { unified: 'stop', raw: 'end_turn' },
      usage: { inputTokens: 1, cachedInputTokens: 0, outputTokens: 1, raw: {} },
      requestId: null,
      ...parts,
    },
    record: {
      route: 'r',
      workflowId: 'wf',
      servedBy: { targetIndex: 0, ...TARGET },
      fallbacks: 0,
      rounds: 1,
      totalCostNanoUsd: 0,
      totalCostUsd: 0,
      attempts: [],
    },
  };
}

let server: Server;
let respond: (response: StreamedResponse) => void;

beforeAll(async () => {
  server = createServer((_request, response) =>
    respond(
      new StreamedResponse({
        surface: {} as Surface,
        renderer,
        response,
        workflowId: 'wf',
        route: 'r',
        identity: (model) => ({ id: 'id', model, created: 0 }),
      }),
    ),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));

/** The caller's view: the lines of the stream after the pushes, then the answer. */
async function streamed(pushes: readonly OutputDelta[][], result: RoutedCallResult): Promise<string[]> {
  respond = (response) => {
    for (const [sequence, deltas] of pushes.entries()) {
      const batch: RelayBatch = { attemptId: 'attempt-1', target: TARGET, sequence, deltas };
      response.accept(batch);
    }
    response.finish(result);
  };
  const { port } = server.address() as AddressInfo;
  const body = await (await fetch(`http://127.0.0.1:${port}/`)).text();
  return body.split('\n').filter((line) => line !== '');
}

const parsed = (lines: readonly string[]) =>
  lines.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as OutputDelta);

test('the rest of the answer: reasoning not streamed comes first, then text, then tool calls', async () => {
  const lines = await streamed(
    [[{ type: 'reasoning', index: 0, text: 'Let me' }]],
    answerOf({
      text: 'Paris.',
      toolCalls: [{ id: 'call_1', name: 'lookup', arguments: '{}' }],
      reasoning: [
        { type: 'reasoning', text: 'Let me think.', signature: 'sig-0', origin: 'anthropic' },
        { type: 'reasoning', text: '', redactedData: 'opaque', origin: 'anthropic' },
      ],
    }),
  );
  expect(lines[0]).toBe('start');
  expect(parsed(lines)).toEqual([
    { type: 'reasoning', index: 0, text: 'Let me' },
    { type: 'reasoning', index: 0, origin: 'anthropic', text: ' think.', signature: 'sig-0' },
    { type: 'reasoning', index: 1, origin: 'anthropic', text: '', redactedData: 'opaque' },
    { type: 'text', text: 'Paris.' },
    { type: 'tool_call', index: 0, id: 'call_1', name: 'lookup', arguments: '{}' },
  ]);
  expect(lines[lines.length - 1]).toBe('finish');
});

test('reasoning streamed in full, signature included, is not written again', async () => {
  const lines = await streamed(
    [
      [{ type: 'reasoning', index: 0, text: 'Hmm.' }],
      [{ type: 'reasoning', index: 0, text: '', signature: 'sig-0' }],
      [{ type: 'text', text: 'Yes' }],
    ],
    answerOf({
      text: 'Yes.',
      reasoning: [{ type: 'reasoning', text: 'Hmm.', signature: 'sig-0', origin: 'anthropic' }],
    }),
  );
  expect(parsed(lines).slice(3)).toEqual([{ type: 'text', text: '.' }]);
  expect(lines[lines.length - 1]).toBe('finish');
});

test.each([
  {
    name: 'the reasoning text differs',
    pushes: [[{ type: 'reasoning', index: 0, text: 'Hmm, no' }]] as OutputDelta[][],
    reasoning: [{ type: 'reasoning' as const, text: 'Hmm, yes', origin: 'anthropic' as const }],
  },
  {
    name: 'the signature differs',
    pushes: [[{ type: 'reasoning', index: 0, text: 'Hmm', signature: 'sig-a' }]] as OutputDelta[][],
    reasoning: [
      { type: 'reasoning' as const, text: 'Hmm', signature: 'sig-b', origin: 'anthropic' as const },
    ],
  },
  {
    name: 'the stream had a part the answer has not',
    pushes: [[{ type: 'reasoning', index: 0, text: 'Hmm' }]] as OutputDelta[][],
    reasoning: undefined,
  },
])(
  'an answer that does not continue the streamed reasoning interrupts the stream: $name',
  async (example) => {
    const lines = await streamed(
      example.pushes,
      answerOf({ text: 'ok', ...(example.reasoning ? { reasoning: example.reasoning } : {}) }),
    );
    expect(lines[lines.length - 1]).toBe('error StreamInterrupted');
  },
);

test('a first piece of reasoning alone starts the stream', async () => {
  const lines = await streamed(
    [[{ type: 'reasoning', index: 0, text: '', redactedData: 'opaque' }]],
    answerOf({ text: 'ok', reasoning: [{ type: 'reasoning', text: '', redactedData: 'opaque' }] }),
  );
  expect(lines).toEqual([
    'start',
    JSON.stringify({ type: 'reasoning', index: 0, text: '', redactedData: 'opaque' }),
    JSON.stringify({ type: 'text', text: 'ok' }),
    'finish',
  ]);
});

test("a reasoning part never streamed starts with the provider's id of it", async () => {
  const lines = await streamed(
    [[{ type: 'text', text: 'ok' }]],
    answerOf({
      text: 'ok',
      reasoning: [
        { type: 'reasoning', text: 'Plan.', signature: 'enc', id: 'rs_up', origin: 'openai-responses' },
      ],
    }),
  );
  expect(parsed(lines)[1]).toEqual({
    type: 'reasoning',
    index: 0,
    origin: 'openai-responses',
    id: 'rs_up',
    text: 'Plan.',
    signature: 'enc',
  });
});

/** An attempt's whole answer, handed over before the call's record. */
function handed(attemptId: string, text: string): RelayAnswer {
  const { answer } = answerOf({ text });
  return {
    attemptId,
    target: TARGET,
    answer: { ...answer, provider: TARGET.provider, model: TARGET.model },
    route: 'r',
    fallbacks: 1,
    totalCostNanoUsd: 2_500,
    createdAtMs: 1_700_000_000_000,
  };
}

/**
 * The caller's view of a stream whose attempt-1 pushed `piece`, then `push` came, then the call's result: the
 * lines written, the relay statuses the two pushes got, and whether the response had ended before the result.
 */
async function streamedWithHandoff(piece: string, push: RelayAnswer, resultText: string) {
  const replies: number[] = [];
  let closedBeforeResult = false;
  respond = (response) => {
    const deltas = [{ type: 'text' as const, text: piece }];
    replies.push(response.accept({ attemptId: 'attempt-1', target: TARGET, sequence: 0, deltas }));
    replies.push(response.accept(push));
    closedBeforeResult = response.closed;
    response.finish(answerOf({ text: resultText }));
  };
  const { port } = server.address() as AddressInfo;
  const lines = (await (await fetch(`http://127.0.0.1:${port}/`)).text()).split('\n').filter(Boolean);
  return { lines, replies, closedBeforeResult };
}

test('a handed answer ends the stream with its rest; the result that follows writes nothing more', async () => {
  const { lines, replies, closedBeforeResult } = await streamedWithHandoff(
    'Par',
    handed('attempt-1', 'Paris.'),
    'Paris.',
  );
  expect(replies).toEqual([200, 200]);
  expect(closedBeforeResult).toBe(true);
  expect(parsed(lines)).toEqual([
    { type: 'text', text: 'Par' },
    { type: 'text', text: 'is.' },
  ]);
  expect(lines.filter((line) => line === 'finish')).toHaveLength(1);
});

test("another attempt's handed answer is superseded: the stream keeps the attempt that began it", async () => {
  const { lines, replies, closedBeforeResult } = await streamedWithHandoff(
    'A',
    handed('attempt-2', 'B'),
    'AB',
  );
  expect(replies).toEqual([200, 409]);
  expect(closedBeforeResult).toBe(false);
  expect(parsed(lines)).toEqual([
    { type: 'text', text: 'A' },
    { type: 'text', text: 'B' },
  ]);
});

test('the relay takes a whole answer or pieces, and refuses a push that is neither', () => {
  expect(RelayPushSchema.safeParse(handed('attempt-1', 'x')).success).toBe(true);
  expect(
    RelayPushSchema.safeParse({
      attemptId: 'a',
      target: TARGET,
      sequence: 0,
      deltas: [{ type: 'text', text: 'x' }],
    }).success,
  ).toBe(true);
  const { answer: _answer, ...noAnswer } = handed('attempt-1', 'x');
  expect(RelayPushSchema.safeParse(noAnswer).success).toBe(false);
  expect(RelayPushSchema.safeParse({ ...handed('attempt-1', 'x'), totalCostNanoUsd: -1 }).success).toBe(
    false,
  );
});

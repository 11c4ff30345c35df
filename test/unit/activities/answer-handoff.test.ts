// Handing a whole answer to a gateway's relay or a caller in this process: recorded in the attempt's heartbeat first, then handed over, or not at all.
import {
  createAnswerHandoff,
  HANDOFF_MAX_ANSWER_CHARS,
  HANDOFF_PUSH_TIMEOUT_MS,
} from '../../../src/activities/answer-handoff';
import type { AttemptSuccess } from '../../../src/activities/attempt-types';
import { awaitAnswer, IN_PROCESS_RELAY_ORIGIN, inProcessRelayUrl } from '../../../src/in-process-answers';
import type { HeartbeatReceipt } from '../../../src/activities/sending-mark';
import { RelayPusher } from '../../../src/activities/relay-client';
import type { RelayAnswer } from '../../../src/config/relay';
import { startGatewayRelay, type TestRelay } from '../../support/relay-server';

const TOKEN = 'a'.repeat(43);

function success(text: string): AttemptSuccess {
  return {
    latencyMs: 12,
    result: {
      text,
      toolCalls: [],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: { inputTokens: 3, cachedInputTokens: 0, outputTokens: 2, raw: {} },
      provider: 'openai',
      model: 'gpt-test',
      requestId: 'req_1',
    },
  };
}

let relay: TestRelay;
beforeEach(async () => {
  relay = await startGatewayRelay(() => 200, 0);
});
afterEach(async () => relay.close());

function facts(text: string, url = relay.url) {
  return {
    relay: { url, token: TOKEN, answer: true as const },
    handoff: {
      route: 'support',
      requestsBefore: 2,
      costBeforeNanoUsd: 1_000,
      firstStartedAtMs: 1_700_000_000_000,
    },
    attemptId: '3',
    workflowId: 'switchyard-call-1',
    target: { provider: 'openai', model: 'gpt-test' },
    success: success(text),
    costNanoUsd: 500,
  };
}

test('the answer is recorded before it is pushed, with the figures the record will hold', async () => {
  const order: string[] = [];
  const handOff = createAnswerHandoff();
  const taken = await handOff(facts('hello'), async (answered) => {
    order.push(`recorded ${answered.result.text} (pushes so far: ${relay.batches.length})`);
    return 'recorded';
  });
  expect(taken).toBe(true);
  expect(order).toEqual(['recorded hello (pushes so far: 0)']);
  expect(relay.authorizations).toEqual([`Bearer ${TOKEN}`]);
  const push = relay.batches[0] as unknown as RelayAnswer;
  expect(push).toMatchObject({
    attemptId: '3',
    target: { provider: 'openai', model: 'gpt-test' },
    route: 'support',
    fallbacks: 2,
    totalCostNanoUsd: 1_500,
    createdAtMs: 1_700_000_000_000,
  });
  expect(push.answer.text).toBe('hello');
});

test.each<HeartbeatReceipt>(['gone', 'cancelled', 'unrecorded'])(
  'a heartbeat the server answered %s hands nothing over',
  async (receipt) => {
    const taken = await createAnswerHandoff()(facts('hello'), async () => receipt);
    expect(taken).toBe(false);
    expect(relay.batches).toHaveLength(0);
  },
);

test('an answer too large for a heartbeat, or a relay outside the allowed origins, is neither recorded nor pushed', async () => {
  let recorded = 0;
  const record = async () => {
    recorded += 1;
    return 'recorded' as const;
  };
  expect(await createAnswerHandoff()(facts('x'.repeat(HANDOFF_MAX_ANSWER_CHARS)), record)).toBe(false);
  const elsewhere = createAnswerHandoff({ allowedOrigins: ['http://gateway.internal:4000'] });
  expect(await elsewhere(facts('hello'), record)).toBe(false);
  expect(recorded).toBe(0);
  expect(relay.batches).toHaveLength(0);
});

test('a relay that does not answer in time may have the answer: taken, and the call ends with it', async () => {
  await relay.close();
  relay = await startGatewayRelay(() => 200, HANDOFF_PUSH_TIMEOUT_MS + 500);
  expect(await createAnswerHandoff()(facts('hello'), async () => 'recorded')).toBe(true);
});

test('a relay that refuses the push or the connection: not taken, and no throw', async () => {
  await relay.close();
  relay = await startGatewayRelay(() => 410, 0);
  expect(await createAnswerHandoff()(facts('hello'), async () => 'recorded')).toBe(false);
  // Nothing listens there any more: the connection is refused, so nothing can have been delivered.
  const gone = relay.url;
  await relay.close();
  expect(await createAnswerHandoff()(facts('hello', gone), async () => 'recorded')).toBe(false);
  relay = await startGatewayRelay(() => 200, 0);
});

describe('a caller in this process', () => {
  const inProcess = (token: string, url = inProcessRelayUrl(), workflowId = 'switchyard-call-1') => ({
    ...facts('here'),
    workflowId,
    relay: { url, token, answer: true as const },
  });
  const recorded = async (): Promise<HeartbeatReceipt> => 'recorded';

  test('takes the answer directly, after it is recorded, with the same figures', async () => {
    const token = 'b'.repeat(43);
    const wait = awaitAnswer(token);
    wait.bind('switchyard-call-1');
    const order: string[] = [];
    void wait.answered.then(() => order.push('handed'));
    const taken = await createAnswerHandoff()(inProcess(token), async () => {
      order.push('recorded');
      return 'recorded';
    });
    expect(taken).toBe(true);
    const handed = await wait.answered;
    expect(order).toEqual(['recorded', 'handed']);
    expect(handed).toMatchObject({ answer: { text: 'here' }, fallbacks: 2, totalCostNanoUsd: 1_500 });
    expect(relay.batches).toHaveLength(0);
  });

  test('nobody waiting (the caller gave up, or is another process): nothing is recorded or handed over', async () => {
    const token = 'c'.repeat(43);
    let recorded = 0;
    const record = async (): Promise<HeartbeatReceipt> => {
      recorded += 1;
      return 'recorded';
    };
    const stopped = awaitAnswer(token);
    stopped.stop();
    expect(await createAnswerHandoff()(inProcess(token), record)).toBe(false);
    // Another process's caller: its URL names that process, and a waiter here under the same token is not it.
    const here = awaitAnswer(token);
    const elsewhere = `${IN_PROCESS_RELAY_ORIGIN}/another-process`;
    expect(await createAnswerHandoff()(inProcess(token, elsewhere), record)).toBe(false);
    here.stop();
    expect(recorded).toBe(0);
  });

  test("only the caller's own call's answer reaches it, also when an attempt beats its caller's start", async () => {
    const token = 'd'.repeat(43);
    const wait = awaitAnswer(token);
    // Another call naming the same token (it is in the call's input), and the caller's own, before it is bound.
    expect(await createAnswerHandoff()(inProcess(token, undefined, 'switchyard-call-other'), recorded)).toBe(
      true,
    );
    expect(await createAnswerHandoff()(inProcess(token, undefined, 'switchyard-call-own'), recorded)).toBe(
      true,
    );
    wait.bind('switchyard-call-own');
    const handed = await wait.answered;
    expect(handed.answer.text).toBe('here');
    // Bound now, and answered: no other call's answer is taken any more.
    expect(await createAnswerHandoff()(inProcess(token, undefined, 'switchyard-call-other'), recorded)).toBe(
      false,
    );

    const bound = awaitAnswer('e'.repeat(43));
    bound.bind('switchyard-call-mine');
    const other = inProcess('e'.repeat(43), undefined, 'switchyard-call-theirs');
    expect(await createAnswerHandoff()(other, recorded)).toBe(false);
    bound.stop();
  });

  test('a streamed attempt pushes no pieces to an in-process relay, and may still fail over', async () => {
    const delivered: string[] = [];
    const pusher = new RelayPusher(
      { url: inProcessRelayUrl(), token: 'f'.repeat(43), answer: true },
      { attemptId: '1', target: { provider: 'openai', model: 'gpt-test' } },
      { onDelivered: () => delivered.push('delivered'), onStopped: (reason) => delivered.push(reason) },
    );
    pusher.push({ type: 'text', text: 'a piece' });
    await pusher.flush();
    expect(pusher.callerHasOutput).toBe(false);
    expect(delivered).toEqual([]);
  });

  test('a worker that does not know in-process relays posts to a name that never resolves: nothing handed over', async () => {
    const taken = await createAnswerHandoff()(
      facts('lost', `http://nowhere.switchyard.invalid/relay`),
      async () => 'recorded',
    );
    expect(taken).toBe(false);
  });
});

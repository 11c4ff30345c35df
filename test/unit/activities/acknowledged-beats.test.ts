// Acknowledged beats: one in flight at a time, the latest details after a gap, an urgent one after the one in
// flight, and the server's news handed to the worker's own path.
import { AcknowledgedBeats } from '../../../src/activities/acknowledged-beats';
import type { AttemptHeartbeatDetails } from '../../../src/activities/attempt-types';
import type { HeartbeatReceipt } from '../../../src/activities/sending-mark';

/** A server whose receipts the test hands out one by one. */
function server() {
  const sent: AttemptHeartbeatDetails[] = [];
  const answers: ((receipt: HeartbeatReceipt) => void)[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const record = (details: AttemptHeartbeatDetails) => {
    sent.push(details);
    inFlight += 1;
    mostInFlight = Math.max(mostInFlight, inFlight);
    return new Promise<HeartbeatReceipt>((resolve) =>
      answers.push((receipt) => {
        inFlight -= 1;
        resolve(receipt);
      }),
    );
  };
  const answer = async (receipt: HeartbeatReceipt = 'recorded') => {
    answers.shift()!(receipt);
    // Let the channel see the receipt and send what waits.
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { sent, record, answer, mostInFlight: () => mostInFlight };
}

const SENDING = { sending: true } as const;
const DELIVERED = { sending: true, outputDelivered: true } as const;
const ANSWERED = {
  sending: true,
  answered: {
    latencyMs: 1,
    result: {
      text: 'x',
      toolCalls: [],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: { inputTokens: 1, cachedInputTokens: 0, outputTokens: 1, raw: {} },
      provider: 'p',
      model: 'm',
      requestId: null,
    },
  },
} satisfies AttemptHeartbeatDetails;

test('one beat in flight at a time; beats asked for meanwhile go as one, the latest', async () => {
  const fake = server();
  const beats = new AcknowledgedBeats({ record: fake.record, onNews: () => undefined, minGapMs: 0 });
  beats.beat(SENDING);
  beats.beat(SENDING);
  beats.beat(DELIVERED);
  expect(fake.sent).toEqual([SENDING]);
  await fake.answer();
  expect(fake.sent).toEqual([SENDING, DELIVERED]);
  await fake.answer();
  expect(fake.mostInFlight()).toBe(1);
});

test('an urgent beat leaves after the one in flight is answered, never beside it, and resolves to its receipt', async () => {
  const fake = server();
  const beats = new AcknowledgedBeats({ record: fake.record, onNews: () => undefined, minGapMs: 60_000 });
  beats.beat(SENDING);
  // Waits behind the gap: the urgent one replaces it.
  beats.beat(DELIVERED);
  const receipt = beats.now(ANSWERED);
  await new Promise((resolve) => setImmediate(resolve));
  expect(fake.sent).toEqual([SENDING]);
  await fake.answer();
  expect(fake.sent).toEqual([SENDING, ANSWERED]);
  await fake.answer('recorded');
  await expect(receipt).resolves.toBe('recorded');
  expect(fake.mostInFlight()).toBe(1);
  beats.stop();
});

test.each<HeartbeatReceipt>(['cancelled', 'gone'])(
  'a receipt %s is handed to the worker’s own path, with the details it answered',
  async (receipt) => {
    const fake = server();
    const news: AttemptHeartbeatDetails[] = [];
    const beats = new AcknowledgedBeats({
      record: fake.record,
      onNews: (details) => news.push(details),
      minGapMs: 0,
    });
    beats.beat(DELIVERED);
    await fake.answer(receipt);
    expect(news).toEqual([DELIVERED]);
  },
);

test('nothing leaves after stop', async () => {
  const fake = server();
  const beats = new AcknowledgedBeats({ record: fake.record, onNews: () => undefined, minGapMs: 0 });
  beats.beat(SENDING);
  beats.beat(DELIVERED);
  beats.stop();
  await fake.answer();
  beats.beat(DELIVERED);
  expect(fake.sent).toEqual([SENDING]);
});

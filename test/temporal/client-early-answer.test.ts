// The client's `answer`: a worker of the caller's own process hands the attempt's answer straight to it, ahead of
// the call's record; the call still ends with that very answer, and any other answer comes with the result.
import { RoutedCallError } from '../../src/client/errors';
import { answeredWithin, holdAttemptCompletions } from '../support/held-attempts';
import { startHarness, type Harness } from '../support/harness';

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => harness?.close());
beforeEach(() => harness.fake.reset());

const request = { messages: [{ role: 'user' as const, content: 'Say hello' }], maxOutputTokens: 64 };

test('the answer comes while the call is still running, and the call ends with it', async () => {
  harness.fake.script('gpt-primary', { kind: 'error', error: 'server_error' });
  harness.fake.script('gpt-secondary', {
    kind: 'answer',
    text: 'early hello',
    usage: { inputTokens: 10, outputTokens: 5 },
  });
  const held = holdAttemptCompletions();
  await harness.withWorker(
    async (switchyard) => {
      const route = {
        targets: [
          { provider: 'openai', model: 'gpt-primary', timeoutMs: 5_000 },
          { provider: 'openai', model: 'gpt-secondary', timeoutMs: 5_000 },
        ],
      };
      // A failed attempt completes as usual; the one with the answer is held.
      const answering = switchyard.answer({ route, request });
      const early = await answeredWithin(answering);
      expect(early).toMatchObject({
        early: true,
        answer: { text: 'early hello' },
        servedBy: { provider: 'openai', model: 'gpt-secondary' },
        fallbacks: 1,
      });
      expect(early.totalCostNanoUsd).toBeGreaterThan(0);
      const handle = switchyard.temporal.workflow.getHandle(early.workflowId);
      expect((await handle.describe()).status.name).toBe('RUNNING');
      held.release();
      const { answer, record } = await early.result();
      expect(answer).toEqual(early.answer);
      expect(record.servedBy).toMatchObject(early.servedBy!);
      expect(record.fallbacks).toBe(1);
      expect(record.totalCostNanoUsd).toBe(early.totalCostNanoUsd);
    },
    { workerOptions: held.workerOptions, eagerStart: true },
  );
});

test('without eager start too: the attempt ran in this process, so its answer comes ahead of the record', async () => {
  harness.fake.script('gpt-primary', {
    kind: 'answer',
    text: 'here',
    usage: { inputTokens: 3, outputTokens: 1 },
  });
  const held = holdAttemptCompletions();
  await harness.withWorker(
    async (switchyard) => {
      const early = await answeredWithin(switchyard.answer({ route: 'support', request }));
      expect(early).toMatchObject({ early: true, answer: { text: 'here' }, fallbacks: 0 });
      held.release();
      expect((await early.result()).answer.text).toBe('here');
    },
    { workerOptions: held.workerOptions },
  );
});

test('an answer too large to hand over comes with the result, record and all', async () => {
  const text = 'x'.repeat(300_000);
  harness.fake.script('gpt-primary', { kind: 'answer', text, usage: { inputTokens: 3, outputTokens: 1 } });
  await harness.withWorker(async (switchyard) => {
    // The fake cuts an answer at four characters a token: room for the whole text.
    const long = { ...request, maxOutputTokens: 80_000 };
    const answered = await switchyard.answer({ route: 'support', request: long });
    expect(answered).toMatchObject({ early: false, servedBy: { provider: 'openai', model: 'gpt-primary' } });
    expect(answered.answer.text).toHaveLength(300_000);
    expect((await answered.result()).record.workflowId).toBe(answered.workflowId);
  });
});

test('a call that fails rejects as generate does; a relay of the caller is refused, naming the field', async () => {
  harness.fake.script('gpt-primary', { kind: 'error', error: 'bad_request' });
  await harness.withWorker(async (switchyard) => {
    const failure = await switchyard.answer({ route: 'support', request }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RoutedCallError);
    expect((failure as RoutedCallError).record?.attempts).toHaveLength(1);
    const relay = { url: 'http://127.0.0.1:1/relay', token: 'a'.repeat(43), answer: true as const };
    await expect(switchyard.answer({ route: 'support', request, relay })).rejects.toMatchObject({
      name: 'InvalidRequestError',
      field: 'relay',
    });
  });
});

test('a streamed call through answer still fails over: pieces have no place in this process, so none went out', async () => {
  harness.fake.script('gpt-primary', { kind: 'stream_cut', afterEvents: 2 });
  harness.fake.script('gpt-secondary', {
    kind: 'answer',
    text: 'whole answer',
    usage: { inputTokens: 3, outputTokens: 2 },
  });
  const route = {
    targets: [
      { provider: 'openai', model: 'gpt-primary', timeoutMs: 5_000 },
      { provider: 'openai', model: 'gpt-secondary', timeoutMs: 5_000 },
    ],
  };
  await harness.withWorker(async (switchyard) => {
    const answered = await switchyard.answer({ route, request, stream: true });
    expect(answered).toMatchObject({
      answer: { text: 'whole answer' },
      servedBy: { provider: 'openai', model: 'gpt-secondary' },
      fallbacks: 1,
    });
  });
});

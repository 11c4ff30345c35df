// A gateway caller who leaves a stream stops the provider request at the attempt's next push, not a heartbeat
// later. The route's heartbeat timeout is a minute and the worker holds heartbeats back as long as Temporal lets
// it, so its attempt would hear of the cancellation by heartbeat only after the fake provider has streamed its
// whole answer: an answered request means the relay did not stop it.
import { eventually } from '../support/eventually';
import { startGatewayHarness, type GatewayHarness } from '../support/gateway-harness';

const SLOW_STREAM_ROUTE = 'slowbeat';
/** Long enough that a heartbeat (held back for 0.8 of it) cannot bring the cancellation before the stream ends. */
const HEARTBEAT_TIMEOUT_MS = 60_000;
/** The answer streams a word every 200 ms: 40 words take 8 s, well under the heartbeat's 48 s. */
const WORDS = 40;
const CHUNK_DELAY_MS = 200;

let harness: GatewayHarness;
beforeAll(async () => {
  harness = await startGatewayHarness({
    extraRoutes: {
      [SLOW_STREAM_ROUTE]: {
        targets: [{ provider: 'openai', model: 'gpt-primary', timeoutMs: 30_000 }],
        heartbeatTimeoutMs: HEARTBEAT_TIMEOUT_MS,
      },
    },
  });
});
afterAll(async () => harness?.close());
beforeEach(() => harness.fake.reset());

test('a caller who leaves a stream stops its provider request at the next piece; the call ends cancelled', async () => {
  const text = Array.from({ length: WORDS }, (_, index) => `word${index}`).join(' ');
  harness.fake.scriptAlways('gpt-primary', { kind: 'answer', text, chunkDelayMs: CHUNK_DELAY_MS });
  await harness.withGateway(
    async ({ openai, switchyard }) => {
      const abort = new AbortController();
      const { data: stream, response } = await openai.chat.completions
        .create(
          {
            model: SLOW_STREAM_ROUTE,
            messages: [{ role: 'user', content: 'Say many words' }],
            stream: true,
          },
          { signal: abort.signal },
        )
        .withResponse();
      const workflowId = response.headers.get('x-switchyard-workflow-id')!;
      expect(workflowId).toBeTruthy();
      let received = '';
      try {
        for await (const chunk of stream) {
          received += chunk.choices[0]?.delta?.content ?? '';
          // Leave once the first words arrived: the attempt is mid-stream at the provider.
          if (received.includes('word2')) abort.abort();
        }
      } catch {
        // The SDK reports the abort the caller asked for.
      }
      expect(abort.signal.aborted).toBe(true);

      // The provider request ended, and not with its whole answer: the attempt aborted it.
      await eventually(
        'the provider request ended',
        async () => harness.fake.counters('gpt-primary'),
        (counters) => counters.requests === 1 && counters.answered + counters.failed === 1,
        { timeoutMs: 30_000 },
      );
      expect(harness.fake.counters('gpt-primary').answered).toBe(0);

      // The attempt ended as the call's cancellation, and the call with it.
      const call = await eventually(
        'the call ended',
        () => switchyard.inspect(workflowId),
        (inspected) => inspected.status !== 'RUNNING',
        { timeoutMs: 30_000 },
      );
      expect(call.status).toBe('CANCELLED');
      expect(call.record?.attempts.map((attempt) => attempt.failureClass)).toEqual(['cancelled']);
    },
    {},
    { maxHeartbeatThrottleInterval: HEARTBEAT_TIMEOUT_MS },
  );
});

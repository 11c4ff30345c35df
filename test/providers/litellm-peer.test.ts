// The bench's LiteLLM peer lane against the fake provider: one call through the proxy reaches the fake with the
// fake's key and returns its text. Skipped unless `npm run bench:litellm:install` has made the venv.
import { BENCH_KEYS, BENCH_MODELS, BENCH_REQUEST } from '../../bench/bench-config';
import {
  createLitellmClient,
  findLitellm,
  LITELLM_MASTER_KEY,
  litellmCaller,
  startLitellmProxy,
  type LitellmProxy,
} from '../../bench/litellm';
import { fingerprintApiKey, startFakeProvider, type FakeProvider } from '../../src/fake-provider';

const found = findLitellm();
if (!found.available) process.stdout.write(`[litellm] the peer lane test is skipped: ${found.reason}\n`);

// The proxy takes several seconds to import and start, more on a busy machine.
jest.setTimeout(120_000);

let fake: FakeProvider;
let proxy: LitellmProxy | undefined;

beforeAll(async () => {
  if (!found.available) return;
  fake = await startFakeProvider();
  // Both modes' deployments on the one fake: the test needs only the 0 ms one.
  proxy = await startLitellmProxy({
    executable: found.executable,
    fakeUrls: { '0ms': fake.openaiBaseURL, '50ms': fake.openaiBaseURL },
  });
});

afterAll(async () => {
  await proxy?.stop();
  await fake?.close();
});

(found.available ? test : test.skip)(
  'one call through the proxy reaches the fake and returns its text',
  async () => {
    fake.script(BENCH_MODELS.healthy, { kind: 'answer', text: 'hello through the peer' });
    const text = await litellmCaller(createLitellmClient(proxy!.endpoint), '0ms')();

    expect(text).toBe('hello through the peer');
    const received = fake.requestsFor(BENCH_MODELS.healthy);
    expect(received).toHaveLength(1);
    // The proxy sent the deployment's own key, not the caller's master key, and the bench request's bound.
    expect(received[0]!.apiKeyFingerprint).toBe(fingerprintApiKey(BENCH_KEYS.BENCH_FAKE_KEY));
    expect(received[0]!.apiKeyFingerprint).not.toBe(fingerprintApiKey(LITELLM_MASTER_KEY));
    expect(received[0]!.path).toBe('/v1/chat/completions');
    expect(received[0]!.body).toMatchObject({
      model: BENCH_MODELS.healthy,
      messages: [{ role: 'user', content: BENCH_REQUEST.messages[0]!.content }],
      max_completion_tokens: BENCH_REQUEST.maxOutputTokens,
    });
  },
);

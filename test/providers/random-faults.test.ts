// The fake provider's seeded random fault mode over HTTP: same seed, same faults per (provider, model) request order.
import { request as httpRequest } from 'node:http';
import {
  randomFaultSequence,
  startFakeProvider,
  type FakeProvider,
  type FakeProviderKind,
  type RandomFaultKind,
} from '../../src/fake-provider';

const SEED = 7_331;
/** Hangs are cut short by the client: only the fact that nothing came back matters here. */
const HANG_ABORT_MS = 300;

let fakes: FakeProvider[] = [];

afterEach(async () => {
  await Promise.all(fakes.map((fake) => fake.close()));
  fakes = [];
});

async function startFake(): Promise<FakeProvider> {
  const fake = await startFakeProvider();
  fakes.push(fake);
  return fake;
}

/** What came back for one request: an HTTP status (and whether its body parsed), or no response at all. */
type Observed = { status: number; parsed: boolean } | 'no response';

/** One POST on a fresh connection (no keep-alive: a reused socket the fake just dropped would lose the request). */
function post(url: string, body: unknown): Promise<Observed> {
  return new Promise((resolve) => {
    const request = httpRequest(
      url,
      {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' },
        timeout: HANG_ABORT_MS,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', () => resolve('no response'));
        response.on('end', () => {
          let parsed = true;
          try {
            JSON.parse(Buffer.concat(chunks).toString('utf8'));
          } catch {
            parsed = false;
          }
          resolve({ status: response.statusCode ?? 0, parsed });
        });
      },
    );
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve('no response'));
    request.end(JSON.stringify(body));
  });
}

function send(fake: FakeProvider, provider: FakeProviderKind, model: string): Promise<Observed> {
  return provider === 'openai'
    ? post(`${fake.url}/v1/chat/completions`, {
        model,
        messages: [{ role: 'user', content: 'ping' }],
        max_tokens: 20,
      })
    : post(`${fake.url}/v1/messages`, {
        model,
        max_tokens: 20,
        messages: [{ role: 'user', content: 'ping' }],
      });
}

/** What each kind must look like on the wire (the renderings themselves are covered by the fault tests). */
function looksLike(kind: RandomFaultKind, provider: FakeProviderKind, observed: Observed): boolean {
  if (kind === 'hang' || kind === 'reset') return observed === 'no response';
  if (observed === 'no response') return false;
  switch (kind) {
    case 'answer':
    case 'refusal':
      return observed.status === 200 && observed.parsed;
    case 'invalid_json':
      return observed.status === 200 && !observed.parsed;
    case 'rate_limited':
      return observed.status === 429;
    case 'server_error':
      return observed.status === 500;
    case 'bad_gateway':
      return observed.status === 502;
    case 'overloaded':
      return observed.status === (provider === 'openai' ? 503 : 529);
  }
}

const MODELS: readonly (readonly [FakeProviderKind, string])[] = [
  ['openai', 'gpt-a'],
  ['anthropic', 'claude-a'],
];
/** Every kind shows up often enough in a short run. */
const WEIGHTS = {
  answer: 4,
  rate_limited: 1,
  server_error: 1,
  bad_gateway: 1,
  overloaded: 1,
  hang: 1,
  reset: 1,
  refusal: 1,
  invalid_json: 1,
};
const REQUESTS_PER_MODEL = 40;
/** Each hang costs {@link HANG_ABORT_MS}, one after another; the machine may be busy. */
const SEQUENCE_TEST_TIMEOUT_MS = 60_000;

test(
  'two fakes with the same seed serve the same faults per (provider, model), whatever the interleaving',
  async () => {
    const [first, second] = [await startFake(), await startFake()];
    first.randomFaults({ seed: SEED, weights: WEIGHTS });
    second.randomFaults({ seed: SEED, weights: WEIGHTS });
    const observed = new Map<string, Observed[]>();
    // The first fake gets the models interleaved and in parallel pairs; the second one model after the other.
    for (let index = 0; index < REQUESTS_PER_MODEL; index += 1) {
      const answers = await Promise.all(MODELS.map(([provider, model]) => send(first, provider, model)));
      MODELS.forEach(([provider, model], position) => {
        const key = `${provider}/${model}`;
        observed.set(key, [...(observed.get(key) ?? []), answers[position]!]);
      });
    }
    for (const [provider, model] of [...MODELS].reverse()) {
      for (let index = 0; index < REQUESTS_PER_MODEL; index += 1) await send(second, provider, model);
    }

    for (const [provider, model] of MODELS) {
      const expected = randomFaultSequence(
        { seed: SEED, weights: WEIGHTS },
        provider,
        model,
        REQUESTS_PER_MODEL,
      );
      expect(first.randomFaultsServed(provider, model)).toEqual(expected);
      expect(second.randomFaultsServed(provider, model)).toEqual(expected);
      expect(new Set(expected).size).toBeGreaterThanOrEqual(6);
      // Each request got what its draw says, and the log names the random source.
      const answers = observed.get(`${provider}/${model}`)!;
      const mismatches = expected
        .map((kind, index) => ({ index, kind, observed: answers[index]! }))
        .filter(({ kind, observed: answer }) => !looksLike(kind, provider, answer));
      expect(mismatches).toEqual([]);
      expect(first.requestsFor(model).map((request) => request.scenarioSource)).toEqual(
        Array.from({ length: REQUESTS_PER_MODEL }, () => 'random'),
      );
    }
  },
  SEQUENCE_TEST_TIMEOUT_MS,
);

test('scripts claim a request before the random stream, without consuming a draw; reset ends random faults', async () => {
  const fake = await startFake();
  fake.randomFaults({ seed: SEED, weights: WEIGHTS, models: ['gpt-a'] });
  fake.script('gpt-a', { kind: 'error', error: 'not_found' });
  expect(await send(fake, 'openai', 'gpt-a')).toEqual({ status: 404, parsed: true });
  for (let index = 0; index < 5; index += 1) await send(fake, 'openai', 'gpt-a');
  // A model outside `models` gets the default answer.
  expect(await send(fake, 'openai', 'gpt-b')).toEqual({ status: 200, parsed: true });
  expect(fake.randomFaultsServed('openai', 'gpt-a')).toEqual(
    randomFaultSequence({ seed: SEED, weights: WEIGHTS }, 'openai', 'gpt-a', 5),
  );
  expect(fake.requestsFor('gpt-b')[0]?.scenarioSource).toBe('default');

  fake.reset();
  expect(await send(fake, 'openai', 'gpt-a')).toEqual({ status: 200, parsed: true });
  expect(fake.requestsFor('gpt-a')[0]?.scenarioSource).toBe('default');
  expect(fake.randomFaultsServed('openai', 'gpt-a')).toEqual([]);
});

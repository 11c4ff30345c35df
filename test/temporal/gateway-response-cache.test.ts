// The response cache over HTTP: a cached route's second identical request is a free hit, told in
// x-switchyard-cache; the x-switchyard-cache request header turns the cache on or off for one call.
import { startGatewayHarness, type GatewayHarness } from '../support/gateway-harness';

let harness: GatewayHarness;
beforeAll(async () => {
  harness = await startGatewayHarness({
    extraRoutes: {
      cached: {
        targets: [{ provider: 'openai', model: 'gpt-primary', timeoutMs: 10_000 }],
        cache: { ttlMs: 60_000 },
      },
    },
  });
});
afterAll(async () => harness?.close());
beforeEach(() => harness.fake.reset());

const messages = [{ role: 'user', content: 'What is a durable timer?' }];

test('a cached route answers the second identical request from the cache; the header opts a call in or out', async () => {
  harness.fake.scriptAlways('gpt-primary', { kind: 'answer', text: 'a timer that survives restarts' });
  await harness.withGateway(async ({ gateway, key }) => {
    const ask = (model: string, headers: Record<string, string> = {}) =>
      fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ model, messages }),
      });
    const miss = await ask('cached');
    const hit = await ask('cached');
    const hitBody = (await hit.json()) as {
      choices: { message: { content: string } }[];
      switchyard: { cache?: string; cost_usd?: number };
    };
    expect(miss.headers.get('x-switchyard-cache')).toBe('miss');
    expect(hit.status).toBe(200);
    expect(hit.headers.get('x-switchyard-cache')).toBe('hit');
    expect(hit.headers.get('x-switchyard-cost-usd')).toBe('0.000000000');
    expect(hit.headers.get('x-switchyard-served-by')).toBe('openai/gpt-primary');
    expect(hitBody.choices[0]!.message.content).toBe('a timer that survives restarts');
    expect(hitBody.switchyard).toMatchObject({ cache: 'hit', cost_usd: 0 });
    expect(harness.fake.counters('gpt-primary').requests).toBe(1);

    // Off for one call on the cached route: no cache header, a request sent.
    const off = await ask('cached', { 'x-switchyard-cache': 'off' });
    expect(off.status).toBe(200);
    expect(off.headers.get('x-switchyard-cache')).toBeNull();
    expect(harness.fake.counters('gpt-primary').requests).toBe(2);

    // On for one call on a route without a cache, with a TTL in seconds.
    const first = await ask('support', { 'x-switchyard-cache': '120' });
    const again = await ask('support', { 'x-switchyard-cache': 'on' });
    expect([first.headers.get('x-switchyard-cache'), again.headers.get('x-switchyard-cache')]).toEqual([
      'miss',
      'hit',
    ]);
    expect(harness.fake.counters('gpt-primary').requests).toBe(3);

    const refused = await ask('cached', { 'x-switchyard-cache': 'always' });
    const refusal = (await refused.json()) as { error: { message: string; param?: string } };
    expect(refused.status).toBe(400);
    expect(refusal.error.param).toBe('x-switchyard-cache');
    expect(harness.fake.counters('gpt-primary').requests).toBe(3);
  });
});

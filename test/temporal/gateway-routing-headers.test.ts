// The x-switchyard-require and x-switchyard-prefer request headers over HTTP: a requirement rejects a target
// before anything is sent to it (the record's explanation names it), and a bad header is refused naming it.
import { startGatewayHarness, type GatewayHarness } from '../support/gateway-harness';
import { TEST_PRICES } from '../support/test-config';

let harness: GatewayHarness;
beforeAll(async () => {
  harness = await startGatewayHarness({
    extraProviders: (fake) => ({
      plain: {
        kind: 'openai',
        apiKeyEnv: 'OPENAI_TEST_KEY',
        baseURL: fake.openaiBaseURL,
        models: { 'gpt-no-tools': { ...TEST_PRICES, supports: { tools: false } } },
      },
    }),
    extraRoutes: {
      toolish: {
        targets: [
          { provider: 'plain', model: 'gpt-no-tools', timeoutMs: 10_000 },
          { provider: 'openai', model: 'gpt-primary', timeoutMs: 10_000 },
        ],
      },
    },
  });
});
afterAll(async () => harness?.close());
beforeEach(() => harness.fake.reset());

const messages = [{ role: 'user', content: 'What is the weather in Oslo?' }];

interface AuditBody {
  readonly explanation?: {
    readonly rejected: readonly { readonly candidate: string; readonly reason: string }[];
  };
}

test('x-switchyard-require skips a target without the capability; a bad header is a 400 naming it', async () => {
  harness.fake.scriptAlways('gpt-no-tools', { kind: 'answer', text: 'from the first target' });
  harness.fake.scriptAlways('gpt-primary', { kind: 'answer', text: 'from the second target' });
  await harness.withGateway(async ({ gateway, key }) => {
    const ask = (headers: Record<string, string> = {}) =>
      fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ model: 'toolish', messages }),
      });

    // Without the header the route's first target answers.
    const plain = await ask();
    expect(plain.status).toBe(200);
    expect(plain.headers.get('x-switchyard-served-by')).toBe('plain/gpt-no-tools');

    const required = await ask({ 'x-switchyard-require': '{"capabilities":["tools"]}' });
    expect(required.status).toBe(200);
    expect(required.headers.get('x-switchyard-served-by')).toBe('openai/gpt-primary');
    expect(required.headers.get('x-switchyard-fallbacks')).toBe('0');
    expect(harness.fake.counters('gpt-no-tools').requests).toBe(1);
    const id = required.headers.get('x-switchyard-workflow-id')!;
    const audit = await fetch(`${gateway.url}/v1/generation?id=${encodeURIComponent(id)}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const explanation = ((await audit.json()) as AuditBody).explanation;
    expect(explanation?.rejected.map((verdict) => verdict.candidate)).toEqual(['plain/gpt-no-tools']);

    for (const [name, value] of [
      ['x-switchyard-require', '{"capabilities":["video"]}'],
      ['x-switchyard-prefer', 'fastest'],
    ] as const) {
      const refused = await ask({ [name]: value });
      const refusal = (await refused.json()) as { error: { message: string; param?: string } };
      expect(refused.status).toBe(400);
      expect(refusal.error.param).toBe(name);
    }
    // The plan endpoint reads the same headers and refuses the same way.
    const plan = await fetch(`${gateway.url}/v1/route`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'x-switchyard-require': '{"maxLatencyMs":0}',
      },
      body: JSON.stringify({ model: 'toolish', messages }),
    });
    expect(plan.status).toBe(400);
    expect(((await plan.json()) as { error: { param?: string } }).error.param).toBe('x-switchyard-require');
    expect(
      harness.fake.counters('gpt-no-tools').requests + harness.fake.counters('gpt-primary').requests,
    ).toBe(2);
  });
});

// The gateway and routes changed at runtime (dev server): a route set at runtime is called, listed and planned with
// its runtime spec within the refresh interval, and once deleted (a config route too) it is refused as unknown.
import { startGatewayHarness, type GatewayHarness } from '../support/gateway-harness';
import { eventually } from '../support/eventually';

/** The gateway and the workers read the registry again after this long (milliseconds); the default is 2 s. */
const REFRESH_MS = 300;

let harness: GatewayHarness;
const savedRefresh = process.env.SWITCHYARD_ROUTE_REFRESH_MS;
beforeAll(async () => {
  // The worker and the gateway both read the refresh interval from the environment.
  process.env.SWITCHYARD_ROUTE_REFRESH_MS = String(REFRESH_MS);
  harness = await startGatewayHarness();
});
afterAll(async () => {
  if (savedRefresh === undefined) delete process.env.SWITCHYARD_ROUTE_REFRESH_MS;
  else process.env.SWITCHYARD_ROUTE_REFRESH_MS = savedRefresh;
  await harness?.close();
});
beforeEach(() => harness.fake.reset());

const hello = [{ role: 'user' as const, content: 'Say hello' }];
const onClaudeSecondary = {
  targets: [{ provider: 'anthropic', model: 'claude-secondary', timeoutMs: 10_000 }],
};
const onGptSecondary = { targets: [{ provider: 'openai', model: 'gpt-secondary', timeoutMs: 10_000 }] };

interface Reply {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

async function send(url: string, key: string, path: string, body?: unknown): Promise<Reply> {
  const response = await fetch(`${url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const chat = (url: string, key: string, model: string) =>
  send(url, key, '/v1/chat/completions', { model, messages: hello, max_tokens: 64 });

const modelIds = async (url: string, key: string): Promise<string[]> =>
  ((await send(url, key, '/v1/models')).body.data as { id: string }[]).map((model) => model.id);

const errorCode = (reply: Reply) => (reply.body.error as { code?: string } | undefined)?.code;

test('a route set at runtime is called, listed and planned through the gateway; deleted, it is a 404 again', async () => {
  harness.fake.script('claude-secondary', { kind: 'answer', text: 'from the runtime route' });
  await harness.withGateway(async ({ gateway, switchyard, makeKey }) => {
    const name = 'gateway-live';
    // A key that lists only the runtime route, as a key file would name it.
    const key = makeKey({ routes: [name] });

    // Not set yet: unknown, and not listed.
    const before = await chat(gateway.url, key, name);
    expect(before.status).toBe(404);
    expect(errorCode(before)).toBe('model_not_found');
    expect(await modelIds(gateway.url, key)).toEqual([]);

    await switchyard.routes.set(name, onClaudeSecondary, { by: 'gateway-test' });
    const served = await eventually(
      'the runtime route answering through Chat Completions',
      () => chat(gateway.url, key, name),
      (reply) => reply.status === 200,
    );
    const choices = served.body.choices as { message: { content: string } }[];
    expect(choices[0]!.message.content).toBe('from the runtime route');
    expect(harness.fake.counters('claude-secondary').requests).toBe(1);
    expect(await modelIds(gateway.url, key)).toEqual([name]);

    // The plan reads the runtime spec, and sends nothing.
    const planned = await send(gateway.url, key, '/v1/route', {
      model: name,
      messages: hello,
      max_tokens: 64,
    });
    expect(planned.status).toBe(200);
    expect(planned.body.route).toBe(name);
    expect(planned.body.attempts).toMatchObject([{ provider: 'anthropic', model: 'claude-secondary' }]);
    expect(harness.fake.counters('claude-secondary').requests).toBe(1);

    await switchyard.routes.delete(name, { by: 'gateway-test' });
    const gone = await eventually(
      'the deleted route refused',
      () => chat(gateway.url, key, name),
      (reply) => reply.status !== 200,
    );
    expect(gone.status).toBe(404);
    expect(errorCode(gone)).toBe('model_not_found');
    expect((gone.body.error as { message: string }).message).toBe(`model: no route named "${name}"`);
    expect(await modelIds(gateway.url, key)).toEqual([]);
    expect(harness.fake.counters('claude-secondary').requests).toBe(1);
  });
});

test('a config route overridden at runtime is planned and served with its runtime spec; deleted, it is refused like an unknown one', async () => {
  harness.fake.script('gpt-secondary', { kind: 'answer', text: 'from the override' });
  await harness.withGateway(async ({ gateway, switchyard, key }) => {
    // `reverse` starts on claude-secondary in the config; the override puts it on gpt-secondary.
    await switchyard.routes.set('reverse', onGptSecondary, { by: 'gateway-test' });
    const planned = await eventually(
      'the override in the plan',
      () => send(gateway.url, key, '/v1/route', { model: 'reverse', messages: hello, max_tokens: 64 }),
      (reply) => reply.status === 200 && JSON.stringify(reply.body.attempts).includes('gpt-secondary'),
    );
    expect(planned.body.attempts).toMatchObject([{ provider: 'openai', model: 'gpt-secondary' }]);
    // The worker picks the override up within its own refresh interval; until then it may serve the config's spec.
    const served = await eventually(
      'the override serving the call',
      () => chat(gateway.url, key, 'reverse'),
      (reply) => reply.status === 200 && reply.body.model === 'gpt-secondary',
    );
    const choices = served.body.choices as { message: { content: string } }[];
    expect(choices[0]!.message.content).toBe('from the override');

    // A config route hidden at runtime: the all-routes key gets the same 404 as for a name never configured.
    expect(await modelIds(gateway.url, key)).toContain('fragile');
    await switchyard.routes.delete('fragile', { by: 'gateway-test' });
    const refused = await eventually(
      'the hidden config route refused',
      () => chat(gateway.url, key, 'fragile'),
      (reply) => reply.status === 404,
    );
    // Until the gateway saw the deletion a call may have got through; none does once it has.
    const fragileRequests = harness.fake.counters('gpt-fragile').requests;
    const unknown = await chat(gateway.url, key, 'never-configured');
    expect(unknown.status).toBe(404);
    expect(refused.body).toEqual({
      ...unknown.body,
      error: {
        ...(unknown.body.error as object),
        message: 'model: no route named "fragile"',
      },
    });
    expect(await modelIds(gateway.url, key)).not.toContain('fragile');
    const plannedHidden = await send(gateway.url, key, '/v1/route', {
      model: 'fragile',
      messages: hello,
      max_tokens: 64,
    });
    expect(plannedHidden.status).toBe(404);
    expect(errorCode(plannedHidden)).toBe('model_not_found');
    expect(harness.fake.counters('gpt-fragile').requests).toBe(fragileRequests);
  });
});

// The fake provider itself, over plain fetch: scripting, outages, wire shapes, request log and shutdown.
import {
  SCENARIO_HEADER,
  fingerprintApiKey,
  startFakeProvider,
  type FakeProvider,
  type FakeScenario,
} from '../../src/fake-provider';

let fake: FakeProvider;

beforeAll(async () => {
  fake = await startFakeProvider();
});

afterEach(() => fake.reset());

afterAll(async () => {
  await fake.close();
});

interface CallOptions {
  readonly model?: string;
  readonly stream?: boolean;
  readonly scenario?: FakeScenario | string;
  readonly body?: Record<string, unknown>;
}

function openAIBody(options: CallOptions): Record<string, unknown> {
  return {
    model: options.model ?? 'gpt-fake',
    messages: [{ role: 'user', content: 'ping' }],
    max_completion_tokens: 50,
    ...(options.stream ? { stream: true, stream_options: { include_usage: true } } : {}),
    ...options.body,
  };
}

function anthropicBody(options: CallOptions): Record<string, unknown> {
  return {
    model: options.model ?? 'claude-fake',
    max_tokens: 50,
    messages: [{ role: 'user', content: 'ping' }],
    ...(options.stream ? { stream: true } : {}),
    ...options.body,
  };
}

function post(path: string, body: unknown, options: CallOptions, headers: Record<string, string>) {
  const scenario = options.scenario;
  return fetch(`${fake.url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...headers,
      ...(scenario !== undefined
        ? { [SCENARIO_HEADER]: typeof scenario === 'string' ? scenario : JSON.stringify(scenario) }
        : {}),
    },
    body: JSON.stringify(body),
  });
}

const callOpenAI = (options: CallOptions = {}) =>
  post('/v1/chat/completions', openAIBody(options), options, { authorization: 'Bearer sk-fake-openai-key' });
const callAnthropic = (options: CallOptions = {}) =>
  post('/v1/messages', anthropicBody(options), options, { 'x-api-key': 'sk-ant-fake-key' });

describe('scripting', () => {
  it('serves queued scenarios once each, in order, then the default answer', async () => {
    fake.script('gpt-fake', [
      { kind: 'error', error: 'server_error' },
      { kind: 'error', error: 'rate_limited' },
    ]);
    expect((await callOpenAI()).status).toBe(500);
    expect((await callOpenAI()).status).toBe(429);
    const answer = await callOpenAI();
    expect(answer.status).toBe(200);
    expect(
      ((await answer.json()) as { choices: { message: { content: string } }[] }).choices[0]?.message.content,
    ).toBe('Echo: ping');
  });

  it('repeats a scenario `times` times ("fail N times, then succeed")', async () => {
    fake.script('gpt-fake', { kind: 'error', error: 'server_error' }, { times: 3 });
    const statuses = [];
    for (let index = 0; index < 4; index += 1) statuses.push((await callOpenAI()).status);
    expect(statuses).toEqual([500, 500, 500, 200]);
    expect(fake.counters('gpt-fake')).toEqual({ requests: 4, answered: 1, failed: 3 });
  });

  it('serves a standing scenario to every request once the queue is empty', async () => {
    fake.scriptAlways('gpt-fake', { kind: 'error', error: 'not_found' });
    fake.script('gpt-fake', { kind: 'answer', text: 'queued first' });
    expect((await callOpenAI()).status).toBe(200);
    expect((await callOpenAI()).status).toBe(404);
    expect((await callOpenAI()).status).toBe(404);
  });

  it('applies `*` scripts to every model without its own script', async () => {
    fake.scriptAlways('*', { kind: 'error', error: 'overloaded' });
    fake.scriptAlways('claude-special', { kind: 'answer', text: 'special' });
    expect((await callAnthropic()).status).toBe(529);
    expect((await callAnthropic({ model: 'claude-special' })).status).toBe(200);
  });

  it('lets a request header override every script', async () => {
    fake.scriptAlways('gpt-fake', { kind: 'error', error: 'server_error' });
    const response = await callOpenAI({ scenario: { kind: 'error', error: 'permission' } });
    expect(response.status).toBe(403);
    expect(fake.requests[0]?.scenarioSource).toBe('header');
  });

  it('answers an invalid scenario header with a 400 in the provider shape', async () => {
    const response = await callAnthropic({ scenario: '{"kind":"explode"}' });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { type: string; error: { type: string; message: string } };
    expect(body.type).toBe('error');
    expect(body.error.type).toBe('invalid_request_error');
    expect(body.error.message).toContain(SCENARIO_HEADER);
  });

  it('rejects an invalid scripted scenario when it is scripted', () => {
    expect(() =>
      fake.script('gpt-fake', { kind: 'error', error: 'no_such_error' } as unknown as FakeScenario),
    ).toThrow();
  });
});

describe('outages', () => {
  it('fails every request for the model until recover()', async () => {
    fake.script('claude-fake', { kind: 'answer', text: 'queued' });
    fake.outage('claude-fake');
    expect((await callAnthropic()).status).toBe(529);
    expect((await callAnthropic()).status).toBe(529);
    expect((await callOpenAI({ model: 'other-model' })).status).toBe(200);
    fake.recover('claude-fake');
    const after = (await (await callAnthropic()).json()) as { content: { text: string }[] };
    expect(after.content[0]?.text).toBe('queued');
  });

  it('honours the outage window and its scenario', async () => {
    fake.outage('gpt-fake', { until: Date.now() - 1 });
    expect((await callOpenAI()).status).toBe(200);
    fake.outage('gpt-fake', { from: Date.now() + 60_000 });
    expect((await callOpenAI()).status).toBe(200);
    fake.outage('gpt-fake', { scenario: { kind: 'error', error: 'gateway_timeout' } });
    expect((await callOpenAI()).status).toBe(504);
  });
});

describe('wire shapes', () => {
  it('sends OpenAI error bodies, the x-request-id header and retry headers', async () => {
    const response = await callOpenAI({
      scenario: { kind: 'error', error: 'insufficient_quota', retryAfterSeconds: 4, retryAfterMs: 3_500 },
    });
    expect(response.status).toBe(429);
    expect(response.headers.get('x-request-id')).toBe(fake.requests[0]?.requestId);
    expect(response.headers.get('retry-after')).toBe('4');
    expect(response.headers.get('retry-after-ms')).toBe('3500');
    expect(await response.json()).toEqual({
      error: {
        message: expect.any(String),
        type: 'insufficient_quota',
        param: null,
        code: 'insufficient_quota',
      },
    });
  });

  it('sends Anthropic error bodies and the request-id header', async () => {
    const response = await callAnthropic({ scenario: { kind: 'error', error: 'context_overflow' } });
    expect(response.status).toBe(400);
    expect(response.headers.get('request-id')).toBe(fake.requests[0]?.requestId);
    expect(await response.json()).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.stringMatching(/^prompt is too long/) },
      request_id: fake.requests[0]?.requestId,
    });
  });

  it('sends OpenAI context overflow with code context_length_exceeded', async () => {
    const response = await callOpenAI({ scenario: { kind: 'error', error: 'context_overflow' } });
    const body = (await response.json()) as { error: { code: string; type: string } };
    expect(response.status).toBe(400);
    expect(body.error).toMatchObject({ code: 'context_length_exceeded', type: 'invalid_request_error' });
  });

  it('requires max_tokens on Anthropic requests, as the real API does', async () => {
    const response = await post(
      '/v1/messages',
      { model: 'claude-fake', messages: [{ role: 'user', content: 'x' }] },
      {},
      {},
    );
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain('max_tokens');
  });

  it('streams OpenAI chunks ending with a usage chunk and [DONE]', async () => {
    const text = await (await callOpenAI({ stream: true })).text();
    const data = text
      .split('\n\n')
      .filter((block) => block.startsWith('data: '))
      .map((block) => block.slice('data: '.length));
    expect(data.at(-1)).toBe('[DONE]');
    const chunks = data
      .slice(0, -1)
      .map((json) => JSON.parse(json) as { choices: unknown[]; usage: unknown });
    expect(chunks.at(-1)?.choices).toEqual([]);
    expect(chunks.at(-1)?.usage).toMatchObject({ prompt_tokens: expect.any(Number) });
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);
  });

  it('streams Anthropic events in the real order', async () => {
    const text = await (await callAnthropic({ stream: true })).text();
    const events = [...text.matchAll(/^event: (\w+)$/gm)].map((match) => match[1]);
    expect(events[0]).toBe('message_start');
    expect(events).toContain('content_block_delta');
    expect(events.slice(-2)).toEqual(['message_delta', 'message_stop']);
  });

  it('leaves the final events out of a stream_no_final_event stream', async () => {
    const text = await (
      await callAnthropic({ stream: true, scenario: { kind: 'stream_no_final_event' } })
    ).text();
    expect(text).toContain('event: content_block_delta');
    expect(text).not.toContain('event: message_stop');
  });
});

describe('request log, counters and billing', () => {
  it('records requests with credentials redacted and fingerprinted', async () => {
    await callOpenAI();
    await callAnthropic();
    const [openai, anthropic] = fake.requests;
    expect(openai).toMatchObject({
      provider: 'openai',
      model: 'gpt-fake',
      scenario: 'default',
      scenarioSource: 'default',
    });
    expect(openai?.headers.authorization).toBe('[redacted]');
    expect(openai?.apiKeyFingerprint).toBe(fingerprintApiKey('sk-fake-openai-key'));
    expect(anthropic?.headers['x-api-key']).toBe('[redacted]');
    expect(anthropic?.apiKeyFingerprint).toBe(fingerprintApiKey('sk-ant-fake-key'));
    expect(JSON.stringify(fake.requests)).not.toContain('sk-fake-openai-key');
    expect((anthropic?.body as { max_tokens: number }).max_tokens).toBe(50);
  });

  it('bills usage of complete answers only', async () => {
    await callOpenAI({
      scenario: { kind: 'answer', usage: { inputTokens: 11, cachedInputTokens: 5, outputTokens: 3 } },
    });
    await callOpenAI({ scenario: { kind: 'error', error: 'server_error' } });
    await (await callOpenAI({ stream: true, scenario: { kind: 'stream_no_final_event' } })).text();
    expect(fake.billed('gpt-fake')).toEqual({
      answers: 1,
      inputTokens: 11,
      cachedInputTokens: 5,
      outputTokens: 3,
    });
  });

  it('reset() forgets requests, counters and scripts', async () => {
    fake.scriptAlways('gpt-fake', { kind: 'error', error: 'server_error' });
    await callOpenAI();
    fake.reset();
    expect(fake.requests).toHaveLength(0);
    expect(fake.counters('gpt-fake')).toEqual({ requests: 0, answered: 0, failed: 0 });
    expect((await callOpenAI()).status).toBe(200);
  });
});

describe('shutdown', () => {
  it('close() ends hung requests instead of waiting for them', async () => {
    const own = await startFakeProvider();
    own.scriptAlways('*', { kind: 'hang' });
    const hung = fetch(`${own.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(openAIBody({})),
    });
    while (own.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await own.close();
    await expect(hung).rejects.toThrow();
  });

  it('close() ends a long scripted delay', async () => {
    const own = await startFakeProvider({ latencyMs: 60_000 });
    const delayed = fetch(`${own.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(anthropicBody({})),
    });
    while (own.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await own.close();
    await expect(delayed).rejects.toThrow();
  });
});

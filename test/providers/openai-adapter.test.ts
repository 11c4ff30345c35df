// The OpenAI adapter over real HTTP against the fake provider: answers, streaming, tools, usage, what was sent.
import { fingerprintApiKey, startFakeProvider, type FakeProvider } from '../../src/fake-provider';
import { GenerationRequestSchema } from '../../src/config/request';
import { createProvider } from '../../src/providers';
import { OPENAI_KEY, REQUEST, captureFailure } from './provider-fixtures';

const MODEL = 'gpt-test';
const OPTIONS = { timeoutMs: 5_000 } as const;

let fake: FakeProvider;

beforeAll(async () => {
  fake = await startFakeProvider();
});

afterEach(() => fake.reset());

afterAll(async () => {
  await fake.close();
});

function openai(kind: 'openai' | 'openai-compatible' = 'openai', apiKey = OPENAI_KEY) {
  return createProvider({
    name: kind === 'openai' ? 'openai' : 'local-llm',
    kind,
    apiKey,
    baseURL: fake.openaiBaseURL,
  });
}

function onlyRequestBody(): Record<string, unknown> {
  const received = fake.requestsFor(MODEL);
  expect(received).toHaveLength(1);
  return received[0]?.body as Record<string, unknown>;
}

describe('OpenAI adapter', () => {
  it('returns a normalized answer with usage and the request id', async () => {
    const result = await openai().generate(MODEL, REQUEST, OPTIONS);
    const [received] = fake.requestsFor(MODEL);
    expect(result).toMatchObject({
      text: 'Echo: Say hello to the switchyard.',
      toolCalls: [],
      finishReason: { unified: 'stop', raw: 'stop' },
      provider: 'openai',
      model: MODEL,
      requestId: received?.requestId,
    });
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(result.usage.outputTokens).toBeGreaterThan(0);
    expect(fake.billed(MODEL)).toMatchObject({
      answers: 1,
      inputTokens: result.usage.inputTokens,
      outputTokens: result.usage.outputTokens,
    });
  });

  it('sends max_completion_tokens, the system prompt as the first message and the key as a bearer token', async () => {
    await openai().generate(MODEL, REQUEST, OPTIONS);
    const body = onlyRequestBody();
    expect(body.max_completion_tokens).toBe(200);
    expect(body).not.toHaveProperty('max_tokens');
    expect(body.messages).toEqual([
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Say hello to the switchyard.' },
    ]);
    const [received] = fake.requestsFor(MODEL);
    expect(received?.path).toBe('/v1/chat/completions');
    expect(received?.headers.authorization).toBe('[redacted]');
    expect(received?.apiKeyFingerprint).toBe(fingerprintApiKey(OPENAI_KEY));
  });

  it('sends max_tokens to an openai-compatible server', async () => {
    await openai('openai-compatible').generate(MODEL, REQUEST, OPTIONS);
    const body = onlyRequestBody();
    expect(body.max_tokens).toBe(200);
    expect(body).not.toHaveProperty('max_completion_tokens');
  });

  it('stops at the sent bound: a long echo with a small maxOutputTokens finishes with length', async () => {
    const small = GenerationRequestSchema.parse({ ...REQUEST, maxOutputTokens: 2 });
    const result = await openai().generate(MODEL, small, OPTIONS);
    expect(result.finishReason).toEqual({ unified: 'length', raw: 'length' });
    expect(result.text.length).toBeLessThanOrEqual(8);
  });

  it('streams: accumulates deltas, reports progress per chunk and asks for usage in the stream', async () => {
    let progress = 0;
    const result = await openai().generate(MODEL, REQUEST, {
      ...OPTIONS,
      stream: true,
      onProgress: () => (progress += 1),
    });
    expect(result.text).toBe('Echo: Say hello to the switchyard.');
    expect(result.finishReason.unified).toBe('stop');
    expect(progress).toBeGreaterThan(2);
    const body = onlyRequestBody();
    expect(body.stream).toBe(true);
    expect(body.stream_options).toEqual({ include_usage: true });
    expect(result.usage).toMatchObject({
      inputTokens: fake.billed(MODEL).inputTokens,
      outputTokens: fake.billed(MODEL).outputTokens,
    });
    expect(result.usage.outputTokens).toBeGreaterThan(0);
    expect(result.requestId).toBe(fake.requestsFor(MODEL)[0]?.requestId);
  });

  it.each([false, true])('returns tool calls and sends tools as functions (stream: %p)', async (stream) => {
    fake.script(MODEL, {
      kind: 'answer',
      toolCalls: [{ name: 'lookup', arguments: { city: 'Oslo', days: 2 } }],
    });
    const withTools = GenerationRequestSchema.parse({
      ...REQUEST,
      tools: [{ name: 'lookup', description: 'Weather', parameters: { type: 'object', properties: {} } }],
    });
    const result = await openai().generate(MODEL, withTools, { ...OPTIONS, stream });
    expect(result.finishReason).toEqual({ unified: 'tool_calls', raw: 'tool_calls' });
    expect(result.toolCalls).toEqual([
      { id: expect.stringMatching(/^call_/), name: 'lookup', arguments: '{"city":"Oslo","days":2}' },
    ]);
    expect(onlyRequestBody().tools).toEqual([
      {
        type: 'function',
        function: { name: 'lookup', description: 'Weather', parameters: { type: 'object', properties: {} } },
      },
    ]);
  });

  it.each([false, true])('splits cached input tokens out of prompt_tokens (stream: %p)', async (stream) => {
    fake.script(MODEL, {
      kind: 'answer',
      text: 'ok',
      usage: { inputTokens: 100, cachedInputTokens: 40, outputTokens: 7 },
    });
    const result = await openai().generate(MODEL, REQUEST, { ...OPTIONS, stream });
    expect(result.usage).toMatchObject({ inputTokens: 100, cachedInputTokens: 40, outputTokens: 7 });
    expect(result.usage.raw).toMatchObject({
      prompt_tokens: 140,
      prompt_tokens_details: { cached_tokens: 40 },
    });
  });

  it('keeps the request id and billed usage on a refusal', async () => {
    fake.script(MODEL, { kind: 'refusal', text: 'I will not do that.' });
    const failure = await captureFailure(openai().generate(MODEL, REQUEST, OPTIONS));
    expect(failure.failureClass).toBe('refused');
    expect(failure.details.requestId).toBe(fake.requestsFor(MODEL)[0]?.requestId);
    expect(failure.details.usage?.outputTokens).toBe(fake.billed(MODEL).outputTokens);
    expect(failure.message).not.toContain('I will not do that');
  });

  it('a wrong key gets the real 401, whose echo of the key never reaches the error', async () => {
    const strict = await startFakeProvider({ requiredApiKey: 'sk-the-right-key' });
    try {
      const provider = createProvider({
        name: 'openai',
        kind: 'openai',
        apiKey: OPENAI_KEY,
        baseURL: strict.openaiBaseURL,
      });
      const failure = await captureFailure(provider.generate(MODEL, REQUEST, OPTIONS));
      expect(failure.failureClass).toBe('authentication');
      expect(failure.details.providerCode).toBe('invalid_api_key');
      const serialized = `${failure.message} ${JSON.stringify(failure)} ${String(failure.stack)}`;
      expect(serialized).not.toContain(OPENAI_KEY.slice(-4));
      expect(serialized).not.toContain('Incorrect API key');
    } finally {
      await strict.close();
    }
  });
});

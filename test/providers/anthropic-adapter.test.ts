// The Anthropic adapter over real HTTP against the fake provider: answers, streaming, tools, usage, what was sent.
import { fingerprintApiKey, startFakeProvider, type FakeProvider } from '../../src/fake-provider';
import { GenerationRequestSchema } from '../../src/config/request';
import { createProvider } from '../../src/providers';
import { ANTHROPIC_KEY, REQUEST, captureFailure } from './provider-fixtures';

const MODEL = 'claude-test';
const OPTIONS = { timeoutMs: 5_000 } as const;

let fake: FakeProvider;

beforeAll(async () => {
  fake = await startFakeProvider();
});

afterEach(() => fake.reset());

afterAll(async () => {
  await fake.close();
});

function anthropic() {
  return createProvider({
    name: 'anthropic',
    kind: 'anthropic',
    apiKey: ANTHROPIC_KEY,
    baseURL: fake.anthropicBaseURL,
  });
}

function onlyRequestBody(): Record<string, unknown> {
  const received = fake.requestsFor(MODEL);
  expect(received).toHaveLength(1);
  return received[0]?.body as Record<string, unknown>;
}

describe('Anthropic adapter', () => {
  it('returns a normalized answer with usage and the request id', async () => {
    const result = await anthropic().generate(MODEL, REQUEST, OPTIONS);
    const [received] = fake.requestsFor(MODEL);
    expect(result).toMatchObject({
      text: 'Echo: Say hello to the switchyard.',
      toolCalls: [],
      finishReason: { unified: 'stop', raw: 'end_turn' },
      provider: 'anthropic',
      model: MODEL,
      requestId: received?.requestId,
    });
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(fake.billed(MODEL)).toMatchObject({
      answers: 1,
      inputTokens: result.usage.inputTokens,
      outputTokens: result.usage.outputTokens,
    });
  });

  it('sends max_tokens, the system prompt as a top-level field and the key in an auth header', async () => {
    await anthropic().generate(MODEL, REQUEST, OPTIONS);
    const body = onlyRequestBody();
    expect(body.max_tokens).toBe(200);
    expect(body.system).toBe('You are terse.');
    expect(body.messages).toEqual([{ role: 'user', content: 'Say hello to the switchyard.' }]);
    const [received] = fake.requestsFor(MODEL);
    expect(received?.path).toBe('/v1/messages');
    // SDK 1.x sends the key as `Authorization: Bearer`; older ones used `x-api-key`. Either is redacted.
    expect(received?.headers.authorization ?? received?.headers['x-api-key']).toBe('[redacted]');
    expect(received?.headers['anthropic-version']).toBeDefined();
    expect(received?.apiKeyFingerprint).toBe(fingerprintApiKey(ANTHROPIC_KEY));
  });

  it('stops at the sent bound: a long echo with a small maxOutputTokens finishes with max_tokens', async () => {
    const small = GenerationRequestSchema.parse({ ...REQUEST, maxOutputTokens: 2 });
    const result = await anthropic().generate(MODEL, small, OPTIONS);
    expect(result.finishReason).toEqual({ unified: 'length', raw: 'max_tokens' });
  });

  it('streams: accumulates deltas and reports progress per event', async () => {
    let progress = 0;
    const result = await anthropic().generate(MODEL, REQUEST, {
      ...OPTIONS,
      stream: true,
      onProgress: () => (progress += 1),
    });
    expect(result.text).toBe('Echo: Say hello to the switchyard.');
    expect(result.finishReason).toEqual({ unified: 'stop', raw: 'end_turn' });
    expect(progress).toBeGreaterThan(4);
    expect(onlyRequestBody().stream).toBe(true);
    expect(result.usage).toMatchObject({
      inputTokens: fake.billed(MODEL).inputTokens,
      outputTokens: fake.billed(MODEL).outputTokens,
    });
    expect(result.requestId).toBe(fake.requestsFor(MODEL)[0]?.requestId);
  });

  it.each([false, true])(
    'returns tool calls and sends tools with an input schema (stream: %p)',
    async (stream) => {
      fake.script(MODEL, {
        kind: 'answer',
        text: 'Checking.',
        toolCalls: [{ name: 'lookup', arguments: { city: 'Oslo' } }],
      });
      const withTools = GenerationRequestSchema.parse({
        ...REQUEST,
        tools: [{ name: 'lookup', description: 'Weather', parameters: { properties: {} } }],
      });
      const result = await anthropic().generate(MODEL, withTools, { ...OPTIONS, stream });
      expect(result.text).toBe('Checking.');
      expect(result.finishReason).toEqual({ unified: 'tool_calls', raw: 'tool_use' });
      expect(result.toolCalls).toEqual([
        { id: expect.stringMatching(/^toolu_/), name: 'lookup', arguments: '{"city":"Oslo"}' },
      ]);
      expect(onlyRequestBody().tools).toEqual([
        { name: 'lookup', description: 'Weather', input_schema: { type: 'object', properties: {} } },
      ]);
    },
  );

  it.each([false, true])('reports cache reads as cached input (stream: %p)', async (stream) => {
    fake.script(MODEL, {
      kind: 'answer',
      text: 'ok',
      usage: { inputTokens: 100, cachedInputTokens: 40, outputTokens: 7 },
    });
    const result = await anthropic().generate(MODEL, REQUEST, { ...OPTIONS, stream });
    expect(result.usage).toMatchObject({ inputTokens: 100, cachedInputTokens: 40, outputTokens: 7 });
    expect(result.usage.raw).toMatchObject({ input_tokens: 100, cache_read_input_tokens: 40 });
  });

  it('keeps the request id and billed usage on a refusal (stream)', async () => {
    fake.script(MODEL, { kind: 'refusal' });
    const failure = await captureFailure(anthropic().generate(MODEL, REQUEST, { ...OPTIONS, stream: true }));
    expect(failure.failureClass).toBe('refused');
    expect(failure.details.requestId).toBe(fake.requestsFor(MODEL)[0]?.requestId);
    expect(failure.details.usage?.outputTokens).toBe(fake.billed(MODEL).outputTokens);
  });
});

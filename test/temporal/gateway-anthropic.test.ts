// The gateway's Anthropic surface driven by the real `@anthropic-ai/sdk` client, and what both surfaces share:
// tool calls, concurrent streams, limits, the model list and a caller who leaves.
import Anthropic from '@anthropic-ai/sdk';
import { startGatewayHarness, type GatewayHarness } from '../support/gateway-harness';
import { eventually } from '../support/eventually';

let harness: GatewayHarness;
beforeAll(async () => {
  harness = await startGatewayHarness();
});
afterAll(async () => harness?.close());
beforeEach(() => harness.fake.reset());

const hello = [{ role: 'user' as const, content: 'Say hello' }];

test('a message is a routed call; an OpenAI-format target can answer the Anthropic surface', async () => {
  harness.fake.script('claude-secondary', { kind: 'error', error: 'overloaded' });
  harness.fake.script('gpt-secondary', {
    kind: 'answer',
    text: 'hello from gpt',
    usage: { inputTokens: 7, outputTokens: 4 },
  });
  await harness.withGateway(async ({ anthropic }) => {
    const { data, response } = await anthropic.messages
      .create({ model: 'reverse', max_tokens: 64, system: 'Be brief.', messages: hello })
      .withResponse();
    expect(data.content).toEqual([{ type: 'text', text: 'hello from gpt' }]);
    expect(data.stop_reason).toBe('end_turn');
    expect(data.usage).toMatchObject({ input_tokens: 7, output_tokens: 4 });
    expect(response.headers.get('x-switchyard-served-by')).toBe('openai/gpt-secondary');
    expect(response.headers.get('x-switchyard-fallbacks')).toBe('1');
    const received = harness.fake.requestsFor('gpt-secondary')[0]!.body as { messages: unknown[] };
    expect(received.messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
  });
});

test('a message stream is relayed as Anthropic events and ends with usage and the routing metadata', async () => {
  const words = 'one two three four five six seven eight nine ten eleven twelve';
  harness.fake.script('claude-secondary', {
    kind: 'answer',
    text: words,
    chunkDelayMs: 50,
    usage: { inputTokens: 5, outputTokens: 12 },
  });
  await harness.withGateway(async ({ anthropic }) => {
    const { data: stream, response } = await anthropic.messages
      .create({ model: 'reverse', max_tokens: 64, messages: hello, stream: true })
      .withResponse();
    const events: Anthropic.MessageStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    expect(response.headers.get('x-switchyard-served-by')).toBe('anthropic/claude-secondary');
    expect(events[0]!.type).toBe('message_start');
    const text = events
      .map((event) =>
        event.type === 'content_block_delta' && event.delta.type === 'text_delta' ? event.delta.text : '',
      )
      .join('');
    expect(text).toBe(words);
    expect(events.filter((event) => event.type === 'content_block_delta').length).toBeGreaterThan(2);
    const final = events.find((event) => event.type === 'message_delta') as Anthropic.MessageDeltaEvent & {
      switchyard: Record<string, unknown>;
    };
    expect(final.delta.stop_reason).toBe('end_turn');
    expect(final.usage).toMatchObject({ input_tokens: 5, output_tokens: 12 });
    expect(final.switchyard).toMatchObject({ route: 'reverse', served_by: 'anthropic/claude-secondary' });
    expect(events[events.length - 1]!.type).toBe('message_stop');

    // The SDK's own stream helper accumulates the same events into a message.
    harness.fake.script('claude-secondary', { kind: 'answer', text: words });
    const message = await anthropic.messages
      .stream({ model: 'reverse', max_tokens: 64, messages: hello })
      .finalMessage();
    expect(message.content).toHaveLength(1);
    expect((message.content[0] as Anthropic.TextBlock).text).toBe(words);
  });
});

test('a failure after the first piece ends the Anthropic stream with its error event', async () => {
  harness.fake.script('claude-secondary', { kind: 'stream_error', error: 'overloaded', afterEvents: 4 });
  await harness.withGateway(async ({ anthropic }) => {
    const stream = await anthropic.messages.create({
      model: 'reverse',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'alpha beta gamma delta epsilon zeta eta theta' }],
      stream: true,
    });
    let text = '';
    let thrown: unknown;
    try {
      for await (const event of stream) {
        if (event.type === 'content_block_delta' && event.delta.type === 'text_delta')
          text += event.delta.text;
      }
    } catch (error) {
      thrown = error;
    }
    expect(text.length).toBeGreaterThan(0);
    expect('Echo: alpha beta gamma delta epsilon zeta eta theta'.startsWith(text)).toBe(true);
    expect(thrown).toBeInstanceOf(Anthropic.APIError);
    expect(JSON.stringify((thrown as InstanceType<typeof Anthropic.APIError>).error)).toContain(
      'StreamInterrupted',
    );
    expect(harness.fake.counters('gpt-secondary').requests).toBe(0);
  });
});

test('errors come in Anthropic shape: a refusal, an unknown route, a bad key', async () => {
  harness.fake.script('claude-secondary', { kind: 'refusal' });
  await harness.withGateway(async ({ anthropic, gateway }) => {
    const refusal = await anthropic.messages
      .create({ model: 'reverse', max_tokens: 64, messages: hello })
      .catch((error) => error);
    expect(refusal).toBeInstanceOf(Anthropic.UnprocessableEntityError);
    expect(refusal.error).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', code: 'ContentRefused' },
    });

    const unknown = await anthropic.messages
      .create({ model: 'claude-opus', max_tokens: 64, messages: hello })
      .catch((error) => error);
    expect(unknown).toBeInstanceOf(Anthropic.NotFoundError);

    const stranger = new Anthropic({ apiKey: 'not-a-key', baseURL: gateway.url, maxRetries: 0 });
    const badKey = await stranger.messages
      .create({ model: 'reverse', max_tokens: 64, messages: hello })
      .catch((error) => error);
    expect(badKey).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(badKey.error).toMatchObject({ error: { type: 'authentication_error' } });
  });
});

test('tool calls stream in pieces on both surfaces and arrive whole', async () => {
  const toolCall = { name: 'lookup_order', arguments: { orderId: 'A-4711', includeHistory: true } };
  const tools = [
    {
      type: 'function' as const,
      function: {
        name: 'lookup_order',
        parameters: { type: 'object', properties: { orderId: { type: 'string' } } },
      },
    },
  ];
  harness.fake.script('gpt-primary', { kind: 'answer', toolCalls: [toolCall] });
  harness.fake.script('claude-secondary', { kind: 'answer', toolCalls: [toolCall] });
  await harness.withGateway(async ({ openai, anthropic }) => {
    const stream = await openai.chat.completions.create({
      model: 'support',
      messages: hello,
      tools,
      stream: true,
    });
    let argumentsText = '';
    let name = '';
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      for (const call of chunk.choices[0]?.delta?.tool_calls ?? []) {
        name += call.function?.name ?? '';
        argumentsText += call.function?.arguments ?? '';
      }
      finish ??= chunk.choices[0]?.finish_reason;
    }
    expect(name).toBe('lookup_order');
    expect(JSON.parse(argumentsText)).toEqual(toolCall.arguments);
    expect(finish).toBe('tool_calls');

    const message = await anthropic.messages
      .stream({
        model: 'reverse',
        max_tokens: 64,
        messages: hello,
        tools: [{ name: 'lookup_order', input_schema: { type: 'object', properties: {} } }],
      })
      .finalMessage();
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content[0]).toMatchObject({
      type: 'tool_use',
      name: 'lookup_order',
      input: toolCall.arguments,
    });
  });
});

test("concurrent streams each get their own answer, never another one's pieces", async () => {
  harness.fake.scriptAlways('gpt-primary', { kind: 'answer', chunkDelayMs: 40 });
  await harness.withGateway(async ({ openai }) => {
    const prompts = Array.from(
      { length: 6 },
      (_, index) => `caller ${index} says w${index}a w${index}b w${index}c w${index}d`,
    );
    const texts = await Promise.all(
      prompts.map(async (prompt) => {
        const stream = await openai.chat.completions.create({
          model: 'support',
          messages: [{ role: 'user', content: prompt }],
          stream: true,
        });
        let text = '';
        for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
        return text;
      }),
    );
    expect(texts).toEqual(prompts.map((prompt) => `Echo: ${prompt}`));
  });
});

test('the model list shows the routes the key may use, for both SDKs', async () => {
  await harness.withGateway(async ({ openai, anthropic }) => {
    const openaiModels = await openai.models.list();
    expect(openaiModels.data.map((model) => model.id).sort()).toEqual(['fragile', 'reverse', 'support']);
    const anthropicModels = await anthropic.models.list();
    expect(anthropicModels.data.map((model) => model.id).sort()).toEqual(['fragile', 'reverse', 'support']);
  });
});

test('too large a body is a 413, and so is a request that cannot fit a Temporal payload', async () => {
  await harness.withGateway(
    async ({ openai, anthropic }) => {
      // Over the body limit: refused while reading it.
      const huge = 'x'.repeat(3 * 1024 * 1024);
      const overBody = await openai.chat.completions
        .create({ model: 'support', messages: [{ role: 'user', content: huge }] })
        .catch((error) => error);
      expect(overBody.status).toBe(413);
      expect(overBody.code).toBe('request_too_large');

      // Within the body limit, but the routed call's input would exceed Temporal's 2 MiB payload limit.
      const large = 'y'.repeat(2 * 1024 * 1024);
      const overPayload = await anthropic.messages
        .create({ model: 'support', max_tokens: 16, messages: [{ role: 'user', content: large }] })
        .catch((error) => error);
      expect(overPayload.status).toBe(413);
      expect(overPayload.error).toMatchObject({
        error: { type: 'request_too_large', code: 'payload_too_large' },
      });
      expect(JSON.stringify(overPayload.error)).toContain('limit.blobSize.error');
    },
    { bodyLimitBytes: 2.5 * 1024 * 1024 },
  );
  expect(harness.fake.requests).toHaveLength(0);
});

test('a caller who leaves a stream cancels its call, unless it sent an Idempotency-Key', async () => {
  harness.fake.scriptAlways('gpt-primary', {
    kind: 'answer',
    text: 'a b c d e f g h i j k l m n o p',
    chunkDelayMs: 400,
  });
  await harness.withGateway(async ({ openai, switchyard }) => {
    const leave = async (headers: Record<string, string>) => {
      const { data: stream, response } = await openai.chat.completions
        .create({ model: 'support', messages: hello, stream: true }, { headers })
        .withResponse();
      for await (const chunk of stream) if (chunk.choices[0]?.delta?.content) break;
      return response.headers.get('x-switchyard-workflow-id')!;
    };
    const left = await leave({});
    const kept = await leave({ 'Idempotency-Key': `keep-${Date.now()}` });
    await eventually(
      'the call whose caller left is cancelled',
      () => switchyard.inspect(left),
      (call) => call.status === 'CANCELLED',
    );
    await eventually(
      'the call with a key goes on',
      () => switchyard.inspect(kept),
      (call) => call.status === 'COMPLETED',
    );
    // The kept call's answer is there for the caller who comes back with the same key.
    expect((await switchyard.inspect(kept)).answer?.text).toBe('a b c d e f g h i j k l m n o p');
  });
});

test("a request's time is its call's deadline: a provider that hangs is a 504 DeadlineExceeded", async () => {
  harness.fake.scriptAlways('claude-secondary', { kind: 'hang' });
  harness.fake.scriptAlways('gpt-secondary', { kind: 'hang' });
  await harness.withGateway(
    async ({ anthropic }) => {
      const late = await anthropic.messages
        .create({ model: 'reverse', max_tokens: 16, messages: hello })
        .catch((error) => error);
      expect(late).toBeInstanceOf(Anthropic.APIError);
      expect(late.status).toBe(504);
      expect(late.error).toMatchObject({ error: { type: 'timeout_error', code: 'DeadlineExceeded' } });
      expect(late.headers.get('x-switchyard-workflow-id')).toMatch(/^switchyard-call-gw-/);
    },
    { callTimeoutMs: 1_500 },
  );
});

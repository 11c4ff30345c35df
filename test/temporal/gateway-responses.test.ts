// The gateway's Responses surface driven by the real `openai` client: responses, streams, the stream helper, tool
// loops that send the whole input each turn (on Chat, Anthropic and Responses targets), failover, errors.
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import OpenAI from 'openai';
import type { ResponseInputItem, ResponseStreamEvent, Tool } from 'openai/resources/responses/responses';
import type { SwitchyardClient } from '../../src/client/switchyard-client';
import type { RoutedCallInput } from '../../src/config/routed-call-input';
import { decryptReasoning } from '../../src/fake-provider/reasoning-encryption';
import type { FakeScenario } from '../../src/fake-provider/scenario';
import { responseIdOf, workflowIdOfResponse } from '../../src/gateway/response-id';
import { startGatewayHarness, type GatewayHarness } from '../support/gateway-harness';
import { fakeResponsesProvider } from '../support/test-config';

let harness: GatewayHarness;
beforeAll(async () => {
  harness = await startGatewayHarness({
    extraProviders: (fake) => ({ responses: fakeResponsesProvider(fake, ['resp-primary']) }),
    extraRoutes: {
      'responses-first': {
        targets: [
          { provider: 'responses', model: 'resp-primary', timeoutMs: 10_000 },
          { provider: 'openai', model: 'gpt-primary', timeoutMs: 10_000 },
        ],
      },
    },
  });
});
afterAll(async () => harness?.close());
beforeEach(() => harness.fake.reset());

/** The request bodies the fake received for `model`, in order. */
function received(model: string): Record<string, unknown>[] {
  return harness.fake.requestsFor(model).map((request) => request.body as Record<string, unknown>);
}

/** Reads a raw event stream to its end, keeping the events and whatever it threw. */
async function drain(stream: AsyncIterable<ResponseStreamEvent>) {
  const events: ResponseStreamEvent[] = [];
  try {
    for await (const event of stream) events.push(event);
    return { events, error: undefined };
  } catch (error) {
    return { events, error };
  }
}

/** The labels a routed call was started with, from its history's first event. */
async function labelsOf(switchyard: SwitchyardClient, workflowId: string) {
  const history = await switchyard.temporal.workflow.getHandle(workflowId).fetchHistory();
  const payloads = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads;
  const input = (await decodeFromPayloadsAtIndex(
    switchyard.temporal.options.loadedDataConverter,
    0,
    payloads,
  )) as RoutedCallInput;
  return input.labels;
}

const textOf = (events: readonly ResponseStreamEvent[]) =>
  events.map((event) => (event.type === 'response.output_text.delta' ? event.delta : '')).join('');

const weatherTool: Tool = {
  type: 'function',
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  },
  strict: true,
};
const WEATHER: Record<string, string> = { Paris: '18 degrees and sunny', Lyon: '12 degrees and raining' };
const callsTwoTools = (options: Partial<Extract<FakeScenario, { kind: 'answer' }>> = {}): FakeScenario => ({
  kind: 'answer',
  toolCalls: [
    { name: 'get_weather', arguments: { city: 'Paris' } },
    { name: 'get_weather', arguments: { city: 'Lyon' } },
  ],
  ...options,
});
const answers: FakeScenario = { kind: 'answer', text: 'Paris is sunny; Lyon is rainy.' };

/** What a client sends after a turn that called tools: everything so far, the turn's output, each call's output. */
function nextInput(input: readonly ResponseInputItem[], output: readonly unknown[]): ResponseInputItem[] {
  const items = output as ResponseInputItem[];
  const outputs = items.flatMap((item): ResponseInputItem[] =>
    item.type === 'function_call'
      ? [
          {
            type: 'function_call_output',
            call_id: item.call_id,
            output: WEATHER[(JSON.parse(item.arguments) as { city: string }).city]!,
          },
        ]
      : [],
  );
  return [...input, ...items, ...outputs];
}

test('a response is a routed call: output_text, usage, an id naming the workflow, the echo and the routing headers', async () => {
  harness.fake.script('gpt-primary', {
    kind: 'answer',
    text: 'hello from gpt',
    usage: { inputTokens: 10, cachedInputTokens: 2, outputTokens: 5 },
  });
  await harness.withGateway(async ({ openai, switchyard }) => {
    const { data, response } = await openai.responses
      .create({
        model: 'support',
        input: 'Say hello',
        instructions: 'Be brief.',
        max_output_tokens: 64,
        metadata: { team: 'search' },
      })
      .withResponse();

    expect(data.output_text).toBe('hello from gpt');
    expect(data).toMatchObject({
      object: 'response',
      status: 'completed',
      model: 'gpt-primary',
      instructions: 'Be brief.',
      max_output_tokens: 64,
      metadata: { team: 'search' },
      store: true,
      usage: {
        input_tokens: 12,
        input_tokens_details: { cached_tokens: 2 },
        output_tokens: 5,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 17,
      },
    });
    const workflowId = response.headers.get('x-switchyard-workflow-id')!;
    expect(workflowId).toMatch(/^switchyard-call-gw-/);
    // A stored response's id names its workflow, so it can be read back or continued.
    expect(data.id).toBe(responseIdOf(workflowId, true));
    expect(workflowIdOfResponse(data.id)).toBe(workflowId);
    expect(response.headers.get('x-switchyard-served-by')).toBe('openai/gpt-primary');
    expect((data as unknown as { switchyard: Record<string, unknown> }).switchyard).toMatchObject({
      workflow_id: workflowId,
      route: 'support',
      served_by: 'openai/gpt-primary',
      fallbacks: 0,
    });
    const [sent] = received('gpt-primary');
    expect(sent!.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Say hello' },
    ]);
    expect(sent!.max_completion_tokens ?? sent!.max_tokens).toBe(64);
    // The call is labelled with its surface, its key, and what the answer echoes that the request cannot hold.
    expect(await labelsOf(switchyard, workflowId)).toEqual({
      gateway: 'responses',
      gatewayKey: expect.any(String),
      responsesMetadata: '{"team":"search"}',
    });
  });
});

test('store: false answers with an id that names no workflow, and labels the call unstored', async () => {
  harness.fake.script('gpt-primary', { kind: 'answer', text: 'not kept' });
  await harness.withGateway(async ({ openai, switchyard }) => {
    const { data, response } = await openai.responses
      .create({ model: 'support', input: 'hi', store: false })
      .withResponse();
    const workflowId = response.headers.get('x-switchyard-workflow-id')!;
    expect((data as unknown as { store: boolean }).store).toBe(false);
    expect(data.id).toMatch(/^resp_x[0-9a-f]{40}$/);
    expect(data.id).toBe(responseIdOf(workflowId, false));
    expect(workflowIdOfResponse(data.id)).toBeUndefined();
    expect(await labelsOf(switchyard, workflowId)).toMatchObject({
      gateway: 'responses',
      responsesStore: 'false',
    });
  });
});

test('a stream: events numbered from 0, text in pieces as the provider sends them, the whole response last', async () => {
  const pieces = 'one two three four five six seven eight nine ten';
  harness.fake.script('gpt-primary', {
    kind: 'answer',
    text: pieces,
    chunkDelayMs: 100,
    usage: { inputTokens: 3, outputTokens: 6 },
  });
  await harness.withGateway(async ({ openai }) => {
    const { data: stream, response } = await openai.responses
      .create({ model: 'support', input: 'count', stream: true })
      .withResponse();
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events: ResponseStreamEvent[] = [];
    let answeredWhenFirstTextArrived: number | undefined;
    for await (const event of stream) {
      if (answeredWhenFirstTextArrived === undefined && event.type === 'response.output_text.delta') {
        // The provider is still streaming when the caller holds the first piece: nothing was buffered.
        answeredWhenFirstTextArrived = harness.fake.counters('gpt-primary').answered;
      }
      events.push(event);
    }
    expect(answeredWhenFirstTextArrived).toBe(0);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    expect(events.slice(0, 2).map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
    ]);
    expect(textOf(events)).toBe(pieces);
    expect(events.filter((event) => event.type === 'response.output_text.delta').length).toBeGreaterThan(2);
    const last = events.at(-1)!;
    expect(last.type).toBe('response.completed');
    if (last.type !== 'response.completed') return;
    expect(last.response.usage).toMatchObject({ input_tokens: 3, output_tokens: 6 });
    expect((last.response.output[0] as { content: { text: string }[] }).content[0]!.text).toBe(pieces);
    const routing = (last.response as unknown as { switchyard: Record<string, unknown> }).switchyard;
    expect(routing).toMatchObject({ route: 'support', served_by: 'openai/gpt-primary', fallbacks: 0 });
    expect(routing.workflow_id).toBe(response.headers.get('x-switchyard-workflow-id'));
  });
});

test('the SDK stream helper on an Anthropic target: a tool loop sending the whole input each turn, thinking sent back signed', async () => {
  const thinks = 'Two cities: I will look both up.';
  harness.fake.script('claude-secondary', [callsTwoTools({ reasoning: thinks, chunkDelayMs: 5 }), answers]);
  await harness.withGateway(async ({ openai }) => {
    const ask = (input: ResponseInputItem[]) =>
      openai.responses
        .stream({
          model: 'reverse',
          input,
          tools: [weatherTool],
          reasoning: { effort: 'low' },
          include: ['reasoning.encrypted_content'],
          store: false,
          max_output_tokens: 4096,
        })
        .finalResponse();
    const question: ResponseInputItem[] = [{ role: 'user', content: 'Weather in Paris and Lyon?' }];
    const first = await ask(question);
    expect(first.output.map((item) => item.type)).toEqual(['reasoning', 'function_call', 'function_call']);
    const [reasoning] = first.output;
    expect(reasoning).toMatchObject({
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: thinks }],
      encrypted_content: expect.stringMatching(/^switchyard:anthropic:/),
    });
    const second = await ask(nextInput(question, first.output));
    // (The helper's final response has no output_text: the SDK adds that to responses.create's answers only.)
    expect(second.output).toEqual([
      expect.objectContaining({
        type: 'message',
        status: 'completed',
        content: [expect.objectContaining({ type: 'output_text', text: 'Paris is sunny; Lyon is rainy.' })],
      }),
    ]);

    // Anthropic got its own signed thinking back (the fake refuses a signature it did not write), the calls, and
    // each call's output under its call's id.
    const sent = received('claude-secondary')[1]!.messages as {
      role: string;
      content: Record<string, unknown>[];
    }[];
    expect(sent.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(sent[1]!.content.map((block) => block.type)).toEqual(['thinking', 'tool_use', 'tool_use']);
    expect(sent[1]!.content[0]).toMatchObject({ thinking: thinks });
    const calls = first.output.filter((item) => item.type === 'function_call');
    expect(sent[2]!.content).toEqual([
      expect.objectContaining({
        type: 'tool_result',
        tool_use_id: calls[0]!.call_id,
        content: WEATHER.Paris,
      }),
      expect.objectContaining({ type: 'tool_result', tool_use_id: calls[1]!.call_id, content: WEATHER.Lyon }),
    ]);
  });
});

test('responses.create on an OpenAI Responses target: a tool loop sending the whole input, its encrypted reasoning back as it was', async () => {
  const thinks = 'Look up both cities.';
  harness.fake.script('resp-primary', [callsTwoTools({ reasoning: thinks }), answers]);
  await harness.withGateway(async ({ openai }) => {
    const ask = (input: ResponseInputItem[]) =>
      openai.responses.create({
        model: 'responses-first',
        input,
        tools: [weatherTool],
        reasoning: { effort: 'medium' },
        include: ['reasoning.encrypted_content'],
        store: false,
      });
    const question: ResponseInputItem[] = [{ role: 'user', content: 'Weather in Paris and Lyon?' }];
    const first = await ask(question);
    const reasoning = first.output[0]!;
    expect(reasoning.type).toBe('reasoning');
    if (reasoning.type !== 'reasoning') return;
    // OpenAI's own reasoning item: its id and encrypted content as the target gave them.
    expect(decryptReasoning(reasoning.encrypted_content!)?.text).toBe(thinks);
    const second = await ask(nextInput(question, first.output));
    expect(second.output_text).toBe('Paris is sunny; Lyon is rainy.');
    const items = received('resp-primary')[1]!.input as Record<string, unknown>[];
    expect(items.map((item) => item.type)).toEqual([
      'message',
      'reasoning',
      'function_call',
      'function_call',
      'function_call_output',
      'function_call_output',
    ]);
    expect(items[1]).toMatchObject({ id: reasoning.id, encrypted_content: reasoning.encrypted_content });
  });
});

test("a stream fails over before its first piece: only the second target's text reaches the caller", async () => {
  harness.fake.script('gpt-primary', { kind: 'stream_cut', afterEvents: 0 });
  harness.fake.script('claude-primary', { kind: 'answer', text: 'second target answers', chunkDelayMs: 20 });
  await harness.withGateway(async ({ openai }) => {
    const { data: stream, response } = await openai.responses
      .create({ model: 'support', input: 'hello', stream: true })
      .withResponse();
    const { events, error } = await drain(stream);
    expect(error).toBeUndefined();
    expect(textOf(events)).toBe('second target answers');
    expect(response.headers.get('x-switchyard-served-by')).toBe('anthropic/claude-primary');
    const last = events.at(-1)!;
    expect(last.type).toBe('response.completed');
    expect(
      (last as unknown as { response: { switchyard: { fallbacks: number } } }).response.switchyard.fallbacks,
    ).toBe(1);
  });
});

test('a failure after the first piece ends the stream with response.failed and never fails over', async () => {
  harness.fake.script('gpt-primary', { kind: 'stream_cut', afterEvents: 3 });
  harness.fake.script('claude-primary', { kind: 'answer', text: 'must never be spliced on' });
  await harness.withGateway(async ({ openai, switchyard }) => {
    const { data: stream, response } = await openai.responses
      .create({ model: 'support', input: 'alpha beta gamma delta epsilon', stream: true })
      .withResponse();
    const { events, error } = await drain(stream);
    expect(error).toBeUndefined();
    const text = textOf(events);
    expect(text.length).toBeGreaterThan(0);
    // The echo of the prompt, cut short: a prefix of what the first target was saying, and nothing else.
    expect('Echo: alpha beta gamma delta epsilon'.startsWith(text)).toBe(true);
    const last = events.at(-1)!;
    expect(last.type).toBe('response.failed');
    if (last.type !== 'response.failed') return;
    expect(last.response).toMatchObject({ status: 'failed', error: { code: 'StreamInterrupted' } });
    expect(harness.fake.counters('claude-primary').requests).toBe(0);
    const inspection = await switchyard.inspect(response.headers.get('x-switchyard-workflow-id')!);
    expect(inspection.error?.type).toBe('StreamInterrupted');
  });
});

test('errors come in the OpenAI shape with the failure type: refusal, unknown route, built-in tool, bad body, bad key', async () => {
  harness.fake.script('gpt-primary', { kind: 'refusal' });
  await harness.withGateway(async ({ openai, gateway, key }) => {
    const refusal = await openai.responses.create({ model: 'support', input: 'hi' }).catch((e) => e);
    expect(refusal).toBeInstanceOf(OpenAI.APIError);
    expect(refusal.status).toBe(422);
    expect(refusal.code).toBe('ContentRefused');
    expect(refusal.headers.get('x-switchyard-workflow-id')).toMatch(/^switchyard-call-gw-/);

    const unknown = await openai.responses.create({ model: 'gpt-4o', input: 'hi' }).catch((e) => e);
    expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
    expect(unknown.code).toBe('model_not_found');

    const builtIn = await openai.responses
      .create({ model: 'support', input: 'hi', tools: [weatherTool, { type: 'web_search_preview' }] })
      .catch((e) => e);
    expect(builtIn).toBeInstanceOf(OpenAI.BadRequestError);
    expect(builtIn.param).toBe('tools.1.type');
    expect(builtIn.message).toContain('web_search_preview is a built-in tool Switchyard does not run');

    const background = await openai.responses
      .create({ model: 'support', input: 'hi', background: true })
      .catch((e) => e);
    expect(background).toBeInstanceOf(OpenAI.BadRequestError);
    expect(background.param).toBe('background');

    const malformed = await fetch(`${gateway.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: '{"input": ',
    });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ error: { type: 'invalid_request_error', param: null } });

    const wrong = new OpenAI({
      apiKey: 'sy_000000000000_' + 'x'.repeat(43),
      baseURL: `${gateway.url}/v1`,
      maxRetries: 0,
    });
    const badKey = await wrong.responses.create({ model: 'support', input: 'hi' }).catch((e) => e);
    expect(badKey).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(badKey.code).toBe('invalid_api_key');
  });
  // Only the refusal reached a provider.
  expect(harness.fake.requests).toHaveLength(1);
});

// The gateway's OpenAI surface driven by the real `openai` client: answers, streams, failover, errors, idempotency.
import OpenAI from 'openai';
import { routedCallWorkflowId } from '../../src/workflows/definitions';
import { startGatewayHarness, type GatewayHarness } from '../support/gateway-harness';
import { workflowText } from '../support/secrets-scan';
import { eventually } from '../support/eventually';
import { setTimeout as delay } from 'node:timers/promises';
import { settledLedger } from '../support/settled-ledger';

let harness: GatewayHarness;
beforeAll(async () => {
  harness = await startGatewayHarness();
});
afterAll(async () => harness?.close());
beforeEach(() => harness.fake.reset());

const hello = [{ role: 'user' as const, content: 'Say hello' }];

/** Reads a stream to its end, keeping the chunks and whatever it threw. */
async function drain(stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>) {
  const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
  let text = '';
  try {
    for await (const chunk of stream) {
      chunks.push(chunk);
      text += chunk.choices[0]?.delta?.content ?? '';
    }
    return { chunks, text, error: undefined };
  } catch (error) {
    return { chunks, text, error };
  }
}

test('a chat completion is a routed call: the answer, usage and the routing headers', async () => {
  harness.fake.script('gpt-primary', {
    kind: 'answer',
    text: 'hello from gpt',
    usage: { inputTokens: 10, outputTokens: 5 },
  });
  await harness.withGateway(async ({ openai, switchyard, key }) => {
    const { data, response } = await openai.chat.completions
      .create({
        model: 'support',
        messages: [{ role: 'system', content: 'Be brief.' }, ...hello],
        max_tokens: 64,
      })
      .withResponse();

    expect(data.choices[0]!.message.content).toBe('hello from gpt');
    expect(data.choices[0]!.finish_reason).toBe('stop');
    expect(data.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });
    expect(data.model).toBe('gpt-primary');
    const workflowId = response.headers.get('x-switchyard-workflow-id')!;
    expect(workflowId).toMatch(/^switchyard-call-gw-/);
    expect(response.headers.get('x-switchyard-route')).toBe('support');
    expect(response.headers.get('x-switchyard-served-by')).toBe('openai/gpt-primary');
    expect(response.headers.get('x-switchyard-fallbacks')).toBe('0');
    // 10 input tokens at $1/M + 5 output tokens at $4/M.
    expect(Number(response.headers.get('x-switchyard-cost-usd'))).toBeCloseTo(0.00003, 9);

    // The workflow is a routed call like any other, with the request as the provider received it. The answer
    // came ahead of the call's record, which follows at once.
    await switchyard.temporal.workflow.getHandle(workflowId).result();
    const inspection = await switchyard.inspect(workflowId);
    expect(inspection.record?.attempts).toHaveLength(1);
    // The gateway key is nowhere in its history: only its public id, as a label.
    const { runId } = await switchyard.temporal.workflow.getHandle(workflowId).describe();
    const { text: history } = await workflowText(switchyard.temporal, workflowId, runId);
    expect(history).not.toContain(key.slice(16));
    expect(history).toContain(key.slice(3, 15));
    const received = harness.fake.requestsFor('gpt-primary')[0]!.body as Record<string, unknown>;
    expect(received.max_completion_tokens ?? received.max_tokens).toBe(64);
    expect(received.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Say hello' },
    ]);
  });
});

test('without a model the default route serves, and an Anthropic target can answer the OpenAI surface', async () => {
  harness.fake.script('gpt-primary', { kind: 'error', error: 'server_error' });
  harness.fake.script('claude-primary', { kind: 'answer', text: 'hello from claude' });
  await harness.withGateway(async ({ gateway, key }) => {
    // The SDK insists on a model, so this one goes by hand.
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: hello }),
    });
    const body = (await response.json()) as OpenAI.Chat.Completions.ChatCompletion;
    expect(response.status).toBe(200);
    expect(body.choices[0]!.message.content).toBe('hello from claude');
    expect(response.headers.get('x-switchyard-route')).toBe('support');
    expect(response.headers.get('x-switchyard-served-by')).toBe('anthropic/claude-primary');
    expect(response.headers.get('x-switchyard-fallbacks')).toBe('1');
  });
});

test('a stream relays the pieces as the provider sends them, and ends with usage and the routing metadata', async () => {
  const pieces = 'one two three four five six seven eight nine ten eleven twelve';
  harness.fake.script('gpt-primary', {
    kind: 'answer',
    text: pieces,
    chunkDelayMs: 150,
    usage: { inputTokens: 3, outputTokens: 6 },
  });
  await harness.withGateway(async ({ openai }) => {
    const { data: stream, response } = await openai.chat.completions
      .create({ model: 'support', messages: hello, stream: true, stream_options: { include_usage: true } })
      .withResponse();
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(response.headers.get('x-switchyard-served-by')).toBe('openai/gpt-primary');

    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    let answeredWhenFirstTextArrived: number | undefined;
    for await (const chunk of stream) {
      if (answeredWhenFirstTextArrived === undefined && chunk.choices[0]?.delta?.content) {
        // The provider is still streaming when the caller holds the first piece: nothing was buffered.
        answeredWhenFirstTextArrived = harness.fake.counters('gpt-primary').answered;
      }
      chunks.push(chunk);
    }
    expect(answeredWhenFirstTextArrived).toBe(0);
    const text = chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? '').join('');
    expect(text).toBe(pieces);
    // More than one piece carried text: the answer came in pieces, not in one block at the end.
    expect(chunks.filter((chunk) => chunk.choices[0]?.delta?.content).length).toBeGreaterThan(2);
    const finish = chunks.find((chunk) => chunk.choices[0]?.finish_reason);
    expect(finish?.choices[0]?.finish_reason).toBe('stop');
    const routing = (finish as unknown as { switchyard: Record<string, unknown> }).switchyard;
    expect(routing).toMatchObject({ route: 'support', served_by: 'openai/gpt-primary', fallbacks: 0 });
    expect(routing.workflow_id).toBe(response.headers.get('x-switchyard-workflow-id'));
    const last = chunks[chunks.length - 1]!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toMatchObject({ prompt_tokens: 3, completion_tokens: 6 });
  });
});

test("a stream fails over before its first piece: only the second target's text reaches the caller", async () => {
  harness.fake.script('gpt-primary', { kind: 'stream_cut', afterEvents: 0 });
  harness.fake.script('claude-primary', { kind: 'answer', text: 'second target answers', chunkDelayMs: 20 });
  await harness.withGateway(async ({ openai }) => {
    const { data: stream, response } = await openai.chat.completions
      .create({ model: 'support', messages: hello, stream: true })
      .withResponse();
    const { text, error, chunks } = await drain(stream);
    expect(error).toBeUndefined();
    expect(text).toBe('second target answers');
    expect(response.headers.get('x-switchyard-served-by')).toBe('anthropic/claude-primary');
    const finish = chunks.find((chunk) => chunk.choices[0]?.finish_reason) as unknown as {
      switchyard: { fallbacks: number };
    };
    expect(finish.switchyard.fallbacks).toBe(1);
  });
});

test('a failure after the first piece ends the stream with an error event and never fails over', async () => {
  harness.fake.script('gpt-primary', { kind: 'stream_cut', afterEvents: 3 });
  harness.fake.script('claude-primary', { kind: 'answer', text: 'must never be spliced on' });
  await harness.withGateway(async ({ openai, switchyard }) => {
    const { data: stream, response } = await openai.chat.completions
      .create({
        model: 'support',
        messages: [{ role: 'user', content: 'alpha beta gamma delta epsilon' }],
        stream: true,
      })
      .withResponse();
    const { text, error } = await drain(stream);

    expect(text.length).toBeGreaterThan(0);
    // The echo of the prompt, cut short: a prefix of what the first target was saying, and nothing else.
    expect('Echo: alpha beta gamma delta epsilon'.startsWith(text)).toBe(true);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).code).toBe('StreamInterrupted');
    expect(harness.fake.counters('claude-primary').requests).toBe(0);

    const inspection = await switchyard.inspect(response.headers.get('x-switchyard-workflow-id')!);
    expect(inspection.error?.type).toBe('StreamInterrupted');
    expect(inspection.record?.attempts).toHaveLength(1);
    expect(inspection.record?.attempts[0]).toMatchObject({ outcome: 'failed', failureClass: 'unavailable' });
  });
});

test('errors come in OpenAI shape with the failure type: refusal, unknown route, bad key, no key', async () => {
  harness.fake.script('gpt-primary', { kind: 'refusal' });
  await harness.withGateway(async ({ openai, gateway, switchyard, taskQueue }) => {
    const refusal = await openai.chat.completions
      .create({ model: 'support', messages: hello })
      .catch((e) => e);
    expect(refusal).toBeInstanceOf(OpenAI.APIError);
    expect(refusal.status).toBe(422);
    expect(refusal.code).toBe('ContentRefused');
    expect(refusal.headers.get('x-switchyard-error-type')).toBe('ContentRefused');
    expect(refusal.headers.get('x-switchyard-workflow-id')).toMatch(/^switchyard-call-gw-/);

    const unknown = await openai.chat.completions
      .create({ model: 'gpt-4o', messages: hello })
      .catch((e) => e);
    expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
    expect(unknown.code).toBe('model_not_found');

    const wrong = new OpenAI({
      apiKey: 'sy_000000000000_' + 'x'.repeat(43),
      baseURL: `${gateway.url}/v1`,
      maxRetries: 0,
    });
    const badKey = await wrong.chat.completions.create({ model: 'support', messages: hello }).catch((e) => e);
    expect(badKey).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(badKey.code).toBe('invalid_api_key');

    const bare = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'support', messages: hello }),
    });
    expect(bare.status).toBe(401);
    expect(((await bare.json()) as { error: { code: string } }).error.code).toBe('missing_api_key');

    // Only the refused call became a workflow: the unknown route and the bad keys started nothing.
    const query = `TaskQueue = '${taskQueue}'`;
    const count = () => switchyard.temporal.workflow.count(query).then(({ count }) => count);
    await eventually('the refused call is visible', count, (found) => found >= 1);
    await delay(1_000);
    expect(await count()).toBe(1);
  });
  // Only the refusal reached a provider.
  expect(harness.fake.requests).toHaveLength(1);
});

test('a key limited to a route gets the unknown-route 404 on another, and its budget scope is charged and can refuse', async () => {
  await harness.withGateway(async ({ gateway, makeKey, switchyard, taskQueue }) => {
    const scope = `team-${taskQueue}`;
    const limited = new OpenAI({
      apiKey: makeKey({ routes: ['support'], budget: scope }),
      baseURL: `${gateway.url}/v1`,
      maxRetries: 0,
    });
    const forbidden = await limited.chat.completions
      .create({ model: 'reverse', messages: hello })
      .catch((e) => e);
    // The same answer as for a route that does not exist: a key cannot learn the names of other routes.
    expect(forbidden).toBeInstanceOf(OpenAI.NotFoundError);
    expect(forbidden.code).toBe('model_not_found');

    const { data: models } = await limited.models.list().withResponse();
    expect(models.data.map((model) => model.id)).toEqual(['support']);

    await limited.chat.completions.create({ model: 'support', messages: hello, max_tokens: 16 });
    const ledger = await settledLedger(switchyard.ledgers, scope);
    expect(ledger?.spentNanoUsd).toBeGreaterThan(0);

    await switchyard.ledgers.setLimit(scope, { limitUsd: 0.000001 });
    const before = harness.fake.requests.length;
    const refused = await limited.chat.completions
      .create({ model: 'support', messages: hello, max_tokens: 1000 })
      .catch((e) => e);
    expect(refused).toBeInstanceOf(OpenAI.APIError);
    expect(refused.status).toBe(402);
    expect(refused.code).toBe('BudgetExceeded');
    expect(harness.fake.requests.length).toBe(before);
  });
});

test('the same Idempotency-Key is the same workflow: the same answer, one provider request, charged once', async () => {
  harness.fake.script('gpt-primary', { kind: 'answer', text: 'first and only answer' });
  await harness.withGateway(async ({ openai }) => {
    const ask = () =>
      openai.chat.completions
        .create({ model: 'support', messages: hello }, { headers: { 'Idempotency-Key': 'order-4711' } })
        .withResponse();
    const first = await ask();
    const second = await ask();
    expect(second.data.choices[0]!.message.content).toBe('first and only answer');
    expect(second.response.headers.get('x-switchyard-workflow-id')).toBe(
      first.response.headers.get('x-switchyard-workflow-id'),
    );
    expect(first.response.headers.get('x-switchyard-workflow-id')).toMatch(
      /^switchyard-call-gw-[0-9a-f]{12}-order-4711$/,
    );
    // A stream with the same key replays the stored answer rather than calling again.
    const stream = await openai.chat.completions.create(
      { model: 'support', messages: hello, stream: true },
      { headers: { 'Idempotency-Key': 'order-4711' } },
    );
    const { text } = await drain(stream);
    expect(text).toBe('first and only answer');
    expect(harness.fake.counters('gpt-primary').requests).toBe(1);
  });
  expect(routedCallWorkflowId('x')).toBe('switchyard-call-x');
});

test('an open circuit is a 503 with Retry-After', async () => {
  harness.fake.scriptAlways('gpt-fragile', { kind: 'error', error: 'server_error' });
  await harness.withGateway(async ({ openai }) => {
    const first = await openai.chat.completions.create({ model: 'fragile', messages: hello }).catch((e) => e);
    expect(first.status).toBe(502);
    expect(first.code).toBe('AllTargetsFailed');
    const open = await openai.chat.completions.create({ model: 'fragile', messages: hello }).catch((e) => e);
    expect(open.status).toBe(503);
    expect(open.code).toBe('CircuitOpen');
    expect(Number(open.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

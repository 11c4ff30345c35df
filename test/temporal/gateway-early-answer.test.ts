// The gateway answers as soon as an attempt has its answer recorded, ahead of the call's record; a worker lost after
// that still ends the call with the very answer its caller got, never failing over.
import OpenAI from 'openai';
import { setTimeout as delay } from 'node:timers/promises';
import { startInput } from '../../src/gateway/call-ownership';
import type { RoutedCallResult } from '../../src/routing/routing-record';
import { startGatewayHarness, type GatewayHarness } from '../support/gateway-harness';
import { settledLedger } from '../support/settled-ledger';
import { answeredWithin, holdAttemptCompletions } from '../support/held-attempts';

let harness: GatewayHarness;
beforeAll(async () => {
  harness = await startGatewayHarness();
});
afterAll(async () => harness?.close());
beforeEach(() => harness.fake.reset());

const hello = [{ role: 'user' as const, content: 'Say hello' }];

test('a chat completion is answered while its attempt has not yet completed, and the call ends with that answer', async () => {
  harness.fake.script('gpt-primary', {
    kind: 'answer',
    text: 'early hello',
    usage: { inputTokens: 10, outputTokens: 5 },
  });
  const held = holdAttemptCompletions();
  await harness.withGateway(
    async ({ openai, switchyard }) => {
      const { data, response } = await answeredWithin(
        openai.chat.completions.create({ model: 'support', messages: hello }).withResponse(),
      );
      expect(data.choices[0]!.message.content).toBe('early hello');
      expect(data.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 5 });
      expect(response.headers.get('x-switchyard-served-by')).toBe('openai/gpt-primary');
      expect(response.headers.get('x-switchyard-fallbacks')).toBe('0');
      const costUsd = Number(response.headers.get('x-switchyard-cost-usd'));
      expect(costUsd).toBeCloseTo(0.00003, 9);
      const workflowId = response.headers.get('x-switchyard-workflow-id')!;
      const handle = switchyard.temporal.workflow.getHandle(workflowId);
      // The call is still running: its attempt has not reported its completion.
      expect((await handle.describe()).status.name).toBe('RUNNING');

      held.release();
      const result = (await handle.result()) as RoutedCallResult;
      expect(result.answer.text).toBe('early hello');
      expect(result.record.servedBy).toMatchObject({ provider: 'openai', model: 'gpt-primary' });
      expect(result.record.fallbacks).toBe(0);
      expect(result.record.totalCostUsd).toBe(costUsd);
    },
    {},
    held.workerOptions,
  );
});

test('an attempt lost after its answer went out: the call ends with that answer at its real cost, never failing over', async () => {
  harness.fake.script('gpt-primary', {
    kind: 'answer',
    text: 'the one answer',
    usage: { inputTokens: 10, outputTokens: 5 },
  });
  // Never released while the test runs: the attempt's completion never reaches Temporal, and its heartbeats have
  // stopped, so the server times it out (the route's heartbeat timeout is 2 s) as it would a lost worker.
  const held = holdAttemptCompletions();
  await harness.withGateway(
    async ({ gateway, makeKey, switchyard, taskQueue }) => {
      const scope = `early-${taskQueue}`;
      const budgeted = new OpenAI({
        apiKey: makeKey({ routes: ['support'], budget: scope }),
        baseURL: `${gateway.url}/v1`,
        maxRetries: 0,
      });
      const { data, response } = await answeredWithin(
        budgeted.chat.completions
          .create({ model: 'support', messages: hello, max_tokens: 64 })
          .withResponse(),
      );
      expect(data.choices[0]!.message.content).toBe('the one answer');
      const workflowId = response.headers.get('x-switchyard-workflow-id')!;

      const result = (await switchyard.temporal.workflow.getHandle(workflowId).result()) as RoutedCallResult;
      expect(result.answer.text).toBe('the one answer');
      expect(result.record.attempts).toHaveLength(1);
      expect(result.record.attempts[0]).toMatchObject({ outcome: 'succeeded', costNanoUsd: 30_000 });
      expect(result.record.totalCostUsd).toBe(Number(response.headers.get('x-switchyard-cost-usd')));
      // One request in all: nothing failed over to the route's second target.
      expect(harness.fake.requests).toHaveLength(1);
      // The ledger charged what the answer cost, not the attempt's bound.
      const ledger = await settledLedger(switchyard.ledgers, scope);
      expect(ledger.spentNanoUsd).toBe(30_000);
      held.release();
    },
    {},
    held.workerOptions,
  );
});

test('a call cancelled after its answer went out ends with that answer, not Cancelled', async () => {
  harness.fake.script('gpt-primary', { kind: 'answer', text: 'already yours' });
  const held = holdAttemptCompletions();
  await harness.withGateway(
    async ({ openai, switchyard }) => {
      const { data, response } = await answeredWithin(
        openai.chat.completions.create({ model: 'support', messages: hello }).withResponse(),
      );
      expect(data.choices[0]!.message.content).toBe('already yours');
      const handle = switchyard.temporal.workflow.getHandle(
        response.headers.get('x-switchyard-workflow-id')!,
      );
      // Cancelled while the attempt that handed the answer over has not completed.
      await handle.cancel();
      held.release();
      const result = (await handle.result()) as RoutedCallResult;
      expect(result.answer.text).toBe('already yours');
      expect(result.record.servedBy).toMatchObject({ model: 'gpt-primary' });
    },
    {},
    held.workerOptions,
  );
});

test('a stream ends while its attempt has not yet completed, with the closing usage chunk', async () => {
  harness.fake.script('gpt-primary', {
    kind: 'answer',
    text: 'streamed early',
    usage: { inputTokens: 7, outputTokens: 3 },
  });
  const held = holdAttemptCompletions();
  await harness.withGateway(
    async ({ openai, switchyard }) => {
      const streamed = await answeredWithin(
        (async () => {
          const { data: stream, response } = await openai.chat.completions
            .create({
              model: 'support',
              messages: hello,
              stream: true,
              stream_options: { include_usage: true },
            })
            .withResponse();
          let text = '';
          let usage: OpenAI.Completions.CompletionUsage | null | undefined;
          for await (const chunk of stream) {
            text += chunk.choices[0]?.delta?.content ?? '';
            usage = chunk.usage ?? usage;
          }
          return { text, usage, workflowId: response.headers.get('x-switchyard-workflow-id')! };
        })(),
      );
      expect(streamed.text).toBe('streamed early');
      expect(streamed.usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 3 });
      const handle = switchyard.temporal.workflow.getHandle(streamed.workflowId);
      expect((await handle.describe()).status.name).toBe('RUNNING');
      held.release();
      expect(((await handle.result()) as RoutedCallResult).answer.text).toBe('streamed early');
    },
    {},
    held.workerOptions,
  );
});

test('the audit of a call answered ahead of its record reads the ended call', async () => {
  harness.fake.script('gpt-primary', { kind: 'answer', text: 'audited' });
  const held = holdAttemptCompletions();
  await harness.withGateway(
    async ({ gateway, key, openai }) => {
      const { response } = await answeredWithin(
        openai.chat.completions.create({ model: 'support', messages: hello }).withResponse(),
      );
      const workflowId = response.headers.get('x-switchyard-workflow-id')!;
      const audit = fetch(`${gateway.url}/v1/generation?id=${encodeURIComponent(workflowId)}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      // The audit is asked while the call cannot end yet; it waits for the call rather than show it running.
      await delay(300);
      held.release();
      const body = (await (await audit).json()) as { status: string; attempts: unknown[] };
      expect(body.status).toBe('completed');
      expect(body.attempts).toHaveLength(1);
    },
    {},
    held.workerOptions,
  );
});

test('the Responses surface waits for the call: its response is stored from the record', async () => {
  harness.fake.script('gpt-primary', { kind: 'answer', text: 'stored' });
  await harness.withGateway(async ({ openai, switchyard }) => {
    const { response } = await openai.responses.create({ model: 'support', input: 'hi' }).withResponse();
    const workflowId = response.headers.get('x-switchyard-workflow-id')!;
    const { runId } = await switchyard.temporal.workflow.getHandle(workflowId).describe();
    const input = (await startInput(switchyard, workflowId, runId)) as { relay?: unknown };
    expect(input.relay).toBeUndefined();
  });
});

test('a gateway started with earlyAnswers false (for older workers) answers from the record: its calls carry no relay', async () => {
  harness.fake.script('gpt-primary', { kind: 'answer', text: 'late' });
  await harness.withGateway(
    async ({ openai, switchyard }) => {
      const { data, response } = await openai.chat.completions
        .create({ model: 'support', messages: hello })
        .withResponse();
      expect(data.choices[0]!.message.content).toBe('late');
      const workflowId = response.headers.get('x-switchyard-workflow-id')!;
      const { runId, status } = await switchyard.temporal.workflow.getHandle(workflowId).describe();
      // Answered from the record: the call had ended when its answer went out.
      expect(status.name).toBe('COMPLETED');
      const input = (await startInput(switchyard, workflowId, runId)) as { relay?: unknown };
      expect(input.relay).toBeUndefined();
    },
    { earlyAnswers: false },
  );
});

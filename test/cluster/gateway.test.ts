// The gateway on the cluster shape: a real `switchyard serve` process in front of a worker process, driven by the
// real `openai` SDK. A streamed call fails over before its first piece, and the worker pushes the second target's
// pieces to the gateway's relay as the provider sends them.
import OpenAI from 'openai';
import { RELAY_PATH } from '../../src/gateway/relay-hub';
import { startClusterHarness, type ClusterGateway, type ClusterHarness } from '../support/cluster-harness';
import { eventually } from '../support/eventually';
import { uniqueName } from '../support/temporal';
import { fakeProviders } from '../support/test-config';

// Fresh model names per run: breakers are per (provider, model) on a cluster that may outlive this run.
const primary = uniqueName('gpt-gateway');
const fallback = uniqueName('claude-gateway');

let harness: ClusterHarness;
let gateway: ClusterGateway;
beforeAll(async () => {
  harness = await startClusterHarness({
    label: 'gateway',
    // One worker process is enough to cross process boundaries both ways: gateway → Temporal → worker → relay.
    workers: 1,
    config: (fake) => ({
      providers: fakeProviders(fake, { openai: [primary], anthropic: [fallback] }),
      routes: {
        support: {
          targets: [
            { provider: 'openai', model: primary, timeoutMs: 10_000 },
            { provider: 'anthropic', model: fallback, timeoutMs: 10_000 },
          ],
        },
      },
      defaultRoute: 'support',
    }),
  });
  gateway = await harness.startGateway();
}, 300_000);
afterAll(async () => harness?.close());

test('a streamed Chat Completions call through the gateway process fails over before its first piece and streams the answer', async () => {
  const { fake, switchyard } = harness;
  const answer = 'one two three four five six seven eight';
  fake.script(primary, { kind: 'stream_cut', afterEvents: 0 });
  fake.script(fallback, {
    kind: 'answer',
    text: answer,
    chunkDelayMs: 50,
    usage: { inputTokens: 4, outputTokens: 8 },
  });
  const openai = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });

  const { data: stream, response } = await openai.chat.completions
    .create({
      model: 'support',
      messages: [{ role: 'user', content: 'Count to eight' }],
      stream: true,
      stream_options: { include_usage: true },
    })
    .withResponse();
  const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);

  const pieces = chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? '').filter(Boolean);
  expect(pieces.join('')).toBe(answer);
  // Relayed piece by piece, not handed over in one block at the end.
  expect(pieces.length).toBeGreaterThan(2);
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  expect(response.headers.get('x-switchyard-route')).toBe('support');
  expect(response.headers.get('x-switchyard-served-by')).toBe(`anthropic/${fallback}`);
  const workflowId = response.headers.get('x-switchyard-workflow-id')!;
  expect(workflowId).toMatch(/^switchyard-call-gw-/);
  const finish = chunks.find((chunk) => chunk.choices[0]?.finish_reason) as unknown as {
    switchyard: Record<string, unknown>;
  };
  expect(finish.switchyard).toMatchObject({
    route: 'support',
    served_by: `anthropic/${fallback}`,
    fallbacks: 1,
    workflow_id: workflowId,
  });
  expect(chunks[chunks.length - 1]!.usage).toMatchObject({ prompt_tokens: 4, completion_tokens: 8 });

  // The routed call on the cluster records both attempts; the provider saw each target once. (The stream ended
  // with the answer ahead of the call's record, which follows at once.)
  await switchyard.temporal.workflow.getHandle(workflowId).result();
  const inspection = await switchyard.inspect(workflowId);
  expect(inspection.record?.attempts.map((attempt) => [attempt.model, attempt.outcome])).toEqual([
    [primary, 'failed'],
    [fallback, 'succeeded'],
  ]);
  expect([fake.requestsFor(primary).length, fake.requestsFor(fallback).length]).toEqual([1, 1]);
  // This gateway process served it, and the worker process pushed the pieces to its relay: its request log
  // (written as each response ends) names the workflow and the accepted pushes.
  const log = await eventually(
    'the gateway logs the call',
    async () => gateway.output(),
    (text) => text.includes(workflowId),
    { timeoutMs: 10_000 },
  );
  expect(log).toMatch(new RegExp(`POST /v1/chat/completions 200 \\d+ms ${workflowId}`));
  expect(log).toMatch(new RegExp(`POST ${RELAY_PATH}/\\S+ 200 `));
});

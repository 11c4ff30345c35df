// The relay with two worker processes and two gateways: every piece reaches the gateway holding its caller, and a
// worker SIGKILLed mid-stream ends that stream with an error event, never with a second model's text.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import OpenAI from 'openai';
import { temporal as proto } from '@temporalio/proto';
import { SwitchyardClient } from '../../src/client/switchyard-client';
import type { Config } from '../../src/config/config';
import { startFakeProvider, type FakeProvider } from '../../src/fake-provider';
import { startGateway, type Gateway } from '../../src/gateway/gateway-server';
import { KeyStore } from '../../src/gateway/key-store';
import { eventually } from '../support/eventually';
import { gatewayConfig, sdkClients, terminateBreakers } from '../support/gateway-harness';
import {
  bundleSwitchyardWorkflows,
  connectForTest,
  uniqueName,
  type TemporalTestContext,
} from '../support/temporal';
import { startWorkerProcess } from '../support/worker-process';

let context: TemporalTestContext;
let fake: FakeProvider;
let config: Config;
let directory: string;
let bundlePath: string;
let keys: KeyStore;
let key: string;
const taskQueue = uniqueName('switchyard-relay');
const workers = new Map<number, ChildProcess>();
const gateways: Gateway[] = [];

async function startWorker(slots: number): Promise<number> {
  let pid = 0;
  await startWorkerProcess({
    script: 'test/support/gateway-worker-process.ts',
    environment: {
      GATEWAY_FAKE_URL: fake.url,
      GATEWAY_TASK_QUEUE: taskQueue,
      // The run's shared bundle file: webpack in every worker process would cost seconds each.
      GATEWAY_BUNDLE_PATH: bundlePath,
      GATEWAY_ACTIVITY_SLOTS: String(slots),
    },
    onSpawn: (child) => {
      pid = child.pid!;
      workers.set(pid, child);
    },
  });
  return pid;
}

beforeAll(async () => {
  let bundle;
  [context, fake, bundle] = await Promise.all([
    connectForTest(),
    startFakeProvider(),
    bundleSwitchyardWorkflows(),
  ]);
  config = gatewayConfig(fake);
  directory = mkdtempSync(path.join(tmpdir(), 'switchyard-relay-'));
  bundlePath = bundle.codePath;
  keys = new KeyStore({ file: path.join(directory, 'keys.json') });
  key = keys.create({ routes: ['support'] }).key;
  await terminateBreakers(context, config);
  await Promise.all([startWorker(2), startWorker(2)]);
  for (let index = 0; index < 2; index += 1) {
    const switchyard = new SwitchyardClient({ client: context.client, taskQueue, config });
    gateways.push(await startGateway({ switchyard, config, keys, port: 0 }));
  }
});

afterAll(async () => {
  await Promise.all(gateways.map((gateway) => gateway.close()));
  for (const child of workers.values()) child.kill('SIGKILL');
  await fake?.close();
  await context?.close();
  if (directory) rmSync(directory, { recursive: true, force: true });
});
beforeEach(() => fake.reset());

/** The worker identities that ran the call's provider attempts, from its history. */
async function attemptWorkers(workflowId: string): Promise<string[]> {
  const history = await context.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? [])
    .filter((event) => event.eventType === proto.api.enums.v1.EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED)
    .map((event) => event.activityTaskStartedEventAttributes?.identity ?? '');
}

test('streams through two gateways, served by two workers, each get their own pieces as they come', async () => {
  fake.scriptAlways('gpt-primary', { kind: 'answer', chunkDelayMs: 80 });
  const calls = Array.from({ length: 8 }, (_, index) => ({
    gateway: gateways[index % 2]!,
    prompt: `caller ${index} words w${index}a w${index}b w${index}c w${index}d w${index}e w${index}f`,
  }));
  const results = await Promise.all(
    calls.map(async ({ gateway, prompt }) => {
      const { openai } = sdkClients(gateway.url, key);
      const { data: stream, response } = await openai.chat.completions
        .create({ model: 'support', messages: [{ role: 'user', content: prompt }], stream: true })
        .withResponse();
      const pieces: string[] = [];
      for await (const chunk of stream) {
        const content = chunk.choices[0]?.delta?.content;
        if (content) pieces.push(content);
      }
      return { pieces, workflowId: response.headers.get('x-switchyard-workflow-id')! };
    }),
  );
  for (const [index, { pieces }] of results.entries()) {
    expect(pieces.join('')).toBe(`Echo: ${calls[index]!.prompt}`);
    // Relayed piece by piece, not handed over whole at the end.
    expect(pieces.length).toBeGreaterThan(2);
  }
  const identities = new Set(
    (await Promise.all(results.map(({ workflowId }) => attemptWorkers(workflowId)))).flat(),
  );
  const pids = new Set([...identities].map((identity) => Number(identity.split('@')[0])));
  expect([...pids].sort()).toEqual([...workers.keys()].sort());
  expect(gateways.every((gateway) => gateway.openStreams === 0)).toBe(true);
});

/**
 * Killed at once, the lost attempt's last heartbeat may not have told the server yet that its output reached the
 * caller (heartbeats are throttled): the call fails over, and the gateway stops the second attempt at its first
 * push. Killed a while later, the heartbeat has said so and the call ends without a second attempt.
 */
test.each([
  { when: 'at its first piece', waitMs: 0 },
  { when: 'after its heartbeat said output reached the caller', waitMs: 2_500 },
])(
  'a worker killed mid-stream $when ends the stream with an error event, no second model text',
  async ({ waitMs }) => {
    const prompt = Array.from({ length: 45 }, (_, index) => `first${index}`).join(' ');
    fake.script('gpt-primary', { kind: 'answer', chunkDelayMs: 300 });
    fake.scriptAlways('claude-primary', { kind: 'answer', text: 'SECOND MODEL TEXT' });
    const { openai } = sdkClients(gateways[1]!.url, key);
    const { data: stream, response } = await openai.chat.completions
      .create({ model: 'support', messages: [{ role: 'user', content: prompt }], stream: true })
      .withResponse();
    const workflowId = response.headers.get('x-switchyard-workflow-id')!;
    let text = '';
    let thrown: unknown;
    let killed: number | undefined;
    try {
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta?.content ?? '';
        if (killed === undefined && text.length > 0) {
          await delay(waitMs);
          const { raw } = await context.client.workflow.getHandle(workflowId).describe();
          const identity = raw.pendingActivities?.[0]?.lastWorkerIdentity ?? '';
          killed = Number(identity.split('@')[0]);
          workers.get(killed)!.kill('SIGKILL');
          workers.delete(killed);
        }
      }
    } catch (error) {
      thrown = error;
    }
    expect(killed).toBeGreaterThan(0);
    expect(thrown).toBeInstanceOf(OpenAI.APIError);
    expect((thrown as InstanceType<typeof OpenAI.APIError>).code).toBe('StreamInterrupted');
    expect(`Echo: ${prompt}`.startsWith(text)).toBe(true);
    expect(text).not.toContain('SECOND');

    const switchyard = new SwitchyardClient({ client: context.client, taskQueue, config });
    const call = await eventually(
      'the call ends',
      () => switchyard.inspect(workflowId),
      (found) => found.status !== 'RUNNING',
    );
    expect(call.error?.type).toBe('StreamInterrupted');
    const [lost, next] = call.record!.attempts;
    expect(lost).toMatchObject({ provider: 'openai', outcome: 'failed', failureClass: 'timeout' });
    // Either the lost attempt's last heartbeat said its output had reached the caller (no second attempt), or it
    // had not been sent yet and the second attempt was stopped by the gateway at its first piece.
    if (next)
      expect(next).toMatchObject({ provider: 'anthropic', outcome: 'failed', failureClass: 'cancelled' });
    process.stdout.write(
      `[reliability] gateway worker kill: ${text.length} chars streamed before the kill; ` +
        `${next ? 'second attempt superseded by the gateway' : 'stopped by the heartbeat detail'}\n`,
    );
    await startWorker(2);
  },
);

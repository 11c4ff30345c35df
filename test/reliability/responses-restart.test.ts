// Responses state outlives every process: a previous_response_id chain of three turns goes on after the worker and
// the gateway (a real `switchyard serve`) are both SIGKILLed and started again between turns, as nothing but
// Temporal holds the conversation.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { startFakeProvider, type FakeProvider } from '../../src/fake-provider';
import { KeyStore } from '../../src/gateway/key-store';
import { gatewayConfig, terminateBreakers } from '../support/gateway-harness';
import {
  bundleSwitchyardWorkflows,
  connectForTest,
  temporalAddress,
  uniqueName,
  type TemporalTestContext,
} from '../support/temporal';
import { fakeProviders } from '../support/test-config';
import { startWorkerProcess } from '../support/worker-process';

const BINARY = path.join(__dirname, '../../bin/switchyard.js');

let context: TemporalTestContext;
let fake: FakeProvider;
let directory: string;
let bundlePath: string;
const taskQueue = uniqueName('switchyard-responses-restart');
const children = new Set<ChildProcess>();

beforeAll(async () => {
  let bundle;
  [context, fake, bundle] = await Promise.all([
    connectForTest(),
    startFakeProvider(),
    bundleSwitchyardWorkflows(),
  ]);
  bundlePath = bundle.codePath;
  directory = mkdtempSync(path.join(tmpdir(), 'switchyard-responses-restart-'));
  await terminateBreakers(context, gatewayConfig(fake));
});

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await fake?.close();
  await context?.close();
  if (directory) rmSync(directory, { recursive: true, force: true });
});

/** A worker in a process of its own, serving the gateway's routes. */
async function startWorker(): Promise<ChildProcess> {
  return startWorkerProcess({
    script: 'test/support/gateway-worker-process.ts',
    environment: {
      GATEWAY_FAKE_URL: fake.url,
      GATEWAY_TASK_QUEUE: taskQueue,
      GATEWAY_BUNDLE_PATH: bundlePath,
    },
    onSpawn: (child) => children.add(child),
  });
}

/** The real `switchyard serve` on a free port; resolves with its URL once it listens. */
async function serve(configFile: string, keysFile: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    [
      BINARY,
      'serve',
      '--port',
      '0',
      '--config',
      configFile,
      '--keys',
      keysFile,
      '--address',
      temporalAddress(),
    ],
    { env: { ...process.env, SWITCHYARD_TASK_QUEUE: taskQueue }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  children.add(child);
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const found = /switchyard gateway at (http:\/\/\S+)/.exec(stderr)?.[1];
      if (found) resolve(found);
    });
    child.once('exit', (code) => reject(new Error(`switchyard serve exited with ${code}:\n${stderr}`)));
  });
  return { url, child };
}

/** SIGKILL: nothing gets to save or hand over anything. */
async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
  children.delete(child);
}

test('a chain of three turns goes on after the worker and the gateway are killed and started again between turns', async () => {
  const configFile = path.join(directory, 'switchyard.config.json');
  const keysFile = path.join(directory, 'keys.json');
  // The gateway's routes as config text; the worker process serves the same ones (gatewayConfig).
  writeFileSync(
    configFile,
    JSON.stringify({
      providers: fakeProviders(fake, { openai: ['gpt-primary'], anthropic: ['claude-primary'] }),
      routes: {
        support: {
          targets: [
            { provider: 'openai', model: 'gpt-primary', timeoutMs: 10_000 },
            { provider: 'anthropic', model: 'claude-primary', timeoutMs: 10_000 },
          ],
        },
      },
      defaultRoute: 'support',
    }),
  );
  const key = new KeyStore({ file: keysFile }).create({ routes: ['*'] }).key;
  const tools: OpenAI.Responses.Tool[] = [
    {
      type: 'function',
      name: 'get_weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      strict: false,
    },
  ];
  fake.script('gpt-primary', [
    { kind: 'answer', toolCalls: [{ name: 'get_weather', arguments: { city: 'Lyon' } }] },
    { kind: 'answer', text: 'It is sunny in Lyon.', chunkDelayMs: 5 },
    { kind: 'answer', text: 'Take sunglasses.' },
  ]);

  /** One generation of processes: a worker and a gateway, and a client of that gateway. */
  const generation = async () => {
    const [worker, gateway] = await Promise.all([startWorker(), serve(configFile, keysFile)]);
    const openai = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    return { openai, stop: () => Promise.all([kill(worker), kill(gateway.child)]) };
  };

  const one = await generation();
  const first = await one.openai.responses.create({
    model: 'support',
    instructions: 'You are a weather bot.',
    input: 'Weather in Lyon?',
    tools,
  });
  const call = first.output.find((item) => item.type === 'function_call')!;
  expect(call).toMatchObject({ name: 'get_weather', arguments: '{"city":"Lyon"}' });
  await one.stop();

  // Everything restarted: the second turn, streamed, continues from the first.
  const two = await generation();
  const stream = two.openai.responses.stream({
    model: 'support',
    previous_response_id: first.id,
    input: [{ type: 'function_call_output', call_id: call.call_id, output: 'sunny, 24 C' }],
    tools,
  });
  const second = await stream.finalResponse();
  expect(second.status).toBe('completed');
  await two.stop();

  const three = await generation();
  const third = await three.openai.responses.create({
    model: 'support',
    previous_response_id: second.id,
    input: 'What should I take?',
  });
  expect(third.output_text).toBe('Take sunglasses.');
  // And the first response still reads back as it was answered, from processes that never saw it.
  expect(await three.openai.responses.retrieve(first.id)).toEqual(first);
  await three.stop();

  const bodies = fake
    .requestsFor('gpt-primary')
    .map((request) => request.body as { messages: Record<string, unknown>[] });
  expect(bodies).toHaveLength(3);
  expect(bodies[2]!.messages.map((message) => message.role)).toEqual([
    'user',
    'assistant',
    'tool',
    'assistant',
    'user',
  ]);
  expect(bodies[2]!.messages[2]).toMatchObject({ tool_call_id: call.call_id, content: 'sunny, 24 C' });
  expect(bodies[2]!.messages[3]).toMatchObject({ content: 'It is sunny in Lyon.' });
});

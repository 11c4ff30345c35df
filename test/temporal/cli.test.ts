// The `switchyard` CLI end to end on a real dev server: call (prompts, whole conversations, images) and show, run
// in-process against a test worker.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CommandIo } from '../../src/cli/command-io';
import { assistantMessageOf, type AnswerContent } from '../../src/config/conversation';
import { ExitCode } from '../../src/cli/exit-codes';
import { main } from '../../src/cli/main';
import type { RoutingRecord } from '../../src/routing/routing-record';
import { startHarness, type Harness } from '../support/harness';
import { temporalAddress, uniqueName } from '../support/temporal';

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => harness?.close());
beforeEach(() => harness.fake.reset());

const terminalStdin: CommandIo['stdin'] = {
  isTTY: true,
  [Symbol.asyncIterator]() {
    throw new Error('stdin must not be read');
  },
};

/** Runs `switchyard <argv> --address <dev server> --task-queue <taskQueue>` in-process. */
async function switchyard(taskQueue: string, argv: readonly string[]) {
  let out = '';
  let err = '';
  const io: CommandIo = {
    stdout: { write: (text: string) => (out += text) },
    stderr: { write: (text: string) => (err += text) },
    stdin: terminalStdin,
  };
  const code = await main([...argv, '--address', temporalAddress(), '--task-queue', taskQueue], io);
  return { code, out, err };
}

test('call prints the answer on stdout and the routing record on stderr, failover included', async () => {
  harness.fake.script('gpt-primary', { kind: 'error', error: 'rate_limited' });
  harness.fake.script('claude-primary', { kind: 'answer', text: 'Two plus two is four.' });

  const { code, out, err } = await harness.withWorker((_switchyard, taskQueue) =>
    switchyard(taskQueue, ['call', 'What is 2+2?', '--route', 'support', '--max-output-tokens', '50']),
  );

  expect({ code, out }).toEqual({ code: ExitCode.ok, out: 'Two plus two is four.\n' });
  expect(err).toMatch(/^served by +anthropic\/claude-primary \(target 2\)$/m);
  expect(err).toMatch(/^1 +openai\/gpt-primary +0 +failed +rate_limited +429 /m);
  expect(err).toMatch(/^2 +anthropic\/claude-primary +0 +succeeded /m);
  // What the provider received: the prompt as the user message, and the token cap from the flag.
  const received = harness.fake.requestsFor('claude-primary')[0]!.body as {
    max_tokens: number;
    messages: { role: string; content: unknown }[];
  };
  expect(received.max_tokens).toBe(50);
  expect(JSON.stringify(received.messages)).toContain('What is 2+2?');
});

test('a failed call exits 1; --json prints the error type and the record', async () => {
  harness.fake.script('gpt-primary', { kind: 'error', error: 'server_error' });
  harness.fake.script('claude-primary', { kind: 'error', error: 'overloaded' });

  const { code, out, err } = await harness.withWorker((_switchyard, taskQueue) =>
    switchyard(taskQueue, ['call', 'Hello', '--json']),
  );

  expect(code).toBe(ExitCode.callFailed);
  expect(err).toBe('');
  const failure = JSON.parse(out) as { error: { type: string; workflowId: string }; record: RoutingRecord };
  expect(failure.error.type).toBe('AllTargetsFailed');
  expect(failure.record.workflowId).toBe(failure.error.workflowId);
  expect(failure.record.attempts.map((attempt) => attempt.failureClass)).toEqual([
    'unavailable',
    'unavailable',
  ]);
});

test('show prints the record of a completed call, a failed call, and the attempts of a running one', async () => {
  const completedKey = uniqueName('cli-done');
  const failedKey = uniqueName('cli-failed');
  harness.fake.script('gpt-primary', { kind: 'answer', text: 'done' });
  harness.fake.script('gpt-primary', { kind: 'error', error: 'bad_request' });

  await harness.withWorker(async (client, taskQueue) => {
    expect((await switchyard(taskQueue, ['call', 'one', '--idempotency-key', completedKey])).code).toBe(
      ExitCode.ok,
    );
    expect((await switchyard(taskQueue, ['call', 'two', '--idempotency-key', failedKey])).code).toBe(
      ExitCode.callFailed,
    );
    // The key of the completed call with another prompt: refused as a bad request, the first call untouched.
    const reused = await switchyard(taskQueue, [
      'call',
      'three',
      '--idempotency-key',
      completedKey,
      '--json',
    ]);
    expect({ code: reused.code, out: reused.out }).toEqual({ code: ExitCode.usage, out: '' });
    expect(reused.err).toContain(
      `idempotency key "${completedKey}" was already used for a call with a different input`,
    );

    const completed = await switchyard(taskQueue, ['show', `switchyard-call-${completedKey}`]);
    expect(completed.code).toBe(ExitCode.ok);
    expect(completed.out).toMatch(/^status +COMPLETED$/m);
    expect(completed.out).toMatch(/^1 +openai\/gpt-primary +0 +succeeded /m);

    const completedJson = await switchyard(taskQueue, ['show', `switchyard-call-${completedKey}`, '--json']);
    expect(JSON.parse(completedJson.out)).toMatchObject({ status: 'COMPLETED', answer: { text: 'done' } });

    const failed = await switchyard(taskQueue, ['show', `switchyard-call-${failedKey}`]);
    expect(failed.code).toBe(ExitCode.ok);
    expect(failed.out).toMatch(/^status +FAILED$/m);
    expect(failed.out).toMatch(/^error +InvalidRequest: /m);
    expect(failed.out).toMatch(/^1 +openai\/gpt-primary +0 +failed +invalid_request +400 /m);

    // A call stuck on a hanging provider is running, with no attempt ended yet.
    harness.fake.script('gpt-primary', { kind: 'hang' });
    const running = await client.start({ request: { messages: [{ role: 'user', content: 'wait' }] } });
    const shown = await switchyard(taskQueue, ['show', running.workflowId]);
    expect(shown.code).toBe(ExitCode.ok);
    expect(shown.out).toMatch(/^status +RUNNING$/m);
    expect(shown.out).toContain('(no attempt has ended yet)');
    await running.cancel();
  });
});

test('show of an unknown workflow id exits 2 and names it', async () => {
  const { code, out, err } = await switchyard('unused', ['show', 'switchyard-call-no-such-call']);
  expect(code).toBe(ExitCode.usage);
  expect(out).toBe('');
  expect(err).toContain('no workflow with id "switchyard-call-no-such-call"');
});

test('call --patience waits out a round of failures; --max-cost-usd refuses before any request', async () => {
  // Both targets fail once, then answer: without patience the call fails, with it a second round serves it.
  harness.fake.script('gpt-primary', { kind: 'error', error: 'server_error' });
  harness.fake.script('claude-primary', { kind: 'error', error: 'overloaded' });
  harness.fake.script('gpt-primary', { kind: 'answer', text: 'after the outage' });
  await harness.withWorker(async (_client, taskQueue) => {
    const patient = await switchyard(taskQueue, ['call', 'wait for it', '--patience', '1m', '--json']);
    expect(patient.code).toBe(ExitCode.ok);
    const { answer, record } = JSON.parse(patient.out) as { answer: { text: string }; record: RoutingRecord };
    expect(answer.text).toBe('after the outage');
    expect(record.rounds).toBe(2);

    const before = harness.fake.requests.length;
    const capped = await switchyard(taskQueue, ['call', 'too dear', '--max-cost-usd', '0.0000001', '--json']);
    expect(capped.code).toBe(ExitCode.callFailed);
    const failure = JSON.parse(capped.out) as {
      error: { type: string; message: string; budget: { limitedBy: string; availableUsd: number } };
    };
    expect(failure.error.type).toBe('BudgetExceeded');
    expect(failure.error.budget.limitedBy).toBe('call');
    // What the call may still spend: all of its maxCostUsd, since nothing was spent.
    expect(failure.error.budget.availableUsd).toBeCloseTo(0.0000001, 12);
    expect(failure.error.message).toContain('maxCostUsd');
    expect(harness.fake.requests.length).toBe(before);
  });
});

/** Writes `content` (JSON unless bytes) to a fresh tmp dir; returns its path. */
function writeTemp(name: string, content: unknown): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'switchyard-cli-')), name);
  writeFileSync(file, Buffer.isBuffer(content) ? content : JSON.stringify(content));
  return file;
}

test('call --request runs a tool loop: the tool call printed with its id, the result sent back as a tool message', async () => {
  harness.fake.script('gpt-primary', {
    kind: 'answer',
    toolCalls: [{ name: 'look_up_order', arguments: { orderId: 'A-1001' } }],
  });
  harness.fake.script('gpt-primary', { kind: 'answer', text: 'A-1001 has shipped.' });
  const tools = [
    {
      name: 'look_up_order',
      parameters: { type: 'object', properties: { orderId: { type: 'string' } } },
    },
  ];
  const question = { role: 'user' as const, content: 'Where is my order A-1001?' };

  await harness.withWorker(async (_client, taskQueue) => {
    const first = await switchyard(taskQueue, [
      'call',
      '--request',
      writeTemp('turn-1.json', { messages: [question], tools }),
      '--json',
    ]);
    expect(first.code).toBe(ExitCode.ok);
    const { answer } = JSON.parse(first.out) as { answer: AnswerContent };
    expect(answer.toolCalls).toHaveLength(1);
    const call = answer.toolCalls[0]!;

    // The next turn, as a client writes it: the answer sent back unchanged, then the tool's result by call id.
    const secondTurn = {
      messages: [
        question,
        assistantMessageOf(answer),
        {
          role: 'tool',
          content: [{ type: 'tool_result', callId: call.id, content: '{"status":"shipped"}' }],
        },
      ],
      tools,
    };
    const second = await switchyard(taskQueue, ['call', '--request', writeTemp('turn-2.json', secondTurn)]);
    expect({ code: second.code, out: second.out }).toEqual({
      code: ExitCode.ok,
      out: 'A-1001 has shipped.\n',
    });

    const [, received] = harness.fake.requestsFor('gpt-primary');
    const body = received!.body as {
      tools: unknown[];
      messages: { role: string; content?: unknown; tool_call_id?: string; tool_calls?: { id: string }[] }[];
    };
    expect(body.tools).toHaveLength(1);
    expect(body.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
    expect(body.messages[1]!.tool_calls?.map((toolCall) => toolCall.id)).toEqual([call.id]);
    expect(body.messages[2]).toMatchObject({ tool_call_id: call.id, content: '{"status":"shipped"}' });
  });

  // Printed as text, the tool call shows its name, its id and its arguments.
  harness.fake.script('gpt-primary', {
    kind: 'answer',
    toolCalls: [{ name: 'look_up_order', arguments: { orderId: 'B-2' } }],
  });
  const printed = await harness.withWorker((_client, taskQueue) =>
    switchyard(taskQueue, ['call', '--request', writeTemp('turn.json', { messages: [question], tools })]),
  );
  expect(printed.code).toBe(ExitCode.ok);
  expect(printed.out).toMatch(/^\[tool call look_up_order \S+\] \{"orderId":"B-2"\}\n$/);
});

test('call --image sends the image bytes intact, base64 with their media type; --stop becomes stop', async () => {
  // A real 1×1 PNG: the fake, like the API, refuses bytes that are not the image type they claim.
  const png = Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
    'base64',
  );
  harness.fake.script('gpt-primary', { kind: 'answer', text: 'A single pixel.' });
  const { code, out } = await harness.withWorker((_client, taskQueue) =>
    switchyard(taskQueue, [
      'call',
      'What is in this picture?',
      '--image',
      writeTemp('pixel.png', png),
      '--stop',
      'END',
    ]),
  );
  expect({ code, out }).toEqual({ code: ExitCode.ok, out: 'A single pixel.\n' });
  const body = harness.fake.requestsFor('gpt-primary')[0]!.body as {
    stop?: unknown;
    messages: { role: string; content: { type: string; text?: string; image_url?: { url: string } }[] }[];
  };
  expect(body.stop).toEqual(['END']);
  const [image, text] = body.messages.at(-1)!.content;
  expect(image?.image_url?.url).toBe(`data:image/png;base64,${png.toString('base64')}`);
  expect(text).toEqual({ type: 'text', text: 'What is in this picture?' });
});

// Responses state read back from routed calls on a real dev server: a previous_response_id chain, key ownership,
// unstored and forged ids, calls that did not complete, and encrypted payloads.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import OpenAI from 'openai';
import { createProviderRegistry } from '../../src/activities/provider-registry';
import { createCodecKeyring } from '../../src/codec/codec-key';
import { switchyardDataConverter } from '../../src/codec/data-converter';
import { FilesystemPayloadStore } from '../../src/codec/filesystem-payload-store';
import { SwitchyardClient as Switchyard } from '../../src/client/switchyard-client';
import type { AssistantContentPart, GenerationRequestInput, ToolCallPart } from '../../src/config/request';
import type { StoredKey } from '../../src/gateway/gateway-key';
import { GatewayError } from '../../src/gateway/gateway-error';
import { responseIdOf } from '../../src/gateway/response-id';
import { conversationBefore, readStoredResponse } from '../../src/gateway/responses-state';
import { routedCallWorkflowId } from '../../src/workflows/definitions';
import { createSwitchyardWorker } from '../../src/worker';
import { eventually } from '../support/eventually';
import {
  sdkClients,
  startGatewayHarness,
  terminateBreakers,
  type GatewayHarness,
} from '../support/gateway-harness';
import { readableText } from '../support/secrets-scan';
import { sharedWorkflowBundle } from '../support/shared-bundles';
import { uniqueName } from '../support/temporal';
import { TEST_API_KEYS } from '../support/test-config';

let harness: GatewayHarness;
beforeAll(async () => {
  harness = await startGatewayHarness();
});
afterAll(async () => harness?.close());
beforeEach(() => harness.fake.reset());

const weatherTool = {
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

/** A key as the gateway's store holds it. */
function storedKey(): StoredKey {
  return harness.keys.create({ routes: ['*'] }).stored;
}

/**
 * Starts a routed call as the Responses surface does (its labels, its workflow ids) and waits for it to end;
 * returns the id the surface would answer with.
 */
async function respond(
  switchyard: Switchyard,
  key: StoredKey,
  request: GenerationRequestInput,
  options: { readonly store?: boolean; readonly surface?: string; readonly route?: string } = {},
): Promise<{ responseId: string; workflowId: string; ended: Promise<unknown> }> {
  const callKey = `gw-${randomUUID()}`;
  const store = options.store ?? true;
  const handle = await switchyard.start(
    {
      route: options.route ?? 'support',
      request,
      labels: {
        gateway: options.surface ?? 'responses',
        gatewayKey: key.id,
        ...(store ? {} : { responsesStore: 'false' }),
      },
    },
    { idempotencyKey: callKey },
  );
  const ended = handle.result().catch((error: unknown) => error);
  await ended;
  return { responseId: responseIdOf(handle.workflowId, store), workflowId: handle.workflowId, ended };
}

/** The refusal a read meets, for comparing refusals with each other. */
async function refusal(read: Promise<unknown>): Promise<{ status: number; code: string; param?: string }> {
  try {
    await read;
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    return {
      status: error.status,
      code: error.code,
      ...(error.context.param ? { param: error.context.param } : {}),
    };
  }
  throw new Error('expected the read to be refused, but it succeeded');
}

test('a chain of three turns with a function tool: each turn continues from the stored conversation', async () => {
  harness.fake.script('gpt-primary', [
    { kind: 'answer', toolCalls: [{ name: 'get_weather', arguments: { city: 'Lyon' } }] },
    { kind: 'answer', text: 'It is sunny in Lyon.' },
    { kind: 'answer', text: 'Take sunglasses.' },
  ]);
  await harness.withGateway(async ({ switchyard }) => {
    const key = storedKey();
    const first = await respond(switchyard, key, {
      system: 'You are a weather bot.',
      messages: [{ role: 'user', content: 'Weather in Lyon?' }],
      tools: [weatherTool],
    });
    const afterFirst = await conversationBefore(switchyard, first.responseId, key);
    expect(afterFirst).toHaveLength(2);
    expect(afterFirst[0]).toEqual({ role: 'user', content: 'Weather in Lyon?' });
    const call = afterFirst[1]!;
    expect(call.role).toBe('assistant');
    const toolCall = (call.content as AssistantContentPart[]).find(
      (part): part is ToolCallPart => part.type === 'tool_call',
    )!;
    expect(toolCall).toMatchObject({ name: 'get_weather' });
    expect(JSON.parse(toolCall.arguments)).toEqual({ city: 'Lyon' });

    // Turn two: the tool's result after the stored conversation; the instructions are the caller's to resend.
    const second = await respond(switchyard, key, {
      system: 'You are a weather bot.',
      messages: [
        ...afterFirst,
        { role: 'tool', content: [{ type: 'tool_result', callId: toolCall.id, content: 'sunny, 24 C' }] },
      ],
      tools: [weatherTool],
    });
    const afterSecond = await conversationBefore(switchyard, second.responseId, key);
    expect(afterSecond).toHaveLength(4);
    expect(afterSecond[3]).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'It is sunny in Lyon.' }],
    });

    const third = await respond(switchyard, key, {
      messages: [...afterSecond, { role: 'user', content: 'What should I take?' }],
    });
    const stored = await readStoredResponse(switchyard, third.responseId, key);
    expect(stored.status).toBe('completed');
    expect(stored.result?.answer.text).toBe('Take sunglasses.');
    expect(stored.workflowId).toBe(third.workflowId);
    expect(stored.input.request.messages).toHaveLength(5);

    // What the provider received on the third turn: the whole conversation, tool call and result paired.
    const received = harness.fake.requestsFor('gpt-primary')[2]!.body as {
      messages: Record<string, unknown>[];
    };
    expect(received.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
    ]);
    expect(received.messages[2]).toMatchObject({ tool_call_id: toolCall.id, content: 'sunny, 24 C' });
  });
});

test("another key's response, an unstored one, a Chat Completions call and forged ids are one and the same 404", async () => {
  await harness.withGateway(async ({ switchyard }) => {
    const owner = storedKey();
    const other = storedKey();
    const request = { messages: [{ role: 'user' as const, content: 'hello' }] };
    const stored = await respond(switchyard, owner, request);
    const unstored = await respond(switchyard, owner, request, { store: false });
    const chat = await respond(switchyard, owner, request, { surface: 'openai' });

    // The owner reads its stored response.
    expect((await readStoredResponse(switchyard, stored.responseId, owner)).status).toBe('completed');

    const notFound = { status: 404, code: 'response_not_found', param: 'response_id' };
    const unknownWorkflow = responseIdOf(routedCallWorkflowId(`gw-${randomUUID()}`), true);
    const ids = [
      stored.responseId, // read by another key, below
      unstored.responseId, // resp_x…: names nothing
      responseIdOf(unstored.workflowId, true), // forged from the unstored call's workflow id
      responseIdOf(chat.workflowId, true), // a call of another surface
      unknownWorkflow,
      'resp_s!!!',
      'not-an-id',
      `resp_s${'A'.repeat(2_000)}`,
    ];
    expect(await refusal(readStoredResponse(switchyard, stored.responseId, other))).toEqual(notFound);
    for (const id of ids.slice(1)) {
      expect(await refusal(readStoredResponse(switchyard, id, owner))).toEqual(notFound);
    }
    // As previous_response_id, the same refusal names that field.
    const previousNotFound = {
      status: 404,
      code: 'previous_response_not_found',
      param: 'previous_response_id',
    };
    expect(await refusal(conversationBefore(switchyard, stored.responseId, other))).toEqual(previousNotFound);
    expect(await refusal(conversationBefore(switchyard, unstored.responseId, owner))).toEqual(
      previousNotFound,
    );
    expect(
      await refusal(conversationBefore(switchyard, responseIdOf(unstored.workflowId, true), owner)),
    ).toEqual(previousNotFound);

    // Refusals say nothing that tells one case from another: the messages differ only by the id they echo.
    const messages = await Promise.all(
      [stored.responseId, unknownWorkflow].map(async (id) => {
        try {
          await readStoredResponse(switchyard, id, other);
        } catch (error) {
          return (error as Error).message.replace(id, '<id>');
        }
        return 'read';
      }),
    );
    expect(messages[0]).toBe(messages[1]);
  });
});

test('a previous response that failed is a 400, one still running a 409, both naming previous_response_id', async () => {
  harness.fake.script('gpt-fragile', { kind: 'error', error: 'bad_request' });
  harness.fake.script('gpt-primary', { kind: 'hang' });
  await harness.withGateway(async ({ switchyard }) => {
    const key = storedKey();
    const request = { messages: [{ role: 'user' as const, content: 'hello' }] };
    const failed = await respond(switchyard, key, request, { route: 'fragile' });
    const failedRead = await readStoredResponse(switchyard, failed.responseId, key);
    expect(failedRead.status).toBe('failed');
    expect(failedRead.error?.type).toBe('InvalidRequest');
    expect(await refusal(conversationBefore(switchyard, failed.responseId, key))).toEqual({
      status: 400,
      code: 'previous_response_not_completed',
      param: 'previous_response_id',
    });

    // A call still running: started, not awaited.
    const handle = await switchyard.start(
      { route: 'support', request, labels: { gateway: 'responses', gatewayKey: key.id } },
      { idempotencyKey: `gw-${randomUUID()}` },
    );
    const running = responseIdOf(handle.workflowId, true);
    expect((await readStoredResponse(switchyard, running, key)).status).toBe('in_progress');
    expect(await refusal(conversationBefore(switchyard, running, key))).toEqual({
      status: 409,
      code: 'previous_response_in_progress',
      param: 'previous_response_id',
    });
    await handle.cancel();
  });
});

test('reasoning comes back with its origin and signature, and goes back to the kind that made it', async () => {
  harness.fake.script('claude-secondary', [
    { kind: 'answer', text: 'Forty-two.', reasoning: 'Counting the towels first.' },
    { kind: 'answer', text: 'Still forty-two.' },
  ]);
  await harness.withGateway(async ({ switchyard }) => {
    const key = storedKey();
    const request = {
      messages: [{ role: 'user' as const, content: 'How many?' }],
      maxOutputTokens: 4096,
      reasoning: { budgetTokens: 1024 },
    };
    const first = await respond(switchyard, key, request, { route: 'reverse' });
    const conversation = await conversationBefore(switchyard, first.responseId, key);
    const [reasoning, text] = conversation[1]!.content as AssistantContentPart[];
    expect(reasoning).toMatchObject({
      type: 'reasoning',
      text: 'Counting the towels first.',
      origin: 'anthropic',
    });
    expect((reasoning as { signature?: string }).signature).toEqual(expect.any(String));
    expect(text).toEqual({ type: 'text', text: 'Forty-two.' });

    await respond(
      switchyard,
      key,
      { ...request, messages: [...conversation, { role: 'user', content: 'Sure?' }] },
      { route: 'reverse' },
    );
    const received = harness.fake.requestsFor('claude-secondary')[1]!.body as {
      messages: { role: string; content: { type: string; signature?: string }[] }[];
    };
    expect(received.messages[1]!.content[0]).toMatchObject({
      type: 'thinking',
      signature: (reasoning as { signature?: string }).signature,
    });
  });
});

test('with encryption and the payload store, the conversation reads back whole and history holds neither', async () => {
  const storeDirectory = mkdtempSync(path.join(tmpdir(), 'switchyard-responses-store-'));
  const dataConverter = switchyardDataConverter({
    keyring: createCodecKeyring({ id: uniqueName('responses'), material: randomBytes(32) }),
    payloadStore: { store: new FilesystemPayloadStore(storeDirectory), thresholdBytes: 4096 },
  });
  const { config, temporal, fake } = harness;
  await terminateBreakers(temporal, config);
  const taskQueue = uniqueName('responses-encrypted');
  const worker = await createSwitchyardWorker({
    config,
    connection: temporal.nativeConnection,
    taskQueue,
    // As createSwitchyardWorker bundles with a codec key: workflow failures use the encrypting converter.
    workflowBundle: await sharedWorkflowBundle('switchyard-encrypting'),
    providers: createProviderRegistry(config, { ...TEST_API_KEYS }),
    dataConverter,
  });
  const client = new Client({ connection: temporal.client.connection, dataConverter });
  const switchyard = new Switchyard({ client, taskQueue, config });
  const marker = `Okapi-${randomUUID().slice(0, 8)}`;
  // Long enough that the input goes to the payload store; the marker shows whether plaintext reached history.
  const longPrompt = `${marker} ${'tell me about the savanna. '.repeat(400)}`;
  fake.script('gpt-primary', { kind: 'answer', text: `${marker} lives in the forest` });
  try {
    await worker.runUntil(
      (async () => {
        const key = storedKey();
        const first = await respond(switchyard, key, { messages: [{ role: 'user', content: longPrompt }] });
        const conversation = await conversationBefore(switchyard, first.responseId, key);
        expect(conversation[0]).toEqual({ role: 'user', content: longPrompt });
        expect(conversation[1]).toEqual({
          role: 'assistant',
          content: [{ type: 'text', text: `${marker} lives in the forest` }],
        });
        // Read without the codec: what the server holds.
        const { text: history } = await readableText(
          temporal.client,
          await temporal.client.workflow.getHandle(first.workflowId).fetchHistory(),
        );
        expect(history.includes(marker)).toBe(false);
        expect(readdirSync(storeDirectory).length).toBeGreaterThan(0);
      })(),
    );
  } finally {
    rmSync(storeDirectory, { recursive: true, force: true });
  }
});

describe('through the Responses surface, with the openai client', () => {
  const tools: OpenAI.Responses.Tool[] = [
    {
      type: 'function',
      name: 'get_weather',
      description: weatherTool.description,
      parameters: weatherTool.parameters,
      strict: false,
    },
  ];

  test('a previous_response_id chain of three turns with a function tool; each response reads back as it was answered', async () => {
    harness.fake.script('gpt-primary', [
      { kind: 'answer', toolCalls: [{ name: 'get_weather', arguments: { city: 'Lyon' } }] },
      { kind: 'answer', text: 'It is sunny in Lyon.' },
      { kind: 'answer', text: 'Take sunglasses.' },
    ]);
    await harness.withGateway(async ({ openai }) => {
      const first = await openai.responses.create({
        model: 'support',
        instructions: 'You are a weather bot.',
        input: 'Weather in Lyon?',
        tools,
      });
      const call = first.output.find((item) => item.type === 'function_call')!;
      expect(call).toMatchObject({ name: 'get_weather', arguments: '{"city":"Lyon"}' });
      const second = await openai.responses.create({
        model: 'support',
        previous_response_id: first.id,
        input: [{ type: 'function_call_output', call_id: call.call_id, output: 'sunny, 24 C' }],
        tools,
      });
      expect(second.output_text).toBe('It is sunny in Lyon.');
      expect(second.previous_response_id).toBe(first.id);
      const third = await openai.responses.create({
        model: 'support',
        previous_response_id: second.id,
        input: 'What should I take?',
      });
      expect(third.output_text).toBe('Take sunglasses.');

      // The provider saw the whole conversation on the third turn, and the first turn's instructions only then.
      const bodies = harness.fake
        .requestsFor('gpt-primary')
        .map((request) => request.body as { messages: Record<string, unknown>[] });
      expect(bodies[0]!.messages[0]).toEqual({ role: 'system', content: 'You are a weather bot.' });
      expect(bodies[2]!.messages.map((message) => message.role)).toEqual([
        'user',
        'assistant',
        'tool',
        'assistant',
        'user',
      ]);
      expect(bodies[2]!.messages[2]).toMatchObject({ tool_call_id: call.call_id, content: 'sunny, 24 C' });

      // Each reads back exactly as its POST answered it (the SDK adds output_text to both alike).
      for (const answered of [first, second, third]) {
        const read = await openai.responses.retrieve(answered.id);
        expect(read).toEqual(answered);
      }

      // The third's input items: the whole conversation it was given, oldest first, two to a page.
      const items: OpenAI.Responses.ResponseItem[] = [];
      for await (const item of openai.responses.inputItems.list(third.id, { order: 'asc', limit: 2 }))
        items.push(item);
      expect(items.map((item) => [item.type, 'role' in item ? item.role : null])).toEqual([
        ['message', 'user'],
        ['function_call', null],
        ['function_call_output', null],
        ['message', 'assistant'],
        ['message', 'user'],
      ]);
      expect(items[2]).toMatchObject({ call_id: call.call_id, output: 'sunny, 24 C' });
      expect(items[4]).toMatchObject({ content: [{ type: 'input_text', text: 'What should I take?' }] });
      expect(new Set(items.map((item) => item.id)).size).toBe(5);
      // Newest first by default, as on OpenAI.
      const newest = await openai.responses.inputItems.list(third.id);
      expect(newest.data.map((item) => item.id)).toEqual(items.map((item) => item.id).reverse());
    });
  });

  test("another key's response, an unstored one and an id forged from an unstored call are 404 on GET and as previous_response_id", async () => {
    await harness.withGateway(async ({ openai, gateway, makeKey }) => {
      const stored = await openai.responses.create({ model: 'support', input: 'hello' });
      const { data: unstored, response } = await openai.responses
        .create({ model: 'support', input: 'hello', store: false })
        .withResponse();
      expect(unstored.id).toMatch(/^resp_x/);
      // The routing header names the unstored call's workflow: an id built from it still reads nothing.
      const forged = responseIdOf(response.headers.get('x-switchyard-workflow-id')!, true);
      const other = sdkClients(gateway.url, makeKey({ routes: ['*'] })).openai;

      const refusals: [() => Promise<unknown>, string][] = [
        [() => other.responses.retrieve(stored.id), 'response_id'],
        [() => other.responses.inputItems.list(stored.id), 'response_id'],
        [() => other.responses.delete(stored.id), 'response_id'],
        ...[unstored.id, forged].map((id): [() => Promise<unknown>, string] => [
          () => openai.responses.retrieve(id),
          'response_id',
        ]),
        [
          () =>
            other.responses.create({ model: 'support', input: 'and now?', previous_response_id: stored.id }),
          'previous_response_id',
        ],
        ...[unstored.id, forged].map((id): [() => Promise<unknown>, string] => [
          () => openai.responses.create({ model: 'support', input: 'and now?', previous_response_id: id }),
          'previous_response_id',
        ]),
      ];
      for (const [refused, field] of refusals) {
        const error = await refused().catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(OpenAI.NotFoundError);
        expect(((error as InstanceType<typeof OpenAI.NotFoundError>).error as { param?: string }).param).toBe(
          field,
        );
      }
      // Its owner reads it.
      expect((await openai.responses.retrieve(stored.id)).id).toBe(stored.id);
    });
  });

  test("an item reference is read back from its key's stored response; another key's is a 404, an unstored one's a 400, both naming the item", async () => {
    await harness.withGateway(async ({ openai, gateway, makeKey }) => {
      const stored = await openai.responses.create({ model: 'support', input: 'hello' });
      const unstored = await openai.responses.create({ model: 'support', input: 'hello', store: false });
      const itemOf = (response: OpenAI.Responses.Response) => response.output[0]!.id!;
      const referring = (id: string): OpenAI.Responses.ResponseInput => [
        { role: 'user', content: 'hello' },
        { type: 'item_reference', id },
        { role: 'user', content: 'and now?' },
      ];
      // Its owner's reference stands for the item: the provider is sent the answer it names.
      const continued = await openai.responses.create({ model: 'support', input: referring(itemOf(stored)) });
      expect(continued.status).toBe('completed');
      const sent = JSON.stringify(harness.fake.requests.at(-1)!.body);
      expect(sent).toContain(JSON.stringify(stored.output_text));

      const other = sdkClients(gateway.url, makeKey({ routes: ['*'] })).openai;
      const notFound = await other.responses
        .create({ model: 'support', input: referring(itemOf(stored)) })
        .catch((caught: unknown) => caught);
      expect(notFound).toBeInstanceOf(OpenAI.NotFoundError);
      expect((notFound as InstanceType<typeof OpenAI.NotFoundError>).error).toMatchObject({
        param: 'input.1.id',
      });
      const refused = await openai.responses
        .create({ model: 'support', input: referring(itemOf(unstored)) })
        .catch((caught: unknown) => caught);
      expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
      expect((refused as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({
        param: 'input.1.type',
      });
    });
  });

  test('DELETE removes a response (GET is then a 404); the response that continued it still reads and continues', async () => {
    harness.fake.script('gpt-primary', [
      { kind: 'answer', text: 'One.' },
      { kind: 'answer', text: 'Two.' },
      { kind: 'answer', text: 'Three.' },
    ]);
    await harness.withGateway(async ({ openai }) => {
      const first = await openai.responses.create({ model: 'support', input: 'Count.' });
      const second = await openai.responses.create({
        model: 'support',
        input: 'Go on.',
        previous_response_id: first.id,
      });
      // The SDK types it void; the body is OpenAI's deletion object.
      expect(await openai.responses.delete(first.id)).toEqual({
        id: first.id,
        object: 'response',
        deleted: true,
      });
      await eventually(
        'the deleted response reads as not found',
        () =>
          openai.responses.retrieve(first.id).then(
            () => 'found',
            (error: unknown) => error,
          ),
        (error) => error instanceof OpenAI.NotFoundError,
      );
      expect((await openai.responses.retrieve(second.id)).output_text).toBe('Two.');
      const third = await openai.responses.create({
        model: 'support',
        input: 'Again.',
        previous_response_id: second.id,
      });
      expect(third.output_text).toBe('Three.');
      const messages = (harness.fake.requestsFor('gpt-primary')[2]!.body as { messages: unknown[] }).messages;
      expect(messages).toHaveLength(5);
      // Deleting again, or another's: the same 404.
      expect(await openai.responses.delete(first.id).catch((error: unknown) => error)).toBeInstanceOf(
        OpenAI.NotFoundError,
      );
    });
  });

  test('a response that failed reads back as failed, with the failure and no output', async () => {
    harness.fake.script('gpt-fragile', { kind: 'error', error: 'bad_request' });
    await harness.withGateway(async ({ openai, switchyard }) => {
      const refused = await openai.responses
        .create({ model: 'fragile', input: 'hello' })
        .withResponse()
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
      const workflowId = (refused as InstanceType<typeof OpenAI.BadRequestError>).headers?.get(
        'x-switchyard-workflow-id',
      );
      expect(workflowId).toBeTruthy();
      const read = await openai.responses.retrieve(responseIdOf(workflowId!, true));
      expect(read.status).toBe('failed');
      expect(read.error).toMatchObject({ code: 'InvalidRequest' });
      expect(read.output).toEqual([]);
      expect((await switchyard.inspect(workflowId!)).status).toBe('FAILED');
    });
  });
});

// Routed calls on a real dev server: deadline, cancellation, idempotency, input validation, history contents.
import { ROUTED_CALL_WORKFLOW_TYPE } from '../../src/workflows/definitions';
import { setTimeout as delay } from 'node:timers/promises';
import { IdempotencyConflictError, InvalidRequestError } from '../../src/client/errors';
import { SwitchyardClient } from '../../src/client/switchyard-client';
import { startHarness, type Harness } from '../support/harness';
import { expectRoutedCallError } from '../support/expect-failure';
import { TEST_API_KEYS } from '../support/test-config';
import { uniqueName } from '../support/temporal';

const request = { messages: [{ role: 'user' as const, content: 'Say hello' }], maxOutputTokens: 64 };

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => harness?.close());
beforeEach(() => harness.fake.reset());

async function waitFor(condition: () => boolean | Promise<boolean>): Promise<void> {
  for (let tries = 0; tries < 200; tries += 1) {
    if (await condition()) return;
    await delay(50);
  }
  throw new Error('condition not met in time');
}

test('the call deadline stops the walk before further targets', async () => {
  harness.fake.script('gpt-primary', { kind: 'hang' });
  const route = {
    targets: [
      { provider: 'openai', model: 'gpt-primary', timeoutMs: 30_000 },
      { provider: 'anthropic', model: 'claude-primary', timeoutMs: 30_000 },
    ],
  };
  const error = await expectRoutedCallError(
    harness.withWorker((switchyard) => switchyard.generate({ route, request, deadlineMs: 1_000 })),
  );
  expect(error.type).toBe('DeadlineExceeded');
  expect(error.record?.attempts).toHaveLength(1);
  expect(error.record?.attempts[0]).toMatchObject({ failureClass: 'timeout' });
  expect(harness.fake.counters('claude-primary').requests).toBe(0);
});

test("the deadline counts from the call's start, time spent waiting for a worker included", async () => {
  const taskQueue = uniqueName('late-worker');
  const caller = new SwitchyardClient({ client: harness.temporal.client, taskQueue, config: harness.config });
  const handle = await caller.start({ route: 'support', request, deadlineMs: 1_000 });
  // No worker polls the queue yet: the whole deadline passes before any worker sees the call.
  await delay(2_000);
  const error = await expectRoutedCallError(harness.withWorker(() => handle.result(), { taskQueue }));
  expect(error.type).toBe('DeadlineExceeded');
  expect(error.record?.attempts).toEqual([]);
  expect(harness.fake.requests).toHaveLength(0);
});

test('cancelling a call ends it as cancelled with no further attempt', async () => {
  harness.fake.script('gpt-primary', { kind: 'hang' });
  const error = await expectRoutedCallError(
    harness.withWorker(async (switchyard) => {
      const handle = await switchyard.start({ route: 'support', request });
      await waitFor(() => harness.fake.counters('gpt-primary').requests === 1);
      await handle.cancel();
      return handle.result();
    }),
  );
  expect(error.type).toBe('Cancelled');
  expect(error.record?.attempts.map((attempt) => attempt.failureClass)).toEqual(['cancelled']);
  expect(harness.fake.counters('claude-primary').requests).toBe(0);
});

test("a cancelled stream's provider request stops at the next piece's heartbeat, not a heartbeat timeout later", async () => {
  // 40 words, one every 200 ms: 8 s of stream. With a 30 s heartbeat timeout Temporal's default would hold the
  // attempt's beats for 24 s, so the stream would end answered before the cancellation reached it; the worker
  // lets each piece's beat out within half a second.
  const text = Array.from({ length: 40 }, (_, index) => `word${index}`).join(' ');
  harness.fake.script('gpt-primary', { kind: 'answer', text, chunkDelayMs: 200 });
  const route = {
    targets: [{ provider: 'openai', model: 'gpt-primary', timeoutMs: 30_000 }],
    heartbeatTimeoutMs: 30_000,
  };
  const error = await expectRoutedCallError(
    harness.withWorker(async (switchyard) => {
      const handle = await switchyard.start({ route, request, stream: true });
      await waitFor(() => harness.fake.counters('gpt-primary').requests === 1);
      await delay(500);
      await handle.cancel();
      return handle.result();
    }),
  );
  expect(error.type).toBe('Cancelled');
  expect(error.record?.attempts.map((attempt) => attempt.failureClass)).toEqual(['cancelled']);
  // The provider request ended aborted, not answered.
  await waitFor(() => harness.fake.counters('gpt-primary').failed === 1);
  expect(harness.fake.counters('gpt-primary').answered).toBe(0);
});

test('a cancelled call stops its provider request at once, not at the next heartbeat', async () => {
  // With a 30 s heartbeat timeout the attempt's next beat is 10 s away and the provider answers in 6 s: only the
  // attempt's watch on its call can stop the request before the answer comes.
  harness.fake.script('gpt-primary', { kind: 'answer', delayMs: 6_000 });
  const route = {
    targets: [{ provider: 'openai', model: 'gpt-primary', timeoutMs: 30_000 }],
    heartbeatTimeoutMs: 30_000,
  };
  const error = await expectRoutedCallError(
    harness.withWorker(async (switchyard) => {
      const handle = await switchyard.start({ route, request });
      await waitFor(() => harness.fake.counters('gpt-primary').requests === 1);
      await delay(1_000);
      await handle.cancel();
      return handle.result();
    }),
  );
  expect(error.type).toBe('Cancelled');
  expect(error.record?.attempts.map((attempt) => attempt.failureClass)).toEqual(['cancelled']);
  // The request was aborted, so the provider never answered (and billed) it.
  expect(harness.fake.counters('gpt-primary')).toMatchObject({ failed: 1, answered: 0 });
});

test('a call cancelled before its attempt watches it still stops the request once the watch begins', async () => {
  harness.fake.script('gpt-primary', { kind: 'answer', delayMs: 6_000 });
  const route = {
    targets: [{ provider: 'openai', model: 'gpt-primary', timeoutMs: 30_000 }],
    heartbeatTimeoutMs: 30_000,
  };
  const error = await expectRoutedCallError(
    harness.withWorker(
      async (switchyard) => {
        const handle = await switchyard.start({ route, request });
        await waitFor(() => harness.fake.counters('gpt-primary').requests === 1);
        await handle.cancel();
        return handle.result();
      },
      { cancellationWatchAfterMs: 2_000 },
    ),
  );
  expect(error.type).toBe('Cancelled');
  expect(harness.fake.counters('gpt-primary')).toMatchObject({ failed: 1, answered: 0 });
});

test('an answer that arrives after the caller cancelled is paid for, and the call ends cancelled', async () => {
  // The provider answers in 1.5 s; with no watch the attempt hears of the cancel only on a heartbeat, and with a
  // 10 s heartbeat timeout its next one is seconds away: the answer reaches the call after the cancel, before the
  // attempt knew.
  harness.fake.script('gpt-primary', { kind: 'answer', delayMs: 1_500 });
  const route = {
    targets: [{ provider: 'openai', model: 'gpt-primary', timeoutMs: 30_000 }],
    heartbeatTimeoutMs: 10_000,
  };
  const error = await expectRoutedCallError(
    harness.withWorker(
      async (switchyard) => {
        const handle = await switchyard.start({ route, request });
        await waitFor(() => harness.fake.counters('gpt-primary').requests === 1);
        await handle.cancel();
        return handle.result();
      },
      { cancellationWatchAfterMs: false },
    ),
  );
  expect(error.type).toBe('Cancelled');
  const [attempt] = error.record?.attempts ?? [];
  // The provider answered and billed it: the record charges it, but no answer went to the caller who left.
  expect(attempt).toMatchObject({ outcome: 'succeeded' });
  expect(attempt?.costNanoUsd).toBeGreaterThan(0);
  expect(error.record?.servedBy).toBeUndefined();
});

test('the same idempotency key never calls a provider twice and returns the first result', async () => {
  const idempotencyKey = uniqueName('key');
  const [first, second] = await harness.withWorker(async (switchyard) => {
    const one = await switchyard.generate({ route: 'support', request }, { idempotencyKey });
    const two = await switchyard.generate({ route: 'support', request }, { idempotencyKey });
    return [one, two];
  });
  expect(second).toEqual(first);
  expect(harness.fake.requests).toHaveLength(1);
});

test('reusing an idempotency key with a different input is refused, running or finished, and starts nothing', async () => {
  const idempotencyKey = uniqueName('key');
  const running = uniqueName('key');
  harness.fake.script('gpt-primary', { kind: 'answer', text: 'first' });
  await harness.withWorker(async (switchyard) => {
    await switchyard.generate({ route: 'support', request }, { idempotencyKey });
    const changed = {
      route: 'support',
      request: { ...request, messages: [{ role: 'user' as const, content: 'Other' }] },
    };
    const conflict = await switchyard.generate(changed, { idempotencyKey }).catch((error: unknown) => error);
    expect(conflict).toBeInstanceOf(IdempotencyConflictError);
    expect(conflict).toMatchObject({ idempotencyKey, workflowId: `switchyard-call-${idempotencyKey}` });
    // Any field counts, not only the prompt; defaults filled in or not, the same input is the same call.
    await expect(
      switchyard.start({ route: 'support', request, budget: 'another-scope' }, { idempotencyKey }),
    ).rejects.toThrow(IdempotencyConflictError);
    const same = await switchyard.generate(
      { route: 'support', request: { ...request, maxOutputTokens: 64 }, stream: false },
      { idempotencyKey },
    );
    expect(same.answer.text).toBe('first');

    // While the first call still runs, a different input under its key is refused as well.
    harness.fake.script('gpt-primary', { kind: 'hang' });
    const handle = await switchyard.start({ route: 'support', request }, { idempotencyKey: running });
    await expect(
      switchyard.start(
        { route: 'support', request: { ...request, temperature: 1 } },
        { idempotencyKey: running },
      ),
    ).rejects.toThrow(IdempotencyConflictError);
    await handle.cancel();
  });
  // The digest is kept in the memo, never the prompt itself.
  const { memo } = await harness.temporal.client.workflow
    .getHandle(`switchyard-call-${idempotencyKey}`)
    .describe();
  expect(JSON.stringify(memo)).not.toContain('Say hello');
  // Neither refused input reached a provider (the hanging call may or may not have sent its own request).
  const sent = harness.fake.requests.map((received) => JSON.stringify(received.body));
  expect(sent.filter((body) => body.includes('Other') || body.includes('temperature'))).toEqual([]);
  expect(sent.filter((body) => body.includes('Say hello')).length).toBeGreaterThanOrEqual(1);
});

test('a bad request is refused at the client with the field named, and nothing starts', async () => {
  await harness.withWorker(async (switchyard) => {
    const bad = { route: 'support', request: { messages: [], maxOutputTokens: -1 } };
    await expect(switchyard.start(bad)).rejects.toThrow(InvalidRequestError);
    await expect(switchyard.start(bad)).rejects.toMatchObject({ field: 'request.messages' });
  });
  expect(harness.fake.requests).toHaveLength(0);
});

test('a client with the config refuses an unknown route before starting anything', async () => {
  await harness.withWorker(async (switchyard) => {
    await expect(switchyard.start({ route: 'nope', request })).rejects.toThrow(InvalidRequestError);
    await expect(switchyard.start({ route: 'nope', request })).rejects.toMatchObject({ field: 'route' });
    const inline = { route: { targets: [{ provider: 'openai', model: 'no-such-model' }] }, request };
    await expect(switchyard.start(inline)).rejects.toMatchObject({ field: 'route.targets.0.model' });
  });
  expect(harness.fake.requests).toHaveLength(0);
});

test('without a config at the client, an unknown route fails the workflow as InvalidRequest naming the route', async () => {
  const error = await expectRoutedCallError(
    harness.withWorker((_switchyard, taskQueue) =>
      new SwitchyardClient({ client: harness.temporal.client, taskQueue }).generate({
        route: 'nope',
        request,
      }),
    ),
  );
  expect(error.type).toBe('InvalidRequest');
  expect(error.message).toContain('unknown route "nope"');
  expect(harness.fake.requests).toHaveLength(0);
});

test('input that bypasses the client is validated again at workflow start', async () => {
  await harness.withWorker(async (_switchyard, taskQueue) => {
    const handle = await harness.temporal.client.workflow.start(ROUTED_CALL_WORKFLOW_TYPE, {
      taskQueue,
      workflowId: uniqueName('raw'),
      args: [{ request: { messages: [{ role: 'robot', content: 'x' }] } }],
    });
    await expect(handle.result()).rejects.toMatchObject({ cause: { type: 'InvalidRequest' } });
    // Through the client's handle the refusal names its field as a typed field.
    const refused = await expectRoutedCallError(
      new SwitchyardClient({ client: harness.temporal.client, taskQueue }).handle(handle.workflowId).result(),
    );
    expect(refused).toMatchObject({ type: 'InvalidRequest', field: 'request.messages.0.role' });
  });
});

test('history records the resolved route, and no API key appears anywhere in it', async () => {
  harness.fake.script('gpt-primary', { kind: 'error', error: 'authentication' });
  const { record } = await harness.withWorker((switchyard) =>
    switchyard.generate({ route: 'support', request }),
  );
  const history = await harness.temporal.client.workflow.getHandle(record.workflowId).fetchHistory();
  const text = JSON.stringify(history);
  for (const key of Object.values(TEST_API_KEYS)) {
    expect(text).not.toContain(key);
    expect(text).not.toContain(Buffer.from(key).toString('base64'));
  }
  // The route was resolved once, by the call's first local activity, whose result (targets with prices) is
  // in history.
  const localActivityTypes = (history.events ?? []).flatMap((event) => {
    const payload = event.markerRecordedEventAttributes?.details?.data?.payloads?.[0]?.data;
    return payload ? [JSON.parse(Buffer.from(payload).toString('utf8')).activity_type as string] : [];
  });
  expect(localActivityTypes.filter((type) => type === 'beginCall')).toHaveLength(1);
  expect(localActivityTypes).not.toContain('resolveRoute');
  // And the keys reached the provider all the same.
  expect(harness.fake.requests.every((received) => received.apiKeyFingerprint !== null)).toBe(true);
});

test('search attributes and the static summary describe the finished call', async () => {
  harness.fake.script('gpt-primary', { kind: 'error', error: 'rate_limited' });
  const { record } = await harness.withWorker((switchyard) =>
    switchyard.generate({ route: 'support', request }),
  );
  const description = await harness.temporal.client.workflow.getHandle(record.workflowId).describe();
  const attributes = description.searchAttributes;
  expect(attributes.SwitchyardRoute).toEqual(['support']);
  expect(attributes.SwitchyardOutcome).toEqual(['succeeded']);
  expect(attributes.SwitchyardServedBy).toEqual(['anthropic/claude-primary']);
  expect(attributes.SwitchyardFallbacks).toEqual([1]);
  expect(await description.staticSummary()).toMatch(/^route support · request [0-9a-f]{12}/);
});

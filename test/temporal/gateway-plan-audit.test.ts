// The gateway's plan (`POST /v1/route`, nothing sent) and audit (`GET /v1/generation`, every attempt) endpoints, key-scoped.
import { SwitchyardClient } from '../../src/client/switchyard-client';
import { startGateway } from '../../src/gateway/gateway-server';
import { eventually } from '../support/eventually';
import { startGatewayHarness, type GatewayHarness } from '../support/gateway-harness';
import { uniqueName } from '../support/temporal';

let harness: GatewayHarness;
beforeAll(async () => {
  harness = await startGatewayHarness();
});
afterAll(async () => harness?.close());
beforeEach(() => harness.fake.reset());

const hello = [{ role: 'user' as const, content: 'Say hello' }];

interface PlanBody {
  readonly object: string;
  readonly route: string;
  readonly maxOutputTokens: number;
  readonly deadlineMs?: number;
  readonly attempts: readonly {
    readonly attempt: number;
    readonly provider: string;
    readonly model: string;
    readonly timeoutMs: number;
    readonly boundNanoUsd: number;
    readonly boundUsd: number;
    readonly skip?: { readonly reason: string };
  }[];
}

interface AuditBody {
  readonly object: string;
  readonly id: string;
  readonly status: string;
  readonly route: string | null;
  readonly servedBy: { readonly deployment: string } | null;
  readonly fallbacks: number | null;
  readonly totalCostNanoUsd: number;
  readonly totalCostUsd: number;
  readonly error: { readonly type: string } | null;
  readonly attempts: readonly {
    readonly attempt: number;
    readonly deployment: string;
    readonly outcome: string;
    readonly failureClass?: string;
    readonly httpStatus?: number;
    readonly latencyMs: number;
    readonly reservedNanoUsd?: number;
    readonly reservedUsd?: number;
    readonly costNanoUsd: number;
    readonly costUsd: number;
    readonly costKnown: boolean;
  }[];
}

interface ErrorBody {
  readonly error: { readonly message: string; readonly code: string; readonly param: string | null };
}

async function plan(url: string, key: string, body: unknown, query = '') {
  const response = await fetch(`${url}/v1/route${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as unknown };
}

async function audit(url: string, key: string, id: string) {
  const response = await fetch(`${url}/v1/generation?id=${encodeURIComponent(id)}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  return { status: response.status, body: (await response.json()) as unknown };
}

test('a plan shows the route, its attempts, timeouts and reserved bounds, and sends nothing', async () => {
  await harness.withGateway(async ({ gateway, key }) => {
    const chat = await plan(gateway.url, key, { model: 'support', messages: hello, max_tokens: 64 });
    expect(chat.status).toBe(200);
    const body = chat.body as PlanBody;
    expect(body.object).toBe('switchyard.plan');
    expect(body.route).toBe('support');
    expect(body.maxOutputTokens).toBe(64);
    expect(body.attempts.map((attempt) => `${attempt.provider}/${attempt.model}`)).toEqual([
      'openai/gpt-primary',
      'anthropic/claude-primary',
    ]);
    for (const attempt of body.attempts) {
      expect(attempt.timeoutMs).toBe(10_000);
      expect(attempt.boundNanoUsd).toBeGreaterThan(0);
      expect(attempt.skip).toBeUndefined();
    }

    // The Messages shape by the surface hint; no model names the default route.
    const messages = await plan(gateway.url, key, { messages: hello, max_tokens: 32 }, '?surface=messages');
    expect(messages.status).toBe(200);
    expect((messages.body as PlanBody).route).toBe('support');
    expect((messages.body as PlanBody).maxOutputTokens).toBe(32);

    // The Chat parser's checks apply: a bad field is named.
    const bad = await plan(gateway.url, key, { model: 'support', messages: 'hi' });
    expect(bad.status).toBe(400);
    expect((bad.body as ErrorBody).error.param).toMatch(/^messages/);
    const unknownSurface = await plan(gateway.url, key, { messages: hello }, '?surface=fax');
    expect(unknownSurface.status).toBe(400);
    expect((unknownSurface.body as ErrorBody).error.param).toBe('surface');
  });
  // Not one request reached a provider.
  expect(harness.fake.requests).toHaveLength(0);
});

test('a plan for a route the key may not use is refused as the call would be', async () => {
  await harness.withGateway(async ({ gateway, makeKey }) => {
    const narrow = makeKey({ routes: ['reverse'] });
    const refused = await plan(gateway.url, narrow, { model: 'support', messages: hello });
    const call = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${narrow}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'support', messages: hello }),
    });
    expect(refused.status).toBe(404);
    expect(call.status).toBe(404);
    expect(refused.body).toEqual(await call.json());
    expect((refused.body as ErrorBody).error.code).toBe('model_not_found');

    const allowed = await plan(gateway.url, narrow, { model: 'reverse', messages: hello });
    expect(allowed.status).toBe(200);
    expect((allowed.body as PlanBody).route).toBe('reverse');

    const noKey = await fetch(`${gateway.url}/v1/route`, { method: 'POST', body: '{}' });
    expect(noKey.status).toBe(401);

    // The key's output ceiling holds for a plan as for a call: over it is refused, none asked gets the ceiling.
    const capped = harness.keys.create({ routes: ['*'], maxOutputTokens: 16 }).key;
    const over = await plan(gateway.url, capped, { model: 'support', messages: hello, max_tokens: 64 });
    expect(over.status).toBe(400);
    expect((over.body as ErrorBody).error.param).toBe('max_tokens');
    const unasked = await plan(gateway.url, capped, { model: 'support', messages: hello });
    expect((unasked.body as PlanBody).maxOutputTokens).toBe(16);
  });
  expect(harness.fake.requests).toHaveLength(0);
});

test("the audit of a call that failed over lists both attempts with the record's costs and reserved bounds", async () => {
  harness.fake.script('gpt-primary', { kind: 'error', error: 'server_error' });
  harness.fake.script('claude-primary', {
    kind: 'answer',
    text: 'hello from claude',
    usage: { inputTokens: 10, outputTokens: 5 },
  });
  await harness.withGateway(async ({ gateway, openai, switchyard, key, makeKey }) => {
    const request = { model: 'support', messages: hello, max_tokens: 64 };
    const planned = (await plan(gateway.url, key, request)).body as PlanBody;
    expect(harness.fake.requests).toHaveLength(0);
    const { response } = await openai.chat.completions.create(request).withResponse();
    const workflowId = response.headers.get('x-switchyard-workflow-id')!;

    const read = await audit(gateway.url, key, workflowId);
    expect(read.status).toBe(200);
    const body = read.body as AuditBody;
    const record = (await switchyard.inspect(workflowId)).record!;
    expect(body).toMatchObject({
      object: 'switchyard.generation',
      id: workflowId,
      status: 'completed',
      route: 'support',
      servedBy: { deployment: 'anthropic/claude-primary' },
      fallbacks: 1,
      totalCostNanoUsd: record.totalCostNanoUsd,
      totalCostUsd: record.totalCostUsd,
      error: null,
    });
    expect(body.attempts).toHaveLength(2);
    const [failed, served] = body.attempts;
    expect(failed).toMatchObject({
      attempt: 1,
      deployment: 'openai/gpt-primary',
      outcome: 'failed',
      httpStatus: 500,
    });
    expect(failed!.failureClass).toBeDefined();
    expect(served).toMatchObject({
      attempt: 2,
      deployment: 'anthropic/claude-primary',
      outcome: 'succeeded',
      costKnown: true,
    });
    // 10 input tokens at $1/M + 5 output tokens at $4/M.
    expect(served!.costUsd).toBeCloseTo(0.00003, 9);
    body.attempts.forEach((attempt, index) => {
      const recorded = record.attempts[index]!;
      expect(attempt.costNanoUsd).toBe(recorded.costNanoUsd);
      expect(attempt.latencyMs).toBe(recorded.latencyMs);
      expect(recorded.reservedNanoUsd).toBeGreaterThan(0);
      expect(attempt.reservedNanoUsd).toBe(recorded.reservedNanoUsd);
      // What the call reserved is what the plan said it would.
      expect(attempt.reservedNanoUsd).toBe(planned.attempts[index]!.boundNanoUsd);
      expect(attempt.reservedUsd).toBe(planned.attempts[index]!.boundUsd);
    });

    // Another key, an unknown id and an id of no gateway call get one and the same 404.
    const other = await audit(gateway.url, makeKey({ routes: ['*'] }), workflowId);
    const unknown = await audit(gateway.url, key, `${workflowId}-unknown`);
    const foreign = await audit(gateway.url, key, 'some-other-workflow');
    for (const refused of [other, unknown, foreign]) {
      expect(refused.status).toBe(404);
      expect((refused.body as ErrorBody).error.code).toBe('generation_not_found');
      expect((refused.body as ErrorBody).error.param).toBe('id');
    }
    const message = (read: { body: unknown }, id: string) =>
      (read.body as ErrorBody).error.message.replace(id, '<id>');
    expect(message(other, workflowId)).toBe(message(unknown, `${workflowId}-unknown`));

    const missing = await fetch(`${gateway.url}/v1/generation`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(missing.status).toBe(400);
  });
});

test('the audit of a failed call shows its failure and the attempt that failed', async () => {
  harness.fake.scriptAlways('gpt-fragile', { kind: 'error', error: 'server_error' });
  await harness.withGateway(async ({ gateway, key, switchyard }) => {
    const call = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'fragile', messages: hello }),
    });
    expect(call.status).toBe(502);
    const workflowId = call.headers.get('x-switchyard-workflow-id')!;
    const read = await audit(gateway.url, key, workflowId);
    expect(read.status).toBe(200);
    const body = read.body as AuditBody;
    const record = (await switchyard.inspect(workflowId)).record!;
    expect(body).toMatchObject({
      status: 'failed',
      route: 'fragile',
      servedBy: null,
      error: { type: 'AllTargetsFailed' },
      totalCostNanoUsd: record.totalCostNanoUsd,
    });
    expect(body.attempts).toHaveLength(1);
    expect(body.attempts[0]).toMatchObject({
      deployment: 'openai/gpt-fragile',
      outcome: 'failed',
      httpStatus: 500,
      reservedNanoUsd: record.attempts[0]!.reservedNanoUsd,
    });
  });
});

test('a running call shows what is known so far, and a cancelled one its record', async () => {
  harness.fake.script('gpt-primary', { kind: 'hang' });
  await harness.withGateway(async ({ gateway, key, switchyard }) => {
    // With an Idempotency-Key the call's id is known before it answers: the gateway scopes it to the key.
    const keyId = harness.keys.verify(key)!.id;
    const workflowId = `switchyard-call-gw-${keyId}-audit-running`;
    const call = fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'idempotency-key': 'audit-running',
      },
      body: JSON.stringify({ model: 'support', messages: hello }),
    });
    await eventually(
      'the first attempt reaches the provider',
      async () => harness.fake.requestsFor('gpt-primary').length,
      (count) => count === 1,
    );
    const running = await audit(gateway.url, key, workflowId);
    expect(running.status).toBe(200);
    expect(running.body).toMatchObject({
      status: 'in_progress',
      route: 'support',
      servedBy: null,
      fallbacks: null,
      error: null,
      // The hanging attempt has not ended, so the record holds none yet.
      attempts: [],
      totalCostNanoUsd: 0,
    });

    await switchyard.handle(workflowId).cancel();
    const cancelled = await eventually(
      'the audit shows the cancelled call',
      async () => (await audit(gateway.url, key, workflowId)).body as AuditBody,
      (body) => body.status === 'cancelled',
    );
    expect((await call).status).toBe(499);
    const record = (await switchyard.inspect(workflowId)).record!;
    expect(record.attempts.length).toBeGreaterThan(0);
    expect(cancelled.error?.type).toBe('Cancelled');
    expect(cancelled.attempts.map((attempt) => attempt.deployment)).toEqual(
      record.attempts.map((attempt) => `${attempt.provider}/${attempt.model}`),
    );
    expect(cancelled.attempts[0]).toMatchObject({
      deployment: 'openai/gpt-primary',
      costNanoUsd: record.attempts[0]!.costNanoUsd,
      reservedNanoUsd: record.attempts[0]!.reservedNanoUsd,
    });
  });
});

test('a running call no worker answers for is a 503 to ask again; once ended without a record, its failure', async () => {
  // A task queue no worker polls: the call runs, and nobody can say which attempts it has made.
  const switchyard = new SwitchyardClient({
    client: harness.temporal.client,
    taskQueue: uniqueName('switchyard-no-worker'),
    config: harness.config,
  });
  const gateway = await startGateway({ switchyard, config: harness.config, keys: harness.keys, port: 0 });
  try {
    const { key, stored } = harness.keys.create({ routes: ['*'] });
    const handle = await switchyard.start(
      {
        route: 'support',
        request: { messages: hello },
        labels: { gateway: 'openai', gatewayKey: stored.id },
      },
      { idempotencyKey: `gw-${stored.id}-no-worker` },
    );
    const running = await audit(gateway.url, key, handle.workflowId);
    expect(running.status).toBe(503);
    expect((running.body as ErrorBody).error.code).toBe('call_state_unavailable');

    await switchyard.temporal.workflow.getHandle(handle.workflowId).terminate('test: no worker');
    const ended = await audit(gateway.url, key, handle.workflowId);
    expect(ended.status).toBe(200);
    expect(ended.body).toMatchObject({
      status: 'failed',
      route: 'support',
      error: { type: 'Terminated' },
      attempts: [],
      totalCostNanoUsd: 0,
    });
  } finally {
    await gateway.close();
  }
  expect(harness.fake.requests).toHaveLength(0);
});

// The gateway's call preparation: what a key may learn about routes, and refusals of the caller's own making.
import { IdempotencyConflictError } from '../../../src/client/errors';
import { parseConfig } from '../../../src/config/load-config';
import { MAX_JSON_SCHEMA_DEPTH } from '../../../src/config/request';
import { prepareCall } from '../../../src/gateway/call-input';
import { GatewayError, toGatewayError } from '../../../src/gateway/gateway-error';
import type { StoredKey } from '../../../src/gateway/gateway-key';
import { anthropicSurface } from '../../../src/gateway/anthropic-surface';
import { openAISurface } from '../../../src/gateway/openai-surface';
import { parseResponsesRequest, responsesSurface } from '../../../src/gateway/responses-surface';
import type { SurfaceRequest } from '../../../src/gateway/surface';
import { TEST_CONFIG } from '../cli/cli-test-io';

const config = parseConfig(TEST_CONFIG);
const key: StoredKey = {
  id: '0123456789ab',
  sha256: '0'.repeat(64),
  routes: ['cheap'],
  createdAt: '2026-01-01T00:00:00.000Z',
};

function request(overrides: Partial<SurfaceRequest> = {}): SurfaceRequest {
  return {
    route: 'cheap',
    request: { messages: [{ role: 'user', content: 'hello' }] },
    stream: false,
    includeUsage: false,
    ...overrides,
  };
}

/** The error prepareCall refuses with, as the gateway answers it. */
function refusal(parsed: SurfaceRequest): GatewayError {
  try {
    prepareCall({
      surface: openAISurface,
      parsed,
      key,
      config,
      idempotencyKey: undefined,
      deadlineMs: 60_000,
    });
  } catch (error) {
    return toGatewayError(error);
  }
  throw new Error('expected a refusal');
}

function nested(depth: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let level = 1; level < depth; level += 1) schema = { type: 'object', properties: { inner: schema } };
  return schema;
}

/** Levels of objects and arrays in `value`, counted as the request schema does. */
function depthOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  return 1 + Math.max(0, ...Object.values(value).map(depthOf));
}

test('a route outside the key gets the same 404 as a route that does not exist', () => {
  const outside = refusal(request({ route: 'support' }));
  const unknown = refusal(request({ route: 'support-x' }));
  for (const error of [outside, unknown]) {
    expect(error.status).toBe(404);
    expect(error.code).toBe('model_not_found');
    expect(error.context.param).toBe('model');
  }
  expect(outside.message).toBe('model: no route named "support"');
  expect(unknown.message).toBe('model: no route named "support-x"');
});

test('a route the key holds is prepared', () => {
  expect(
    prepareCall({
      surface: openAISurface,
      parsed: request(),
      key,
      config,
      idempotencyKey: 'k1',
      deadlineMs: 60_000,
    }).route,
  ).toBe('cheap');
});

describe(`JSON schemas nested deeper than ${MAX_JSON_SCHEMA_DEPTH} levels are the caller's fault: a 400 naming the field`, () => {
  const deep = nested(5_000);

  test("a tool's parameters", () => {
    const error = refusal(
      request({
        request: {
          messages: [{ role: 'user', content: 'hello' }],
          tools: [{ name: 'lookup', parameters: deep }],
        },
      }),
    );
    expect(error.status).toBe(400);
    expect(error.message).toContain(`at most ${MAX_JSON_SCHEMA_DEPTH} levels deep`);
    expect(error.context.param).toContain('tools');
  });

  test('a response format', () => {
    const error = refusal(
      request({ request: { messages: [{ role: 'user', content: 'hello' }], jsonSchema: deep } }),
    );
    expect(error.status).toBe(400);
    expect(error.context.param).toContain('jsonSchema');
  });

  test(`exactly ${MAX_JSON_SCHEMA_DEPTH} levels is accepted, one more is not`, () => {
    const fits = { type: 'object', chain: chain(MAX_JSON_SCHEMA_DEPTH) };
    const over = { type: 'object', chain: chain(MAX_JSON_SCHEMA_DEPTH + 1) };
    expect(depthOf(fits)).toBe(MAX_JSON_SCHEMA_DEPTH);
    expect(depthOf(over)).toBe(MAX_JSON_SCHEMA_DEPTH + 1);
    const prepared = (jsonSchema: Record<string, unknown>) => () =>
      prepareCall({
        surface: openAISurface,
        parsed: request({ request: { messages: [{ role: 'user', content: 'hello' }], jsonSchema } }),
        key,
        config,
        idempotencyKey: undefined,
        deadlineMs: 60_000,
      });
    expect(prepared(fits)).not.toThrow();
    expect(prepared(over)).toThrow(`at most ${MAX_JSON_SCHEMA_DEPTH} levels deep`);
  });
});

/** An array nested `levels - 1` deep inside the top object: the whole value is `levels` deep. */
function chain(levels: number): unknown {
  let value: unknown = [];
  for (let level = 3; level <= levels; level += 1) value = level % 2 === 0 ? { next: value } : [value];
  return value;
}

test("an Idempotency-Key reused with another body is a 409 in each surface's shape, without the call's key", () => {
  const error = toGatewayError(
    new IdempotencyConflictError(
      'idempotency key "gw-0123456789ab-k1" was already used',
      'gw-0123456789ab-k1',
      'w-1',
    ),
  );
  expect(error.status).toBe(409);
  expect(error.code).toBe('idempotency_key_reused');
  expect(error.context.param).toBe('Idempotency-Key');
  expect(error.message).not.toContain('0123456789ab');
  expect(openAISurface.errorBody(error)).toMatchObject({
    error: { type: 'invalid_request_error', code: 'idempotency_key_reused', param: 'Idempotency-Key' },
  });
  expect(anthropicSurface.errorBody(error)).toMatchObject({ error: { type: 'invalid_request_error' } });
});

test("the Responses surface: a key's output ceiling names max_output_tokens; its labels beside the gateway's own", () => {
  const ceiling: StoredKey = { ...key, maxOutputTokens: 100 };
  const parsed = parseResponsesRequest({
    model: 'cheap',
    input: 'hello',
    max_output_tokens: 500,
    store: false,
  });
  let error: GatewayError | undefined;
  try {
    prepareCall({
      surface: responsesSurface,
      parsed,
      key: ceiling,
      config,
      idempotencyKey: undefined,
      deadlineMs: 60_000,
    });
  } catch (thrown) {
    error = toGatewayError(thrown);
  }
  expect(error?.status).toBe(400);
  expect(error?.context.param).toBe('max_output_tokens');

  const { input } = prepareCall({
    surface: responsesSurface,
    // A surface label cannot stand in for the gateway's own, which ownership is checked by.
    parsed: {
      ...parsed,
      request: { ...parsed.request, maxOutputTokens: 50 },
      labels: { gateway: 'openai', x: 'y' },
    },
    key: ceiling,
    config,
    idempotencyKey: undefined,
    deadlineMs: 60_000,
  });
  expect(input.labels).toEqual({ x: 'y', responsesStore: 'false', gateway: 'responses', gatewayKey: key.id });
});

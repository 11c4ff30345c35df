// The attributes Switchyard puts on attempt and call spans, from the activity input, its answer and the record.
import type { AttemptInput, TargetAttemptInput } from '../../../src/activities/attempt-types';
import type { ResolvedRoute, ResolvedTarget } from '../../../src/config/resolved-route';
import type { RoutingRecord } from '../../../src/routing/routing-record';
import {
  attemptAnswerAttributes,
  attemptFailureAttributes,
  attemptNumberOfSummary,
  attemptStartAttributes,
  callAttributes,
  skippedTargetEventAttributes,
  targetIndexOf,
} from '../../../src/workflows/tracing/span-attributes';

const prices = { inputUsdPerMillion: 1, cachedInputUsdPerMillion: 0.5, outputUsdPerMillion: 4 };
function target(provider: string, providerKind: ResolvedTarget['providerKind'], model: string, via?: string) {
  return { provider, providerKind, model, timeoutMs: 10_000, retries: 0, prices, ...(via ? { via } : {}) };
}
const request = { messages: [{ role: 'user' as const, content: 'secret prompt text' }], maxOutputTokens: 64 };

test('an admitted attempt: GenAI request attributes, its place, its bound, scope and the probe it held', () => {
  const input: TargetAttemptInput = {
    target: target('local-llm', 'openai-compatible', 'llama'),
    request: { ...request, temperature: 0.2 },
    timeoutMs: 5_000,
    stream: true,
    boundNanoUsd: 1234,
    reservation: { scope: 'team-a', reservationId: 'r', amountNanoUsd: 1234, leaseMs: 1, holder: 'w' },
    breaker: {
      provider: 'local-llm',
      model: 'llama',
      policy: { failureThreshold: 3, cooldownMs: 1 },
      caller: 'c',
      probe: true,
    },
  } as TargetAttemptInput;
  const attributes = attemptStartAttributes(input, { route: 'support', attempt: 2, targetIndex: 1 });
  expect(attributes).toEqual({
    'gen_ai.operation.name': 'chat',
    // An OpenAI-compatible service is named by its configured provider: the wire format is not the provider.
    'gen_ai.provider.name': 'local-llm',
    'gen_ai.request.model': 'llama',
    'gen_ai.request.max_tokens': 64,
    'gen_ai.request.temperature': 0.2,
    'switchyard.provider': 'local-llm',
    'switchyard.stream': true,
    'switchyard.route': 'support',
    'switchyard.attempt': 2,
    'switchyard.target.index': 1,
    'switchyard.breaker.state_seen': 'half_open',
    'switchyard.cost.bound_nano_usd': 1234,
    'switchyard.budget.scope': 'team-a',
  });
  expect(JSON.stringify(attributes)).not.toContain('secret prompt text');
});

test('an answered attempt: all prompt tokens counted once, the finish reason, the cost at the target prices', () => {
  const input = {
    target: target('openai', 'openai', 'gpt'),
    request,
    timeoutMs: 1,
    stream: false,
  } as AttemptInput;
  const attributes = attemptAnswerAttributes(input, {
    text: 'secret answer text',
    toolCalls: [],
    finishReason: { unified: 'length', raw: 'length' },
    usage: {
      inputTokens: 1_000,
      cachedInputTokens: 500,
      cacheWriteInputTokens: 100,
      outputTokens: 2_000,
      raw: {},
    },
    provider: 'openai',
    model: 'gpt-2026-01-01',
    requestId: 'req_1',
  });
  expect(attributes).toMatchObject({
    'gen_ai.response.model': 'gpt-2026-01-01',
    'gen_ai.response.finish_reasons': ['length'],
    'gen_ai.usage.input_tokens': 1_600,
    'gen_ai.usage.output_tokens': 2_000,
    'switchyard.provider_request_id': 'req_1',
    'switchyard.outcome': 'succeeded',
  });
  expect(attributes['switchyard.cost.nano_usd']).toBeGreaterThan(0);
  expect(JSON.stringify(attributes)).not.toContain('secret answer text');
});

test('a failed attempt: its class as error.type, the status and retry-after the provider gave', () => {
  expect(
    attemptFailureAttributes({
      failureClass: 'rate_limited',
      requestSent: true,
      details: { status: 429, retryAfterMs: 2_000, requestId: 'req_2' },
    }),
  ).toEqual({
    'switchyard.outcome': 'failed',
    'error.type': 'rate_limited',
    'switchyard.failure_class': 'rate_limited',
    'switchyard.request_sent': true,
    'http.response.status_code': 429,
    'switchyard.retry_after_ms': 2_000,
    'switchyard.provider_request_id': 'req_2',
  });
});

test("an attempt's place: the target index by provider, model and nested route, the number in its summary", () => {
  const route = {
    name: 'outer',
    targets: [target('openai', 'openai', 'gpt'), target('openai', 'openai', 'gpt', 'inner')],
  } as unknown as ResolvedRoute;
  const attempt = (via?: string) =>
    ({
      target: target('openai', 'openai', 'gpt', via),
      request,
      timeoutMs: 1,
      stream: false,
    }) as AttemptInput;
  expect(targetIndexOf(route, attempt())).toBe(0);
  expect(targetIndexOf(route, attempt('inner'))).toBe(1);
  expect(targetIndexOf(route, attempt('elsewhere'))).toBeUndefined();
  expect(attemptNumberOfSummary('#12 openai/gpt')).toBe(12);
  expect(attemptNumberOfSummary('openai/gpt')).toBeUndefined();
  expect(attemptNumberOfSummary(undefined)).toBeUndefined();
});

test('a failed call: its failure type as error.type, no served target; a skip as an event', () => {
  const record: RoutingRecord = {
    route: 'support',
    workflowId: 'call-1',
    fallbacks: 0,
    rounds: 1,
    totalCostNanoUsd: 0,
    totalCostUsd: 0,
    attempts: [
      {
        attempt: 1,
        targetIndex: 0,
        provider: 'openai',
        model: 'gpt',
        retry: 0,
        round: 1,
        outcome: 'skipped',
        skipReason: 'circuit_open',
        startedAt: '2026-12-03T00:00:00.000Z',
        latencyMs: 0,
        costNanoUsd: 0,
        costKnown: true,
      },
    ],
  };
  const attributes = callAttributes(record, 'CircuitOpen', 'team-a');
  expect(attributes).toMatchObject({
    'error.type': 'CircuitOpen',
    'switchyard.outcome': 'CircuitOpen',
    'switchyard.budget.scope': 'team-a',
    'switchyard.attempts': 1,
  });
  expect(attributes).not.toHaveProperty('switchyard.served_by');
  expect(skippedTargetEventAttributes(record.attempts[0]!)).toEqual({
    'switchyard.attempt': 1,
    'switchyard.target.index': 0,
    'switchyard.provider': 'openai',
    'gen_ai.request.model': 'gpt',
    'switchyard.skip_reason': 'circuit_open',
  });
});

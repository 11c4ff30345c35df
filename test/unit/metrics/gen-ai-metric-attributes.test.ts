// The labels of the GenAI client series: the conventions' attributes in Prometheus form, per attempt outcome.
import {
  GEN_AI_OPERATION_DURATION_BUCKETS,
  GEN_AI_TOKEN_USAGE_BUCKETS,
  GenAiMetric,
} from '../../../src/routing/gen-ai-conventions';
import {
  genAiAttemptLabels,
  genAiTokenLabels,
  prometheusLabelName,
} from '../../../src/workflows/gen-ai-metric-attributes';
import { GenAiPrometheusMetric } from '../../../src/workflows/metric-names';

test('attribute names become Prometheus label names: dots to underscores', () => {
  expect(prometheusLabelName('gen_ai.token.type')).toBe('gen_ai_token_type');
  expect(prometheusLabelName('error.type')).toBe('error_type');
  expect(prometheusLabelName('switchyard.route')).toBe('switchyard_route');
  expect(prometheusLabelName('already_fine')).toBe('already_fine');
  expect(prometheusLabelName('9.lives')).toBe('_9_lives');
});

test('the served names are the conventions names as an OpenTelemetry Prometheus exporter writes them', () => {
  // Dots to underscores; unit `s` adds `_seconds`; the annotation unit `{token}` adds nothing.
  expect(GenAiPrometheusMetric.tokenUsage).toBe(GenAiMetric.tokenUsage.replaceAll('.', '_'));
  expect(GenAiPrometheusMetric.operationDuration).toBe(
    `${GenAiMetric.operationDuration.replaceAll('.', '_')}_seconds`,
  );
});

test('an answered attempt: provider by kind, both models, route and outcome, no error.type', () => {
  const labels = genAiAttemptLabels(
    { provider: 'primary', model: 'gpt-4o', outcome: 'succeeded' },
    { route: 'support', providerKind: 'openai', responseModel: 'gpt-4o-2024-08-06' },
  );
  expect(labels).toEqual({
    gen_ai_operation_name: 'chat',
    gen_ai_provider_name: 'openai',
    gen_ai_request_model: 'gpt-4o',
    gen_ai_response_model: 'gpt-4o-2024-08-06',
    switchyard_route: 'support',
    switchyard_outcome: 'succeeded',
  });
});

test('a failed attempt carries its failure class as error.type and no response model', () => {
  const labels = genAiAttemptLabels(
    { provider: 'claude', model: 'claude-x', outcome: 'failed', failureClass: 'rate_limited' },
    // A response model passed by mistake for a failure is still left out: nothing answered.
    { route: 'inline', providerKind: 'anthropic', responseModel: 'claude-x' },
  );
  expect(labels).toEqual({
    gen_ai_operation_name: 'chat',
    gen_ai_provider_name: 'anthropic',
    gen_ai_request_model: 'claude-x',
    error_type: 'rate_limited',
    switchyard_route: 'inline',
    switchyard_outcome: 'failed',
  });
});

test('an OpenAI-compatible provider is named by its configured name', () => {
  const labels = genAiAttemptLabels(
    { provider: 'local-vllm', model: 'llama', outcome: 'succeeded' },
    { route: 'cheap', providerKind: 'openai-compatible' },
  );
  expect(labels.gen_ai_provider_name).toBe('local-vllm');
  expect(labels).not.toHaveProperty('gen_ai_response_model');
  expect(labels).not.toHaveProperty('error_type');
});

test('token labels add gen_ai_token_type and leave the attempt labels alone', () => {
  const attempt = { gen_ai_operation_name: 'chat', switchyard_route: 'support' };
  expect(genAiTokenLabels(attempt, 'input')).toEqual({ ...attempt, gen_ai_token_type: 'input' });
  expect(genAiTokenLabels(attempt, 'output').gen_ai_token_type).toBe('output');
  expect(attempt).not.toHaveProperty('gen_ai_token_type');
});

test('bucket boundaries follow the conventions advice', () => {
  expect(GEN_AI_TOKEN_USAGE_BUCKETS).toEqual(Array.from({ length: 14 }, (_, index) => 4 ** index));
  expect(GEN_AI_OPERATION_DURATION_BUCKETS).toHaveLength(14);
  expect(GEN_AI_OPERATION_DURATION_BUCKETS[0]).toBe(0.01);
  GEN_AI_OPERATION_DURATION_BUCKETS.slice(1).forEach((bound, index) => {
    expect(bound).toBeCloseTo(GEN_AI_OPERATION_DURATION_BUCKETS[index]! * 2, 10);
  });
});

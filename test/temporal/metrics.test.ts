// The worker's Prometheus endpoint, with a worker in its own process (the runtime is one per process): the
// SDK's series, Switchyard's attempts, fallbacks, cost, breaker transitions and ledger refusals, and the GenAI
// conventions' client series.
import { ROUTED_CALL_WORKFLOW_TYPE } from '../../src/workflows/definitions';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { SwitchyardClient } from '../../src/client/switchyard-client';
import { freePort } from '../../src/engine';
import { startFakeProvider, type FakeProvider } from '../../src/fake-provider';
import { GenAiPrometheusMetric, SwitchyardMetric } from '../../src/workflows/metric-names';
import { expectRoutedCallError } from '../support/expect-failure';
import { parsePrometheusText, sumOf, type Sample } from '../support/prometheus-text';
import { connectForTest, temporalAddress, uniqueName, type TemporalTestContext } from '../support/temporal';
import { startWorkerProcess } from '../support/worker-process';

const request = { messages: [{ role: 'user' as const, content: 'Say hello' }], maxOutputTokens: 64 };
const PRICES = { inputUsdPerMillion: 1, outputUsdPerMillion: 4 };
// Breakers are shared by (provider, model) across the whole server: models of its own keep this file apart.
const openaiModel = uniqueName('gpt-metrics');
const anthropicModel = uniqueName('claude-metrics');

let temporal: TemporalTestContext;
let fake: FakeProvider;
let directory: string;
let worker: ChildProcess | undefined;
let metricsUrl: string;
let taskQueue: string;

function writeConfig(): string {
  const file = path.join(directory, 'switchyard.config.json');
  const config = {
    providers: {
      openai: {
        kind: 'openai',
        apiKeyEnv: 'METRICS_TEST_OPENAI_KEY',
        baseURL: fake.openaiBaseURL,
        models: { [openaiModel]: PRICES },
      },
      anthropic: {
        kind: 'anthropic',
        apiKeyEnv: 'METRICS_TEST_ANTHROPIC_KEY',
        baseURL: fake.anthropicBaseURL,
        models: { [anthropicModel]: PRICES },
      },
    },
    routes: {
      support: {
        targets: [
          { provider: 'openai', model: openaiModel, timeoutMs: 10_000 },
          { provider: 'anthropic', model: anthropicModel, timeoutMs: 10_000 },
        ],
        // One counted failure opens the first target's breaker: a transition to count.
        breaker: { failureThreshold: 1, cooldownMs: 600_000 },
      },
    },
    budgets: { 'metrics-tight': { limitUsd: 0.000_001 } },
    defaultRoute: 'support',
  };
  writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}

/** Runs `src/worker.ts` the way `switchyard worker` does, and waits until it polls. */
async function startMetricsWorker(configFile: string, metricsPort: number): Promise<ChildProcess> {
  return startWorkerProcess({
    script: 'src/worker.ts',
    environment: {
      TEMPORAL_ADDRESS: temporalAddress(),
      SWITCHYARD_CONFIG: configFile,
      SWITCHYARD_TASK_QUEUE: taskQueue,
      SWITCHYARD_METRICS_PORT: String(metricsPort),
      METRICS_TEST_OPENAI_KEY: 'sk-metrics-openai',
      METRICS_TEST_ANTHROPIC_KEY: 'sk-metrics-anthropic',
    },
    readyText: 'metrics at',
  });
}

async function scrape(): Promise<Sample[]> {
  const response = await fetch(metricsUrl);
  expect(response.status).toBe(200);
  return parsePrometheusText(await response.text());
}

/** Scrapes until `ready` holds: workflow metrics reach the exporter after their workflow task completes. */
async function scrapeUntil(ready: (samples: Sample[]) => boolean): Promise<Sample[]> {
  let samples: Sample[] = [];
  for (let tries = 0; tries < 120; tries += 1) {
    samples = await scrape();
    if (ready(samples)) return samples;
    await delay(250);
  }
  return samples;
}

beforeAll(async () => {
  [temporal, fake] = await Promise.all([connectForTest(), startFakeProvider()]);
  directory = mkdtempSync(path.join(tmpdir(), 'switchyard-metrics-'));
  taskQueue = uniqueName('switchyard-metrics');
  const port = await freePort();
  metricsUrl = `http://127.0.0.1:${port}/metrics`;
  worker = await startMetricsWorker(writeConfig(), port);
});

afterAll(async () => {
  if (worker && worker.exitCode === null) {
    const exited = once(worker, 'exit');
    worker.kill('SIGINT');
    // A graceful shutdown first; a worker that hangs on it is killed.
    const killer = setTimeout(() => worker?.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(killer);
  }
  await fake?.close();
  await temporal?.close();
  if (directory) rmSync(directory, { recursive: true, force: true });
});

test('the endpoint serves the SDK series and the Switchyard series after calls', async () => {
  const switchyard = new SwitchyardClient({ client: temporal.client, taskQueue });
  fake.script(openaiModel, { kind: 'error', error: 'rate_limited' });
  // Cache reads count as input in the GenAI conventions: 10 + 3 input tokens.
  fake.script(anthropicModel, {
    kind: 'answer',
    text: 'hi',
    usage: { inputTokens: 10, cachedInputTokens: 3, outputTokens: 5 },
  });
  const { record } = await switchyard.generate({ route: 'support', request });
  expect(record.fallbacks).toBe(1);

  // The openai breaker is open now, and this scope can afford nothing: a ledger refusal.
  const refused = await expectRoutedCallError(
    switchyard.generate({ route: 'support', request, budget: 'metrics-tight' }),
  );
  expect(refused.type).toBe('BudgetExceeded');

  const openai = { provider: 'openai', model: openaiModel };
  const anthropic = { provider: 'anthropic', model: anthropicModel };
  const samples = await scrapeUntil(
    (current) =>
      sumOf(current, SwitchyardMetric.calls, { outcome: 'BudgetExceeded' }) >= 1 &&
      sumOf(current, SwitchyardMetric.ledgerRefusals) >= 1 &&
      sumOf(current, SwitchyardMetric.breakerTransitions) >= 1,
  );

  // The Temporal SDK's own runtime series share the endpoint.
  expect(samples.some((sample) => sample.name.startsWith('temporal_'))).toBe(true);
  expect(sumOf(samples, 'temporal_workflow_completed', { workflow_type: ROUTED_CALL_WORKFLOW_TYPE })).toBe(1);

  expect(
    sumOf(samples, SwitchyardMetric.attempts, { ...openai, outcome: 'failed', class: 'rate_limited' }),
  ).toBe(1);
  expect(
    sumOf(samples, SwitchyardMetric.attempts, { ...anthropic, outcome: 'succeeded', class: 'none' }),
  ).toBe(1);
  // The second call skipped the open breaker, then found the other target over budget.
  expect(
    sumOf(samples, SwitchyardMetric.attempts, { ...openai, outcome: 'skipped', class: 'circuit_open' }),
  ).toBe(1);
  expect(
    sumOf(samples, SwitchyardMetric.attempts, { ...anthropic, outcome: 'skipped', class: 'over_budget' }),
  ).toBe(1);
  expect(sumOf(samples, `${SwitchyardMetric.attemptLatency}_count`, anthropic)).toBe(1);
  expect(sumOf(samples, SwitchyardMetric.attemptCost, anthropic)).toBe(record.totalCostNanoUsd);

  expect(sumOf(samples, SwitchyardMetric.calls, { route: 'support', outcome: 'succeeded' })).toBe(1);
  expect(sumOf(samples, SwitchyardMetric.calls, { route: 'support', outcome: 'BudgetExceeded' })).toBe(1);
  expect(sumOf(samples, SwitchyardMetric.fallbacks, { route: 'support' })).toBe(1);
  expect(sumOf(samples, `${SwitchyardMetric.callCost}_count`, { route: 'support' })).toBe(2);
  expect(sumOf(samples, `${SwitchyardMetric.callCost}_sum`, { outcome: 'succeeded' })).toBeCloseTo(
    record.totalCostUsd,
    9,
  );

  expect(
    sumOf(samples, SwitchyardMetric.breakerTransitions, {
      ...openai,
      from: 'closed',
      to: 'open',
      reason: 'failure_threshold',
    }),
  ).toBe(1);
  expect(
    sumOf(samples, SwitchyardMetric.ledgerRefusals, { scope: 'metrics-tight', reason: 'over_budget' }),
  ).toBeGreaterThanOrEqual(1);

  expectGenAiSeries(
    samples,
    record.attempts.map((attempt) => attempt.latencyMs),
  );
});

/**
 * The GenAI series of the first call (one failover, then an answer); the second call's skips sent nothing, so
 * they add nothing. Labels are the conventions' attributes with `_` for `.`, as Prometheus serves them.
 */
function expectGenAiSeries(samples: readonly Sample[], latenciesMs: readonly number[]): void {
  const duration = GenAiPrometheusMetric.operationDuration;
  const tokens = GenAiPrometheusMetric.tokenUsage;
  const common = { gen_ai_operation_name: 'chat', switchyard_route: 'support' };
  const failed = {
    ...common,
    gen_ai_provider_name: 'openai',
    gen_ai_request_model: openaiModel,
    error_type: 'rate_limited',
    switchyard_outcome: 'failed',
  };
  const answered = {
    ...common,
    gen_ai_provider_name: 'anthropic',
    gen_ai_request_model: anthropicModel,
    gen_ai_response_model: anthropicModel,
    switchyard_outcome: 'succeeded',
  };

  expect(sumOf(samples, `${duration}_count`, common)).toBe(2);
  expect(sumOf(samples, `${duration}_count`, failed)).toBe(1);
  expect(sumOf(samples, `${duration}_count`, answered)).toBe(1);
  // Seconds, from the attempt's recorded latency in milliseconds.
  expect(sumOf(samples, `${duration}_sum`, answered)).toBeCloseTo(latenciesMs[1]! / 1_000, 6);
  // error_type only on the failure; a response model only on the answer.
  const durationCounts = samples.filter((sample) => sample.name === `${duration}_count`);
  const answeredCount = durationCounts.find((sample) => sample.labels.switchyard_outcome === 'succeeded');
  const failedCount = durationCounts.find((sample) => sample.labels.switchyard_outcome === 'failed');
  expect(answeredCount?.labels).not.toHaveProperty('error_type');
  expect(failedCount?.labels).not.toHaveProperty('gen_ai_response_model');
  // The conventions' buckets, in seconds: the SDK's millisecond defaults end at 10000.
  expect(bucket(samples, duration, answered, '81.92')).toBe(1);

  // One input and one output sample for the answer; none for the failure, which used nothing it reported.
  expect(sumOf(samples, `${tokens}_count`, common)).toBe(2);
  expect(sumOf(samples, `${tokens}_count`, { ...answered, gen_ai_token_type: 'input' })).toBe(1);
  expect(sumOf(samples, `${tokens}_sum`, { ...answered, gen_ai_token_type: 'input' })).toBe(13);
  expect(sumOf(samples, `${tokens}_sum`, { ...answered, gen_ai_token_type: 'output' })).toBe(5);
  expect(sumOf(samples, `${tokens}_count`, { error_type: 'rate_limited' })).toBe(0);
  // The conventions' buckets, powers of 4: 13 input tokens fall above 4 and within 16.
  const input = { ...answered, gen_ai_token_type: 'input' };
  expect(bucket(samples, tokens, input, '4')).toBe(0);
  expect(bucket(samples, tokens, input, '16')).toBe(1);
  expect(bucket(samples, tokens, input, '67108864')).toBe(1);
}

/** The cumulative count of `name`'s bucket `le` among samples labelled `labels`; NaN when no such bucket. */
function bucket(
  samples: readonly Sample[],
  name: string,
  labels: Record<string, string>,
  le: string,
): number {
  const matching = samples.filter(
    (sample) =>
      sample.name === `${name}_bucket` &&
      sample.labels.le === le &&
      Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
  return matching.length === 0 ? Number.NaN : matching.reduce((total, sample) => total + sample.value, 0);
}

// The benchmark's Switchyard config: two fake-provider endpoints (0 ms and 50 ms), routes and a budget. Bench side.
import {
  parseConfig,
  validateCallInput,
  type Config,
  type GenerationRequest,
  type GenerationRequestInput,
} from 'switchyard';

/** The fake provider's fixed latency modes; each is its own fake server and its own configured provider. */
export const LATENCY_MODES = ['0ms', '50ms'] as const;
export type LatencyMode = (typeof LATENCY_MODES)[number];

/** Fixed response latency of each mode, in milliseconds. */
export const MODE_LATENCY_MS: Readonly<Record<LatencyMode, number>> = { '0ms': 0, '50ms': 50 };

/** Provider name of each mode in the config (breaker keys are `<provider>/<model>`). */
export const MODE_PROVIDER: Readonly<Record<LatencyMode, string>> = {
  '0ms': 'fake-0ms',
  '50ms': 'fake-50ms',
};

/** The healthy route of each mode: a healthy first target and a fallback that is never needed. */
export const MODE_ROUTE: Readonly<Record<LatencyMode, string>> = { '0ms': 'bench-0ms', '50ms': 'bench-50ms' };

export const BENCH_MODELS = {
  /** Always answers. */
  healthy: 'bench-model',
  /** Second target of every route. */
  fallback: 'bench-fallback',
  /** First target of the failover route: scripted to fail every request. */
  flaky: 'bench-flaky',
  /** First target of the outage route: in a full outage during the breaker bench. */
  down: 'bench-down',
  /** First target of the kill-resume route: answers slowly, so its worker can be killed mid-attempt. */
  slow: 'bench-slow',
} as const;

/** Routes of the failover and outage benches (both on the 0 ms endpoint). */
export const FAILOVER_ROUTE = 'bench-failover';
export const OUTAGE_ROUTE = 'bench-outage';
/** The outage route's breaker cooldown, in milliseconds: short, so the bench window includes probes. */
export const OUTAGE_COOLDOWN_MS = 5_000;
/**
 * Route of the kill-resume bench (0 ms endpoint): a slow first target whose worker is SIGKILLed mid-attempt, then
 * the fallback, whose request shows the call resumed. Its heartbeat timeout is the route default (2 s).
 */
export const KILL_RESUME_ROUTE = 'bench-kill-resume';

/** Budget scope every routed call of the latency and throughput benches reserves on (one hot ledger). */
export const ROUTED_BUDGET_SCOPE = 'bench-routed';

/**
 * Budget scope of the throughput bench: its own, so its ledger is started by (and runs in) the plain worker
 * process whose memory is measured.
 */
export const THROUGHPUT_BUDGET_SCOPE = 'bench-throughput';

/** The API key variable and value the worker reads for the fake endpoints. */
export const BENCH_KEYS = { BENCH_FAKE_KEY: 'sk-bench-fake-key' } as const;

/** One small request, the same on every path. */
export const BENCH_REQUEST: GenerationRequestInput = {
  messages: [{ role: 'user', content: 'Say hello' }],
  maxOutputTokens: 64,
};

/** {@link BENCH_REQUEST} validated, with its defaults filled in: what the attempt activity receives. */
export function benchRequest(): GenerationRequest {
  return validateCallInput({ request: BENCH_REQUEST }).request;
}

/** The `openai` SDK base URL of each mode's fake provider. */
export type FakeBaseUrls = Readonly<Record<LatencyMode, string>>;

const PRICES = { inputUsdPerMillion: 0.15, cachedInputUsdPerMillion: 0.075, outputUsdPerMillion: 0.6 };
const MODELS = Object.fromEntries(Object.values(BENCH_MODELS).map((model) => [model, PRICES]));

export function benchConfig(urls: FakeBaseUrls): Config {
  return parseConfig(benchConfigFile(urls));
}

/** The config as its file says it (for a process that reads `--config`); {@link benchConfig} parses it. */
export function benchConfigFile(urls: FakeBaseUrls) {
  const provider = (mode: LatencyMode) => ({
    kind: 'openai' as const,
    apiKeyEnv: 'BENCH_FAKE_KEY',
    baseURL: urls[mode],
    models: MODELS,
  });
  const target = (mode: LatencyMode, model: string) => ({
    provider: MODE_PROVIDER[mode],
    model,
    timeoutMs: 30_000,
  });
  const healthyRoute = (mode: LatencyMode) => ({
    targets: [target(mode, BENCH_MODELS.healthy), target(mode, BENCH_MODELS.fallback)],
  });
  return {
    providers: { [MODE_PROVIDER['0ms']]: provider('0ms'), [MODE_PROVIDER['50ms']]: provider('50ms') },
    routes: {
      [MODE_ROUTE['0ms']]: healthyRoute('0ms'),
      [MODE_ROUTE['50ms']]: healthyRoute('50ms'),
      // Every call fails over once; the threshold keeps the breaker from opening during the bench.
      [FAILOVER_ROUTE]: {
        targets: [target('0ms', BENCH_MODELS.flaky), target('0ms', BENCH_MODELS.healthy)],
        breaker: { failureThreshold: 1000, cooldownMs: 30_000 },
      },
      [OUTAGE_ROUTE]: {
        targets: [target('0ms', BENCH_MODELS.down), target('0ms', BENCH_MODELS.fallback)],
        breaker: { failureThreshold: 3, cooldownMs: OUTAGE_COOLDOWN_MS },
      },
      // Every call loses its first attempt with its worker; the breaker must not open and skip the slow target.
      [KILL_RESUME_ROUTE]: {
        targets: [target('0ms', BENCH_MODELS.slow), target('0ms', BENCH_MODELS.fallback)],
        breaker: { failureThreshold: 1000, cooldownMs: 30_000 },
      },
    },
    budgets: { [ROUTED_BUDGET_SCOPE]: { limitUsd: 1_000_000 } },
  };
}

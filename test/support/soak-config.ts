// The soak's Switchyard config: four fake models with distinct prices, four routes with short timeouts and breakers.
import type { Config } from '../../src/config/config';
import { parseConfig } from '../../src/config/load-config';
import type { FakeProvider, FakeProviderKind } from '../../src/fake-provider';

/** Prices in USD per million tokens; each a whole number of nano-USD per token, so sums of costs are exact. */
export interface SoakPrices {
  readonly inputUsdPerMillion: number;
  readonly cachedInputUsdPerMillion: number;
  readonly outputUsdPerMillion: number;
}

export interface SoakModel {
  /** Config provider name. */
  readonly provider: string;
  /** Wire format the fake speaks for it (its random fault stream is keyed by this and the model). */
  readonly wire: FakeProviderKind;
  readonly model: string;
  readonly prices: SoakPrices;
}

export const SOAK_MODELS: readonly SoakModel[] = [
  {
    provider: 'openai',
    wire: 'openai',
    model: 'soak-gpt-a',
    prices: { inputUsdPerMillion: 1, cachedInputUsdPerMillion: 0.5, outputUsdPerMillion: 4 },
  },
  {
    provider: 'openai',
    wire: 'openai',
    model: 'soak-gpt-b',
    prices: { inputUsdPerMillion: 2, cachedInputUsdPerMillion: 1, outputUsdPerMillion: 8 },
  },
  {
    provider: 'anthropic',
    wire: 'anthropic',
    model: 'soak-claude-a',
    prices: { inputUsdPerMillion: 3, cachedInputUsdPerMillion: 1.5, outputUsdPerMillion: 15 },
  },
  {
    provider: 'anthropic',
    wire: 'anthropic',
    model: 'soak-claude-b',
    prices: { inputUsdPerMillion: 0.8, cachedInputUsdPerMillion: 0.4, outputUsdPerMillion: 4 },
  },
];

/** Short per-target timeouts, so each random hang costs its call little. */
export const SOAK_TARGET_TIMEOUT_MS = 1_500;

/** The soak's API keys; never logged (the fake accepts any key). */
export const SOAK_API_KEYS = {
  SOAK_OPENAI_KEY: 'sk-soak-openai-never-log-me',
  SOAK_ANTHROPIC_KEY: 'sk-ant-soak-never-log-me',
} as const;

const target = (model: string, extra: { retries?: number } = {}) => {
  const soakModel = SOAK_MODELS.find((candidate) => candidate.model === model)!;
  return { provider: soakModel.provider, model, timeoutMs: SOAK_TARGET_TIMEOUT_MS, ...extra };
};

/**
 * Routes that reach every defined end: plain failover; retries and `whenAllOpen: fail` (CircuitOpen); a
 * whole-call deadline (DeadlineExceeded); a narrowed `failoverOn` with an attempt cap. Each has its own breaker
 * policy with short cooldowns, so breakers open, probe and close during the soak.
 */
const ROUTES = {
  'soak-main': {
    targets: [target('soak-gpt-a'), target('soak-claude-a')],
    breaker: { failureThreshold: 3, cooldownMs: 2_000 },
  },
  'soak-fast': {
    targets: [target('soak-claude-b', { retries: 1 }), target('soak-gpt-b')],
    breaker: { failureThreshold: 2, cooldownMs: 1_500 },
    whenAllOpen: 'fail' as const,
  },
  'soak-deadline': {
    targets: [target('soak-gpt-b'), target('soak-claude-b'), target('soak-gpt-a')],
    deadlineMs: 2_500,
    breaker: { failureThreshold: 3, cooldownMs: 2_000 },
  },
  'soak-narrow': {
    targets: [target('soak-claude-a'), target('soak-gpt-a', { retries: 1 })],
    maxAttempts: 2,
    failoverOn: ['rate_limited' as const, 'timeout' as const],
    breaker: { failureThreshold: 4, cooldownMs: 2_500 },
  },
};

export type SoakRouteName = keyof typeof ROUTES;
export const SOAK_ROUTE_NAMES = Object.keys(ROUTES) as SoakRouteName[];

export function soakConfig(fake: FakeProvider): Config {
  const models = (provider: string) =>
    Object.fromEntries(
      SOAK_MODELS.filter((model) => model.provider === provider).map((model) => [
        model.model,
        { ...model.prices, contextWindow: 128_000 },
      ]),
    );
  return parseConfig({
    providers: {
      openai: {
        kind: 'openai',
        apiKeyEnv: 'SOAK_OPENAI_KEY',
        baseURL: fake.openaiBaseURL,
        models: models('openai'),
      },
      anthropic: {
        kind: 'anthropic',
        apiKeyEnv: 'SOAK_ANTHROPIC_KEY',
        baseURL: fake.anthropicBaseURL,
        models: models('anthropic'),
      },
    },
    routes: ROUTES,
    defaultRoute: 'soak-main',
  });
}

export function soakModel(model: string): SoakModel {
  const found = SOAK_MODELS.find((candidate) => candidate.model === model);
  if (!found) throw new Error(`not a soak model: ${model}`);
  return found;
}

// The demo's config: the fake provider under the names `openai` and `anthropic`, plus the real APIs when keys are set. Script side.
import type { ConfigInput } from '../../src/config/config';

/** Keys the worker hands the fake provider (it accepts any); real keys never go here. */
export const FAKE_PROVIDER_KEYS = {
  SWITCHYARD_DEMO_OPENAI_KEY: 'demo-openai-key',
  SWITCHYARD_DEMO_ANTHROPIC_KEY: 'demo-anthropic-key',
} as const;

const GPT_4O_MINI = { inputUsdPerMillion: 0.15, cachedInputUsdPerMillion: 0.075, outputUsdPerMillion: 0.6 };
const GPT_4O = { inputUsdPerMillion: 2.5, cachedInputUsdPerMillion: 1.25, outputUsdPerMillion: 10 };
const GPT_41_MINI = { inputUsdPerMillion: 0.4, cachedInputUsdPerMillion: 0.1, outputUsdPerMillion: 1.6 };
const CLAUDE_HAIKU = { inputUsdPerMillion: 1, cachedInputUsdPerMillion: 0.1, outputUsdPerMillion: 5 };
const CLAUDE_SONNET = { inputUsdPerMillion: 3, cachedInputUsdPerMillion: 0.3, outputUsdPerMillion: 15 };

/** Models of the fake provider each tour step uses; the fake scripts faults by model, breakers are per model. */
export const DemoModels = {
  /** Failover and budget steps. */
  primary: 'gpt-4o-mini',
  secondary: 'claude-haiku-4-5',
  /** The breaker step's failing target (its breaker opens). */
  flaky: 'gpt-4o',
  /** The patience step's two targets, both down for a while. */
  patientFirst: 'gpt-4.1-mini',
  patientSecond: 'claude-sonnet-4-6',
} as const;

/** The budget scope of the budget step, and its limit in USD. */
export const DEMO_BUDGET = { scope: 'demo-team', limitUsd: 0.002 } as const;

/** How long the breaker step's breaker stays open before its probe, in milliseconds. */
export const DEMO_BREAKER_COOLDOWN_MS = 5_000;

/** Which real providers have keys in this environment. */
export interface LiveKeys {
  readonly openai: boolean;
  readonly anthropic: boolean;
}

export function liveKeysFromEnvironment(environment: NodeJS.ProcessEnv = process.env): LiveKeys {
  return { openai: Boolean(environment.OPENAI_API_KEY), anthropic: Boolean(environment.ANTHROPIC_API_KEY) };
}

/**
 * The demo config. `openai` and `anthropic` are the fake provider speaking each wire format, so the tour can
 * inject faults; `openai-live` / `anthropic-live` are the real APIs (gpt-4o-mini, claude-haiku-4-5), present
 * when their key is set, and the `live` route walks them.
 */
export function demoConfigInput(
  fake: { readonly openaiBaseURL: string; readonly anthropicBaseURL: string },
  live: LiveKeys = { openai: false, anthropic: false },
): ConfigInput {
  const fallbackPair = (first: string) => [
    { provider: 'openai', model: first, timeoutMs: 10_000 },
    { provider: 'anthropic', model: DemoModels.secondary, timeoutMs: 10_000 },
  ];
  const liveTargets = [
    ...(live.openai ? [{ provider: 'openai-live', model: 'gpt-4o-mini', timeoutMs: 30_000 }] : []),
    ...(live.anthropic ? [{ provider: 'anthropic-live', model: 'claude-haiku-4-5', timeoutMs: 30_000 }] : []),
  ];
  return {
    providers: {
      openai: {
        kind: 'openai',
        apiKeyEnv: 'SWITCHYARD_DEMO_OPENAI_KEY',
        baseURL: fake.openaiBaseURL,
        models: {
          [DemoModels.primary]: GPT_4O_MINI,
          [DemoModels.flaky]: GPT_4O,
          [DemoModels.patientFirst]: GPT_41_MINI,
        },
      },
      anthropic: {
        kind: 'anthropic',
        apiKeyEnv: 'SWITCHYARD_DEMO_ANTHROPIC_KEY',
        baseURL: fake.anthropicBaseURL,
        models: { [DemoModels.secondary]: CLAUDE_HAIKU, [DemoModels.patientSecond]: CLAUDE_SONNET },
      },
      ...(live.openai
        ? {
            'openai-live': {
              kind: 'openai' as const,
              apiKeyEnv: 'OPENAI_API_KEY',
              models: { 'gpt-4o-mini': GPT_4O_MINI },
            },
          }
        : {}),
      ...(live.anthropic
        ? {
            'anthropic-live': {
              kind: 'anthropic' as const,
              apiKeyEnv: 'ANTHROPIC_API_KEY',
              models: { 'claude-haiku-4-5': CLAUDE_HAIKU },
            },
          }
        : {}),
    },
    routes: {
      support: { targets: fallbackPair(DemoModels.primary), deadlineMs: 60_000 },
      flaky: {
        targets: fallbackPair(DemoModels.flaky),
        breaker: { failureThreshold: 2, cooldownMs: DEMO_BREAKER_COOLDOWN_MS },
      },
      patient: {
        targets: [
          { provider: 'openai', model: DemoModels.patientFirst, timeoutMs: 10_000 },
          { provider: 'anthropic', model: DemoModels.patientSecond, timeoutMs: 10_000 },
        ],
        breaker: { failureThreshold: 1, cooldownMs: 2_000 },
      },
      ...(liveTargets.length ? { live: { targets: liveTargets, deadlineMs: 90_000 } } : {}),
    },
    budgets: { [DEMO_BUDGET.scope]: { limitUsd: DEMO_BUDGET.limitUsd } },
    defaultRoute: 'support',
  };
}

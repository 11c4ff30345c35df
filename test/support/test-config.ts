// A Switchyard config whose providers point at a fake provider: two OpenAI-format and two Anthropic models.
import type { Config } from '../../src/config/config';
import { parseConfig } from '../../src/config/load-config';
import type { FakeProvider } from '../../src/fake-provider';

/** Distinctive fake keys, so tests can search histories and logs for them. */
export const TEST_API_KEYS = {
  OPENAI_TEST_KEY: 'sk-test-openai-5f3c9b1e-never-log-me',
  ANTHROPIC_TEST_KEY: 'sk-ant-test-8d2a7c40-never-log-me',
} as const;

const PRICES = {
  inputUsdPerMillion: 1,
  cachedInputUsdPerMillion: 0.5,
  outputUsdPerMillion: 4,
  contextWindow: 128_000,
};

export function testConfig(fake: FakeProvider): Config {
  return parseConfig({
    providers: {
      openai: {
        kind: 'openai',
        apiKeyEnv: 'OPENAI_TEST_KEY',
        baseURL: fake.openaiBaseURL,
        models: { 'gpt-primary': PRICES, 'gpt-secondary': PRICES },
      },
      anthropic: {
        kind: 'anthropic',
        apiKeyEnv: 'ANTHROPIC_TEST_KEY',
        baseURL: fake.anthropicBaseURL,
        models: { 'claude-primary': PRICES, 'claude-secondary': PRICES },
      },
    },
    routes: {
      support: {
        targets: [
          { provider: 'openai', model: 'gpt-primary', timeoutMs: 5_000 },
          { provider: 'anthropic', model: 'claude-primary', timeoutMs: 5_000 },
        ],
      },
    },
    defaultRoute: 'support',
  });
}

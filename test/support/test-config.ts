// A Switchyard config whose providers point at a fake provider: two OpenAI-format and two Anthropic models.
import type { Config } from '../../src/config/config';
import { parseConfig } from '../../src/config/load-config';
import type { FakeProvider } from '../../src/fake-provider';

/** Distinctive fake keys, so tests can search histories and logs for them. */
export const TEST_API_KEYS = {
  OPENAI_TEST_KEY: 'sk-test-openai-5f3c9b1e-never-log-me',
  ANTHROPIC_TEST_KEY: 'sk-ant-test-8d2a7c40-never-log-me',
} as const;

/** What every model of the test providers costs, in USD per million tokens. */
export const TEST_PRICES = {
  inputUsdPerMillion: 1,
  cachedInputUsdPerMillion: 0.5,
  outputUsdPerMillion: 4,
  contextWindow: 128_000,
};

/**
 * The `openai` and `anthropic` providers on the fake, each with the named models at {@link TEST_PRICES} and the
 * keys of {@link TEST_API_KEYS}.
 */
export function fakeProviders(
  fake: Pick<FakeProvider, 'openaiBaseURL' | 'anthropicBaseURL'>,
  models: { readonly openai: readonly string[]; readonly anthropic: readonly string[] },
) {
  const priced = (names: readonly string[]) => Object.fromEntries(names.map((name) => [name, TEST_PRICES]));
  return {
    openai: {
      kind: 'openai',
      apiKeyEnv: 'OPENAI_TEST_KEY',
      baseURL: fake.openaiBaseURL,
      models: priced(models.openai),
    },
    anthropic: {
      kind: 'anthropic',
      apiKeyEnv: 'ANTHROPIC_TEST_KEY',
      baseURL: fake.anthropicBaseURL,
      models: priced(models.anthropic),
    },
  } as const;
}

export function testConfig(fake: FakeProvider): Config {
  return parseConfig({
    providers: fakeProviders(fake, {
      openai: ['gpt-primary', 'gpt-secondary'],
      anthropic: ['claude-primary', 'claude-secondary'],
    }),
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

/**
 * A provider of the `openai-responses` kind on the fake (its POST /v1/responses), for a config's `providers` beside
 * {@link fakeProviders}'; the named models at {@link TEST_PRICES}, the OpenAI test key.
 */
export function fakeResponsesProvider(fake: Pick<FakeProvider, 'openaiBaseURL'>, models: readonly string[]) {
  return {
    kind: 'openai-responses',
    apiKeyEnv: 'OPENAI_TEST_KEY',
    baseURL: fake.openaiBaseURL,
    models: Object.fromEntries(models.map((name) => [name, TEST_PRICES])),
  } as const;
}

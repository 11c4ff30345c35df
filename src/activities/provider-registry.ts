// Builds provider clients from the config and the worker's environment, once per provider. Worker side.
import { SwitchyardError } from '../config/branded-error';
import { ownEntry, type Config } from '../config/config';
import { createProvider } from '../providers';
import type { LanguageModelProvider } from '../providers/types';

/** Looks up the client for a configured provider; keys are read from the environment here and only here. */
export interface ProviderRegistry {
  get(providerName: string): LanguageModelProvider;
}

export class MissingApiKeyError extends SwitchyardError {
  static override readonly brand: string = 'switchyard.MissingApiKeyError';

  override readonly name = 'MissingApiKeyError';
  constructor(
    readonly provider: string,
    readonly variable: string,
  ) {
    super(`provider "${provider}": environment variable ${variable} is not set on the worker`);
  }
}

export class UnknownProviderError extends SwitchyardError {
  static override readonly brand: string = 'switchyard.UnknownProviderError';

  override readonly name = 'UnknownProviderError';
  constructor(readonly provider: string) {
    super(`provider "${provider}" is not in the worker's config`);
  }
}

export function createProviderRegistry(
  config: Config,
  environment: NodeJS.ProcessEnv = process.env,
): ProviderRegistry {
  const clients = new Map<string, LanguageModelProvider>();
  // Every configured key's value, read from the variables the config names: each provider scrubs all of them
  // from what it returns and logs (a gateway in front of several providers may echo any of their keys).
  const secrets = Object.values(config.providers).flatMap((provider) => {
    const value = environment[provider.apiKeyEnv];
    return value ? [value] : [];
  });
  return {
    get(providerName) {
      const existing = clients.get(providerName);
      if (existing) return existing;
      const providerConfig = ownEntry(config.providers, providerName);
      if (!providerConfig) throw new UnknownProviderError(providerName);
      const apiKey = environment[providerConfig.apiKeyEnv];
      if (!apiKey) throw new MissingApiKeyError(providerName, providerConfig.apiKeyEnv);
      const modelsWithoutReasoning = Object.entries(providerConfig.models).flatMap(([model, settings]) =>
        settings.supports?.reasoning === false ? [model] : [],
      );
      const client = createProvider({
        name: providerName,
        kind: providerConfig.kind,
        apiKey,
        secrets,
        modelsWithoutReasoning,
        ...(providerConfig.baseURL ? { baseURL: providerConfig.baseURL } : {}),
      });
      clients.set(providerName, client);
      return client;
    },
  };
}

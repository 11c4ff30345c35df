// createActivities(deps): every activity a Switchyard worker registers. Worker side.
import type { Client } from '@temporalio/client';
import type { Config } from '../config/config';
import { createCallProvider } from './call-provider';
import { createProviderRegistry, type ProviderRegistry } from './provider-registry';
import { createResolveRoute } from './resolve-route';

export interface ActivityDependencies {
  readonly config: Config;
  /** The worker's own Temporal client: activities reach entity workflows (breakers, ledgers) through it. */
  readonly client: Client;
  /** Task queue that entity workflows started by activities run on. */
  readonly taskQueue: string;
  /** @default clients built from `config` with keys from `process.env` */
  readonly providers?: ProviderRegistry;
}

export function createActivities(dependencies: ActivityDependencies) {
  const providers = dependencies.providers ?? createProviderRegistry(dependencies.config);
  return {
    callProvider: createCallProvider(providers),
    resolveRoute: createResolveRoute(dependencies.config),
  };
}

export type SwitchyardActivities = ReturnType<typeof createActivities>;
export type { AttemptInput, AttemptSuccess, AttemptFailureDetails } from './attempt-types';

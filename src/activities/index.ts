// createActivities(deps): every activity a Switchyard worker registers. Worker side.
import type { Client } from '@temporalio/client';
import type { Config } from '../config/config';
import { createAwaitRoutedCall } from './await-routed-call';
import { createBreakerAccess } from './breaker-access';
import { createCallProvider } from './call-provider';
import { createDeliverResult } from './deliver-result';
import { createProviderRegistry, type ProviderRegistry } from './provider-registry';
import { createResolveRoute } from './resolve-route';
import { LedgerReservationBatcher } from './ledger-batcher';
import { createReservationSender, createReserveBudget } from './reserve-budget';

export interface ActivityDependencies {
  readonly config: Config;
  /** The worker's own Temporal client: activities reach entity workflows (breakers, ledgers) through it. */
  readonly client: Client;
  /** Task queue that entity workflows started by activities run on. */
  readonly taskQueue: string;
  /** @default clients built from `config` with keys from `process.env` */
  readonly providers?: ProviderRegistry;
  /**
   * How long the worker trusts its view of a breaker before reading the entity again, in milliseconds.
   * @default `SWITCHYARD_BREAKER_HINT_TTL_MS`, else 1000
   */
  readonly breakerHintTtlMs?: number;
}

export function createActivities(dependencies: ActivityDependencies) {
  const providers = dependencies.providers ?? createProviderRegistry(dependencies.config);
  return {
    callProvider: createCallProvider(providers),
    resolveRoute: createResolveRoute(dependencies.config),
    // One batcher per worker: it keeps this worker to one in-flight reserve update per budget scope.
    reserveBudget: createReserveBudget(
      new LedgerReservationBatcher(
        createReservationSender(dependencies.client, dependencies.taskQueue, dependencies.config),
      ),
    ),
    ...createBreakerAccess({
      client: dependencies.client,
      taskQueue: dependencies.taskQueue,
      ...(dependencies.breakerHintTtlMs !== undefined ? { hintTtlMs: dependencies.breakerHintTtlMs } : {}),
    }),
    // Scheduled runs hand their results to a webhook or a directory.
    deliverResult: createDeliverResult(),
    // A user's workflow that asks again for a call it already started (reset, retried) gets the existing one.
    awaitRoutedCall: createAwaitRoutedCall(dependencies.client),
  };
}

export type SwitchyardActivities = ReturnType<typeof createActivities>;
export type { AttemptInput, AttemptSuccess, AttemptFailureDetails } from './attempt-types';
export type { ReserveBudgetInput } from './reserve-budget';
export type { DeliverResultInput, DeliveryReceipt, DeliveryTarget } from './deliver-result';
export type { AwaitRoutedCallInput, RoutedCallOutcome } from './await-routed-call';
export type {
  AdmitTargetInput,
  AdmitTargetResult,
  ReportBreakerOutcomeInput,
  ReportBreakerOutcomeResult,
} from './breaker-types';

// createActivities(deps): every activity a Switchyard worker registers. Worker side.
import type { Client } from '@temporalio/client';
import type { Config } from '../config/config';
import { createAwaitRoutedCall } from './await-routed-call';
import { createBreakerAccess } from './breaker-access';
import { createAttemptTarget } from './attempt-target';
import { createRecordHeartbeat } from './sending-mark';
import { createWatchCall } from './attempt-watch';
import { createAnswerHandoff } from './answer-handoff';
import { createBeginCall } from './begin-call';
import { createCallProvider, createProviderCall } from './call-provider';
import { createLedgerSettler } from './ledger-access';
import { createDeliverResult } from './deliver-result';
import { createProviderRegistry, type ProviderRegistry } from './provider-registry';
import { createReconcileReservations } from './reconcile-reservations';
import { createResolveRoute } from './resolve-route';
import { createResponseCacheAccess } from './response-cache';
import type { RouteRegistryReader } from './route-registry-reader';
import { BudgetAllowances, type BudgetAllowanceOptions } from './budget-allowances';
import { createClaimSender, createLedgerBatcher, createReserveBudget } from './reserve-budget';
import { observedProviderCall, TargetObservations } from './target-observations';

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
  /**
   * Gateway origins (`http(s)://host[:port]`) streamed attempts push their output to; a routed call naming a
   * relay elsewhere gets no push (its answer still reaches the workflow).
   * @default any origin; `createSwitchyardWorker` reads `SWITCHYARD_RELAY_ORIGINS`
   */
  readonly relayOrigins?: readonly string[];
  /**
   * The worker's copy of the routes changed at runtime (`createRouteRegistryReader`), overlaid on the config's.
   * @default none: the config's routes alone; `createSwitchyardWorker` reads its task queue's registry
   */
  readonly routeRegistry?: RouteRegistryReader;
  /**
   * The worker's recent latency and failure measurements of each target, fed by its attempts and read by
   * `beginCall` for the strategies that order by them.
   * @default a new store (5-minute window, median of the last 50 answers): one per worker
   */
  readonly targetObservations?: TargetObservations;
  /**
   * How long an attempt's request is out before it watches its call for a cancellation, in milliseconds; `false`:
   * never (the worker's option of the same name). @default 250
   */
  readonly cancellationWatchAfterMs?: number | false;
  /**
   * Reservations granted from allowances the worker leases from each budget ledger, recorded there by a claim
   * before the attempt sends, instead of a ledger update on every call; `false`: every reservation is an update
   * (the worker's option of the same name). @default the defaults of {@link BudgetAllowanceOptions}
   */
  readonly budgetAllowances?: BudgetAllowanceOptions | false;
}

export function createActivities(dependencies: ActivityDependencies) {
  const providers = dependencies.providers ?? createProviderRegistry(dependencies.config);
  const relayPolicy = dependencies.relayOrigins ? { allowedOrigins: dependencies.relayOrigins } : {};
  const resolveRoute = createResolveRoute(dependencies.config, dependencies.routeRegistry);
  // One batcher per worker: it keeps this worker to one in-flight update per budget scope, which carries its
  // reservations, settles and releases together.
  const ledgerBatcher = createLedgerBatcher(dependencies.client, dependencies.taskQueue, dependencies.config);
  const allowances =
    dependencies.budgetAllowances === false
      ? undefined
      : new BudgetAllowances(
          ledgerBatcher,
          createClaimSender(dependencies.client),
          dependencies.budgetAllowances,
        );
  const reserveBudget = createReserveBudget(ledgerBatcher, allowances);
  const observations = dependencies.targetObservations ?? new TargetObservations();
  const { admitTarget, peekAdmission, reportBreakerOutcome } = createBreakerAccess({
    client: dependencies.client,
    taskQueue: dependencies.taskQueue,
    ...(dependencies.breakerHintTtlMs !== undefined ? { hintTtlMs: dependencies.breakerHintTtlMs } : {}),
  });
  const { lookupCachedAnswer, storeCachedAnswer, releaseCachedAnswer } = createResponseCacheAccess({
    client: dependencies.client,
    taskQueue: dependencies.taskQueue,
  });
  return {
    // The attempt of routed calls started since the lean hot path: reserve, call, settle, report.
    attemptTarget: createAttemptTarget({
      callTarget: observedProviderCall(createProviderCall(providers, relayPolicy), observations),
      recordHeartbeat: createRecordHeartbeat(dependencies.client),
      reserveBudget,
      settleReservation: createLedgerSettler(ledgerBatcher),
      reportBreakerOutcome,
      watchCall: createWatchCall(dependencies.client),
      handOffAnswer: createAnswerHandoff(relayPolicy),
      ...(dependencies.cancellationWatchAfterMs !== undefined
        ? { watchAfterMs: dependencies.cancellationWatchAfterMs }
        : {}),
    }),
    beginCall: createBeginCall({
      resolveRoute,
      peekAdmission,
      observe: (target) => observations.observe(target),
    }),
    // What calls recorded before the lean hot path replay with (and the bench's floor runs).
    callProvider: createCallProvider(providers, relayPolicy),
    resolveRoute,
    reserveBudget,
    admitTarget,
    reportBreakerOutcome,
    // Scheduled runs hand their results to a webhook or a directory.
    deliverResult: createDeliverResult(),
    // A user's workflow that asks again for a call it already started (reset, retried) gets the existing one.
    awaitRoutedCall: createAwaitRoutedCall(dependencies.client),
    // Calls with the response cache on find, store or give up an answer through its entry.
    lookupCachedAnswer,
    storeCachedAnswer,
    releaseCachedAnswer,
  };
}

export type SwitchyardActivities = ReturnType<typeof createActivities>;

/** The activities of the entity worker: what the ledger asks when a lease ran out without a settle. */
export function createEntityActivities(dependencies: { readonly client: Client }) {
  return { reconcileReservations: createReconcileReservations(dependencies.client) };
}

export type EntityActivities = ReturnType<typeof createEntityActivities>;
export type {
  AttemptInput,
  AttemptSuccess,
  AttemptFailureDetails,
  TargetAttemptInput,
  TargetAttemptResult,
} from './attempt-types';
export type { BeginCallInput, BeginCallResult } from './begin-call';
export type {
  LookupCachedAnswerInput,
  LookupCachedAnswerResult,
  StoreCachedAnswerInput,
  ReleaseCachedAnswerInput,
} from './response-cache';
export type { ReserveBudgetInput } from './reserve-budget';
export type { DeliverResultInput, DeliveryReceipt, DeliveryTarget } from './deliver-result';
export type { AwaitRoutedCallInput, RoutedCallOutcome } from './await-routed-call';
export type {
  AdmitTargetInput,
  AdmitTargetResult,
  ReportBreakerOutcomeInput,
  ReportBreakerOutcomeResult,
} from './breaker-types';

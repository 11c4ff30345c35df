// The `switchyard/testing` entry point: what tests and benchmarks run against, never production code. Node side.
/**
 * Switchyard's testing seam, for tests and benchmarks of Switchyard and of applications built on it:
 *
 * - the fake provider: an OpenAI (Chat Completions and Responses) and Anthropic HTTP server on 127.0.0.1 that
 *   checks requests as strictly as the real APIs and answers, fails or stalls as scripted;
 * - the embedded engine: a Temporal dev server with Switchyard's search attributes and dynamic config, the
 *   Temporal CLI it runs, and the local cluster (the production shape: four services on PostgreSQL);
 * - pieces of the worker on their own, to measure against or drive without a routed call: a route resolved as
 *   the worker records it, the input of the provider-attempt activity (`callProvider` of `createActivities`,
 *   from `switchyard/worker`), and a worker's ledger messages to a budget scope.
 *
 * The application API is `switchyard`, the worker `switchyard/worker`, routed calls inside workflows
 * `switchyard/workflow`; nothing here is needed to run Switchyard.
 *
 * @packageDocumentation
 */

// The fake provider.
export {
  startFakeProvider,
  ANY_MODEL,
  SCENARIO_HEADER,
  FakeErrorName,
  RandomFaultKind,
} from './fake-provider';
export type {
  FakeBilledUsage,
  FakeModelCounters,
  FakeOutageOptions,
  FakeProvider,
  FakeProviderKind,
  FakeProviderOptions,
  FakeRequestRecord,
  FakeScenario,
  FakeScenarioKind,
  FakeScriptOptions,
  RandomFaultOptions,
} from './fake-provider';

// The embedded engine.
export { startDevServer, ensureTemporalCli } from './engine';
export type { DevServer, DevServerOptions } from './engine';
export { startLocalCluster } from './engine/temporal-cluster';
export type { LocalCluster, LocalClusterOptions, TemporalServiceName } from './engine/temporal-cluster';
export { startGatewayProcess } from './engine/gateway-process';
export type { GatewayProcess, GatewayProcessOptions } from './engine/gateway-process';

// Pieces of the worker on their own.
export { resolveRoute } from './config/resolve-route';
export type { ResolvedRoute, ResolvedTarget } from './config/resolved-route';
export type { AttemptInput, AttemptSuccess } from './activities/attempt-types';
export { createLedgerBatcher } from './activities/reserve-budget';
export type { LedgerMessageBatcher } from './activities/ledger-batcher';

// The `switchyard/worker` entry point: the worker, its activities and what a worker process needs. Node side.
export {
  createSwitchyardWorker,
  runWorker,
  taskQueueFromEnvironment,
  STICKY_QUEUE_SCHEDULE_TO_START_TIMEOUT_MS,
} from './worker';
export type { SwitchyardWorker, SwitchyardWorkerOptions, RunWorkerSettings } from './worker';
export { connectWorker } from './client/connection';
export type { ConnectionSettings } from './client/connection';
export { createActivities } from './activities';
export type { ActivityDependencies, SwitchyardActivities } from './activities';
export {
  createProviderRegistry,
  MissingApiKeyError,
  UnknownProviderError,
} from './activities/provider-registry';
export type { ProviderRegistry } from './activities/provider-registry';
export type { LanguageModelProvider } from './providers/types';
export {
  installWorkerRuntime,
  metricsSettingsFromEnvironment,
  MetricsSettingsError,
  DEFAULT_METRICS_HOST,
  DEFAULT_METRICS_PORT,
} from './metrics/worker-runtime';
export type { MetricsSettings, WorkerRuntime, WorkerRuntimeOptions } from './metrics/worker-runtime';
export { DEFAULT_TASK_QUEUE, entityTaskQueue } from './workflows/definitions';
export { SWITCHYARD_SEARCH_ATTRIBUTES } from './workflows/search-attributes';
export { loadConfig, parseConfig, ConfigError } from './config/load-config';
export type { Config, ConfigInput } from './config/config';
// Build the bundle yourself (ahead of time, or with your own plugins) and pass it as `workflowBundle`.
export { bundleSwitchyardWorkflows, switchyardBundleOptions } from './workflow-bundle';

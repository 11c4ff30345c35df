// Direct path: one SDK call through the worker's own provider client, no engine in between. Worker process.
import type { ProviderRegistry } from 'switchyard/worker';
import { BENCH_MODELS, benchRequest, MODE_PROVIDER, type LatencyMode } from './bench-config';

const request = benchRequest();

/** A direct call on `mode`'s endpoint, with the very client instance the worker's activities use. */
export function directCaller(providers: ProviderRegistry, mode: LatencyMode): () => Promise<undefined> {
  const provider = providers.get(MODE_PROVIDER[mode]);
  return async () => {
    await provider.generate(BENCH_MODELS.healthy, request, { timeoutMs: 30_000 });
    return undefined;
  };
}

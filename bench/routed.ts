// Routed path: a routed call through the application API, its breaker on, with a budget scope or without. Worker process.
import type { SwitchyardClient } from 'switchyard';
import { BENCH_REQUEST, MODE_ROUTE, type LatencyMode } from './bench-config';

/** A routed call on `route` (default: `mode`'s healthy route), reserving on `budget` if given; resolves to its id. */
export function routedCaller(
  switchyard: SwitchyardClient,
  mode: LatencyMode,
  route: string = MODE_ROUTE[mode],
  budget?: string,
): () => Promise<string> {
  return async () => {
    const { record } = await switchyard.generate({
      route,
      request: BENCH_REQUEST,
      ...(budget !== undefined ? { budget } : {}),
    });
    return record.workflowId;
  };
}

/** The same routed call through `answer`: done when the answer is, which may be ahead of the call's record. */
export function answeredCaller(
  switchyard: SwitchyardClient,
  mode: LatencyMode,
  route: string = MODE_ROUTE[mode],
): () => Promise<string> {
  return async () => (await switchyard.answer({ route, request: BENCH_REQUEST })).workflowId;
}

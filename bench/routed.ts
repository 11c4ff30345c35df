// Routed path: a routed call through the application API, breaker and ledger on. Worker process.
import type { SwitchyardClient } from '../src/client/switchyard-client';
import { BENCH_REQUEST, MODE_ROUTE, ROUTED_BUDGET_SCOPE, type LatencyMode } from './bench-config';

/** A routed call on `route` (default: `mode`'s healthy route) reserving on `budget`; resolves to its workflow id. */
export function routedCaller(
  switchyard: SwitchyardClient,
  mode: LatencyMode,
  route: string = MODE_ROUTE[mode],
  budget: string = ROUTED_BUDGET_SCOPE,
): () => Promise<string> {
  return async () => {
    const { record } = await switchyard.generate({ route, request: BENCH_REQUEST, budget });
    return record.workflowId;
  };
}

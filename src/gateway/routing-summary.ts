// What a gateway response says about its routed call: the x-switchyard-* headers and the stream's final event. Node side.
import type { RoutingRecord } from '../routing/routing-record';

/** The routing metadata of one response; fields not known yet (mid-stream) are absent. */
export interface RoutingSummary {
  readonly workflowId: string;
  readonly route?: string;
  /** `provider/model` of the target that served (or is streaming) the answer. */
  readonly servedBy?: string;
  /** Requests after the first one (failovers and retries). */
  readonly fallbacks?: number;
  readonly costUsd?: number;
}

export function summaryOf(
  workflowId: string,
  route: string | undefined,
  record?: RoutingRecord,
): RoutingSummary {
  if (!record) return { workflowId, ...(route !== undefined ? { route } : {}) };
  return {
    workflowId,
    route: record.route,
    ...(record.servedBy ? { servedBy: `${record.servedBy.provider}/${record.servedBy.model}` } : {}),
    fallbacks: record.fallbacks,
    costUsd: record.totalCostUsd,
  };
}

export const ROUTING_HEADERS = {
  workflowId: 'x-switchyard-workflow-id',
  route: 'x-switchyard-route',
  servedBy: 'x-switchyard-served-by',
  fallbacks: 'x-switchyard-fallbacks',
  costUsd: 'x-switchyard-cost-usd',
  errorType: 'x-switchyard-error-type',
} as const;

export function routingHeaders(summary: RoutingSummary): Record<string, string> {
  return {
    [ROUTING_HEADERS.workflowId]: summary.workflowId,
    ...(summary.route !== undefined ? { [ROUTING_HEADERS.route]: summary.route } : {}),
    ...(summary.servedBy !== undefined ? { [ROUTING_HEADERS.servedBy]: summary.servedBy } : {}),
    ...(summary.fallbacks !== undefined ? { [ROUTING_HEADERS.fallbacks]: String(summary.fallbacks) } : {}),
    ...(summary.costUsd !== undefined ? { [ROUTING_HEADERS.costUsd]: summary.costUsd.toFixed(9) } : {}),
  };
}

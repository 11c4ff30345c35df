// What a gateway response says about its routed call: the x-switchyard-* headers and the stream's final event. Node side.
import type { RelayAnswer } from '../config/relay';
import { nanoToUsd } from '../routing/money';
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
  /** `hit` (served from the response cache, free) or `miss` (paid for and cached); absent when not cached. */
  readonly cache?: 'hit' | 'miss';
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
    ...(record.cache ? { cache: record.cache } : {}),
  };
}

/** The routing metadata of an answer its attempt handed over before the call's record existed. */
export function summaryOfHandedAnswer(workflowId: string, push: RelayAnswer): RoutingSummary {
  return {
    workflowId,
    route: push.route,
    servedBy: `${push.target.provider}/${push.target.model}`,
    fallbacks: push.fallbacks,
    costUsd: nanoToUsd(push.totalCostNanoUsd),
  };
}

export const ROUTING_HEADERS = {
  workflowId: 'x-switchyard-workflow-id',
  route: 'x-switchyard-route',
  servedBy: 'x-switchyard-served-by',
  fallbacks: 'x-switchyard-fallbacks',
  costUsd: 'x-switchyard-cost-usd',
  errorType: 'x-switchyard-error-type',
  /** On responses: `hit` or `miss`. On requests: the call's cache choice (`on`, `off`, a TTL in seconds). */
  cache: 'x-switchyard-cache',
  /** On requests: what the call cares about most (`cost`, `latency`, `reliability`), over the route's strategy. */
  prefer: 'x-switchyard-prefer',
  /** On requests: a JSON object of hard filters (`capabilities`, `maxLatencyMs`, `maxCostUsd`). */
  require: 'x-switchyard-require',
} as const;

/** Anything but visible ASCII and space, and `%` itself (so the encoding can be undone). */
const NOT_HEADER_SAFE = /[^\x20-\x24\x26-\x7e]/gu;

/**
 * `value` as a header can carry it: `%` and every character outside visible ASCII and space are
 * percent-encoded as UTF-8 (`decodeURIComponent` restores the text). Node refuses a header value outside Latin-1
 * with a thrown error, which would turn a paid, answered call into a 500 or hang a stream whose headers had
 * not gone out; names from the config are ASCII, but a record in history may predate that rule.
 */
export function headerValue(value: string): string {
  // Buffer's UTF-8 encoder writes a lone surrogate as U+FFFD, where encodeURIComponent would throw.
  return value.replace(NOT_HEADER_SAFE, (character) =>
    [...Buffer.from(character, 'utf8')]
      .map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`)
      .join(''),
  );
}

export function routingHeaders(summary: RoutingSummary): Record<string, string> {
  return {
    [ROUTING_HEADERS.workflowId]: headerValue(summary.workflowId),
    ...(summary.route !== undefined ? { [ROUTING_HEADERS.route]: headerValue(summary.route) } : {}),
    ...(summary.servedBy !== undefined ? { [ROUTING_HEADERS.servedBy]: headerValue(summary.servedBy) } : {}),
    ...(summary.fallbacks !== undefined ? { [ROUTING_HEADERS.fallbacks]: String(summary.fallbacks) } : {}),
    ...(summary.costUsd !== undefined ? { [ROUTING_HEADERS.costUsd]: summary.costUsd.toFixed(9) } : {}),
    ...(summary.cache !== undefined ? { [ROUTING_HEADERS.cache]: summary.cache } : {}),
  };
}

// When a Responses response was created and completed, read from its routed call's record. Node side, pure.
import type { RoutingRecord } from '../routing/routing-record';

/** A response's times in Unix seconds; absent when the record has no attempt to tell them. */
export interface ResponseTimes {
  /** When its first attempt started. */
  readonly created?: number;
  /** When its last attempt ended. */
  readonly completed?: number;
}

/**
 * The times a response shows, from its call's record: workflow time, written once in history, so the response
 * answered to a request and the same response read back later (`GET /v1/responses/{id}`) say the same. The
 * gateway's clock would differ between the two by however long lay between them.
 */
export function responseTimesOf(record: RoutingRecord | undefined): ResponseTimes {
  const attempts = record?.attempts ?? [];
  if (attempts.length === 0) return {};
  let started = Infinity;
  let ended = -Infinity;
  for (const attempt of attempts) {
    const start = Date.parse(attempt.startedAt);
    if (Number.isNaN(start)) continue;
    started = Math.min(started, start);
    ended = Math.max(ended, start + attempt.latencyMs);
  }
  if (!Number.isFinite(started)) return {};
  return { created: Math.floor(started / 1000), completed: Math.floor(ended / 1000) };
}

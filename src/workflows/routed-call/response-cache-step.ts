// The response cache around a routed call: serve a fresh answer free, wait for the one call already paying for
// it, or lead and store the answer. Workflow code.
import {
  ActivityFailure,
  CancellationScope,
  condition,
  isCancellation,
  log,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { SwitchyardActivities } from '../../activities';
import type { LookupCachedAnswerResult } from '../../activities/response-cache';
import type { ResolvedRoute } from '../../config/resolved-route';
import { GATEWAY_KEY_LABEL, type RoutedCallInput } from '../../config/routed-call-input';
import type { RoutedCallResult, RoutingRecord } from '../../routing/routing-record';
import {
  MAX_CACHE_LEASE_MS,
  cacheEntrySignal,
  type CacheEntryNews,
  type CachedAnswer,
} from '../response-cache/definitions';
import { recordCallMetrics } from '../routed-call-metrics';
import {
  costUsdAttribute,
  fallbacksAttribute,
  outcomeAttribute,
  routeAttribute,
  servedByAttribute,
} from '../search-attributes';

/** How long an answer is served when neither the call nor the route names a TTL, in milliseconds (5 minutes). */
export const DEFAULT_CACHE_TTL_MS = 5 * 60_000;
/** The shortest lease a leader gets, in milliseconds. */
const MIN_CACHE_LEASE_MS = 5_000;
/** Room on top of the targets' timeouts for backoffs, admission and the store, in milliseconds. */
const LEASE_MARGIN_MS = 10_000;
/** A waiting call looks again this long after the leader's lease should have ended, in milliseconds. */
const WAIT_GRACE_MS = 5_000;

// Entry access is an idempotent look-up or a message applied once (the entry ignores a repeated lookup by the
// same caller and number, and a second store only renews the answer), so local activities suit it: no extra
// workflow task, and their inputs (the request) are not written to history, only their results.
const { lookupCachedAnswer, storeCachedAnswer, releaseCachedAnswer } =
  proxyLocalActivities<SwitchyardActivities>({
    startToCloseTimeout: '30 seconds',
    retry: { maximumAttempts: 3 },
  });

/**
 * The TTL of this call's cache in milliseconds, or undefined when it does not use the cache: the call's `cache`
 * (`true`: the route's TTL or the default; an object: its TTL; `false`: off), else the route's. A streamed call
 * bypasses the cache: its pieces go to the caller as the provider sends them, and a hit has none to send.
 */
export function cacheTtlMs(route: ResolvedRoute, input: RoutedCallInput): number | undefined {
  if (input.stream) return undefined;
  const asked = input.cache;
  if (asked === false) return undefined;
  if (typeof asked === 'object') return asked.ttlMs;
  if (asked === true) return route.cache?.ttlMs ?? DEFAULT_CACHE_TTL_MS;
  return route.cache?.ttlMs;
}

/**
 * How long the leading call may take before a waiting call takes over, in milliseconds: the call's deadline, or
 * every attempt's timeout plus a margin, within 5 s to 15 minutes. A slower leader is not stopped: at worst a
 * second call pays for the same answer.
 */
function leaseMs(route: ResolvedRoute, input: RoutedCallInput): number {
  const walkMs =
    route.targets.reduce((total, target) => total + target.timeoutMs * (target.retries + 1), 0) +
    LEASE_MARGIN_MS;
  const deadlines = [route.deadlineMs, input.deadlineMs].filter(
    (value): value is number => value !== undefined,
  );
  const boundMs = Math.min(walkMs, ...deadlines);
  return Math.min(MAX_CACHE_LEASE_MS, Math.max(MIN_CACHE_LEASE_MS, boundMs));
}

/** The record of a hit: nothing sent, nothing charged, the answer's original target named. */
function hitRecord(route: ResolvedRoute, entry: CachedAnswer): RoutingRecord {
  return {
    route: route.name,
    ...(route.version !== undefined ? { routeVersion: route.version } : {}),
    cache: 'hit',
    explanation: {
      strategy: route.strategy ?? 'ordered',
      considered: [],
      ...(entry.servedBy ? { chosen: `${entry.servedBy.provider}/${entry.servedBy.model}` } : {}),
      reason:
        // Not the paying call's workflow id: it can carry another caller's gateway key id and idempotency key.
        `served from the response cache: an answer paid for at ` +
        `${new Date(entry.storedAtMs).toISOString()}; nothing was sent`,
      rejected: [],
      skipped: [],
    },
    workflowId: workflowInfo().workflowId,
    ...(entry.servedBy ? { servedBy: entry.servedBy } : {}),
    fallbacks: 0,
    rounds: 0,
    totalCostNanoUsd: 0,
    totalCostUsd: 0,
    attempts: [],
  };
}

function served(route: ResolvedRoute, entry: CachedAnswer): RoutedCallResult {
  const record = hitRecord(route, entry);
  recordCallMetrics('succeeded', record);
  upsertSearchAttributes([
    { key: routeAttribute, value: route.name },
    { key: outcomeAttribute, value: 'succeeded' },
    { key: fallbacksAttribute, value: 0 },
    { key: costUsdAttribute, value: 0 },
    ...(entry.servedBy
      ? [{ key: servedByAttribute, value: `${entry.servedBy.provider}/${entry.servedBy.model}` }]
      : []),
  ]);
  return { answer: entry.answer, record };
}

/**
 * Runs `walk` behind the response cache. A fresh answer is returned at once: no attempt, no breaker, no ledger,
 * so it is served free even when the budget is spent. Identical calls in flight make one provider call: the
 * first leads, the others wait (a durable wait for the entry's signal) and get its answer as hits. A leader that
 * fails stores nothing and hands the lead to a waiting call; a cache that cannot be reached is skipped.
 */
export async function cachedCall(
  route: ResolvedRoute,
  input: RoutedCallInput,
  ttlMs: number,
  /** Walks the route; `waited`: after waiting for another call, so the admission made at the start is stale. */
  walk: (waited?: boolean) => Promise<RoutedCallResult>,
): Promise<RoutedCallResult> {
  const caller = workflowInfo().workflowId;
  const lease = leaseMs(route, input);
  const deadlineAtMs =
    input.deadlineMs !== undefined || route.deadlineMs !== undefined
      ? workflowInfo().startTime.getTime() +
        Math.min(input.deadlineMs ?? Number.POSITIVE_INFINITY, route.deadlineMs ?? Number.POSITIVE_INFINITY)
      : undefined;
  let news: CacheEntryNews | undefined;
  setHandler(cacheEntrySignal, (received) => {
    news = received;
  });
  const lookup = async (number: number): Promise<LookupCachedAnswerResult | undefined> => {
    try {
      return await lookupCachedAnswer({
        request: input.request,
        route: {
          name: route.name,
          ...(route.version !== undefined ? { version: route.version } : {}),
          targets: route.targets.map(({ provider, model, via }) => ({
            provider,
            model,
            ...(via !== undefined ? { via } : {}),
          })),
        },
        ...(input.budget !== undefined ? { scope: input.budget } : {}),
        ...(input.labels?.[GATEWAY_KEY_LABEL] !== undefined
          ? { gatewayKey: input.labels[GATEWAY_KEY_LABEL] }
          : {}),
        ...(input.maxCostUsd !== undefined ? { maxCostUsd: input.maxCostUsd } : {}),
        ...(input.deadlineMs !== undefined ? { deadlineMs: input.deadlineMs } : {}),
        ...(input.prefer !== undefined ? { prefer: input.prefer } : {}),
        ...(input.require !== undefined ? { require: input.require } : {}),
        caller,
        lookup: number,
        ttlMs,
        leaseMs: lease,
      });
    } catch (error) {
      if (!(error instanceof ActivityFailure) || isCancellation(error)) throw error;
      // The cache only saves money: when its entry cannot be reached, the call goes to the provider uncached.
      log.warn('response cache unreachable; calling without it', { error: error.message });
      return undefined;
    }
  };

  let found = await lookup(1);
  // The next lookup's number: above 2, this call has waited for another.
  let number = 2;
  for (; found; number += 1) {
    if (found.outcome === 'hit') return served(route, found.entry);
    if (found.outcome === 'lead') return lead(found.keyDigest, number > 2);
    const waitUntilMs = Math.min(
      found.leaseEndsAtMs + WAIT_GRACE_MS,
      deadlineAtMs ?? Number.POSITIVE_INFINITY,
    );
    const told = await condition(() => news !== undefined, Math.max(1, waitUntilMs - Date.now()));
    if (told && news) {
      const received: CacheEntryNews = news;
      news = undefined;
      if (received.kind === 'answer') return served(route, received.entry);
      return lead(found.keyDigest, true);
    }
    // The call's deadline passed while it waited: the walk ends it with the deadline's error, sending nothing.
    if (deadlineAtMs !== undefined && Date.now() >= deadlineAtMs) return walk(true);
    // The leader's lease ran out without a word: ask again (this call may lead now).
    found = await lookup(number);
  }
  return walk(number > 2);

  async function lead(keyDigest: string, waited: boolean): Promise<RoutedCallResult> {
    let result: RoutedCallResult;
    try {
      result = await walk(waited);
    } catch (error) {
      // A failure is never cached: the entry keeps nothing and a waiting call leads next. Also when this call
      // was cancelled, hence outside its cancellation.
      await CancellationScope.nonCancellable(() =>
        releaseCachedAnswer({ keyDigest, caller }).catch((releaseError: unknown) => {
          log.warn('could not release the response cache entry', {
            error: releaseError instanceof Error ? releaseError.message : String(releaseError),
          });
        }),
      );
      throw error;
    }
    try {
      await storeCachedAnswer({
        keyDigest,
        caller,
        answer: result.answer,
        ...(result.record.servedBy ? { servedBy: result.record.servedBy } : {}),
        ttlMs,
      });
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      // The answer was paid for and is the caller's; the next identical call pays again.
      log.warn('could not store the answer in the response cache', { error: error.message });
    }
    return { ...result, record: { ...result.record, cache: 'miss' } };
  }
}

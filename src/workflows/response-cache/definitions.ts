// Names shared by the response-cache entity, the worker's cache access and routed calls: ids, messages, payloads. Workflow-safe.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { z } from 'zod';
import type { RoutedCallResult, RoutingRecord } from '../../routing/routing-record';

/** Workflow type of a response-cache entry, as listed by visibility queries. */
export const RESPONSE_CACHE_WORKFLOW_TYPE = 'responseCacheWorkflow';

const RESPONSE_CACHE_WORKFLOW_ID_PREFIX = 'switchyard-cache-';

/** Workflow id of the one cache entry of a key: `switchyard-cache-<SHA-256 hex of the key>`. */
export function responseCacheWorkflowId(keyDigest: string): string {
  return `${RESPONSE_CACHE_WORKFLOW_ID_PREFIX}${keyDigest}`;
}

/** The UI summary a cache entry is started with: the key's digest only, never the prompt. */
export function responseCacheStaticSummary(keyDigest: string): string {
  return `response cache ${keyDigest.slice(0, 12)}`;
}

/** The longest a leader may hold an entry before a waiting call takes over, in milliseconds (15 minutes). */
export const MAX_CACHE_LEASE_MS = 15 * 60_000;

/** An answer as the cache keeps it: what a hit hands back. */
export interface CachedAnswer {
  readonly answer: RoutedCallResult['answer'];
  /** The target that produced the answer when it was paid for. */
  readonly servedBy?: RoutingRecord['servedBy'];
  /** Workflow id of the call that paid for the answer. */
  readonly storedBy: string;
  /** Epoch milliseconds (the entry's workflow time) when the answer was stored. */
  readonly storedAtMs: number;
  /** Epoch milliseconds after which the answer is no longer served: stored time plus the storing call's TTL. */
  readonly expiresAtMs: number;
}

const callerSchema = z.string().min(1).max(1000);
const ttlSchema = z
  .number()
  .int()
  .min(1)
  .max(7 * 86_400_000);

export const CacheLookupInputSchema = z.object({
  /** Workflow id of the asking routed call: it is signalled when the answer comes or when it is to lead. */
  caller: callerSchema,
  /** The asking call's TTL, in milliseconds: an answer older than this is not served to it. */
  ttlMs: ttlSchema,
  /** How long the asking call holds the entry if it is to lead, in milliseconds. */
  leaseMs: z.number().int().min(1).max(MAX_CACHE_LEASE_MS),
});
export type CacheLookupInput = z.infer<typeof CacheLookupInputSchema>;

/**
 * What a lookup finds: a fresh answer (`hit`); nobody working on it, so the caller calls the provider (`lead`);
 * or another call already calling the provider, so the caller waits for the entry's signal (`wait`).
 */
export type CacheLookupResult =
  | { readonly outcome: 'hit'; readonly entry: CachedAnswer }
  | { readonly outcome: 'lead'; readonly leaseEndsAtMs: number }
  | { readonly outcome: 'wait'; readonly leaseEndsAtMs: number };

export interface CacheStoreInput {
  /** Workflow id of the call that paid for the answer. */
  readonly caller: string;
  readonly answer: RoutedCallResult['answer'];
  readonly servedBy?: RoutingRecord['servedBy'];
  /** How long the answer is served, in milliseconds. */
  readonly ttlMs: number;
}

export interface CacheReleaseInput {
  /** Workflow id of the leading call, which failed: nothing is stored, and a waiting call leads next. */
  readonly caller: string;
}

/** What an entry tells a routed call waiting on it: the answer, or that the call is to lead now. */
export type CacheEntryNews =
  | { readonly kind: 'answer'; readonly entry: CachedAnswer }
  | { readonly kind: 'lead'; readonly leaseEndsAtMs: number };

/** An entry's state, as carried over continue-as-new and read by the entry query. Plain JSON. */
export interface CacheEntryState {
  readonly entry?: CachedAnswer;
  /** The call calling the provider for this key, and until when it holds the entry. */
  readonly leader?: { readonly caller: string; readonly leaseEndsAtMs: number };
  /** Calls waiting for the leader's answer, in arrival order, each with the lease it asked for. */
  readonly waiters: readonly { readonly caller: string; readonly leaseMs: number }[];
}

export interface ResponseCacheWorkflowInput {
  /** SHA-256 hex of the key, for the entry's details. */
  readonly keyDigest: string;
  /** State carried over continue-as-new. @default empty */
  readonly carried?: CacheEntryState;
  /** @default 0 */
  readonly generation?: number;
  /**
   * Continue as new after this many messages in one run (Temporal refuses more than 2 000 updates per run).
   * @default 1000
   */
  readonly continueAsNewAfterMessages?: number;
}

/** Finds a fresh answer, or makes the caller the leader, or registers it as a waiter. Synchronous. */
export const lookupUpdate = defineUpdate<CacheLookupResult, [CacheLookupInput]>('lookup');
/** The leader's answer: kept for its TTL and sent to every waiting call. */
export const storeSignal = defineSignal<[CacheStoreInput]>('store');
/** The leader failed: nothing is kept (a failure is never cached) and the first waiting call leads next. */
export const releaseSignal = defineSignal<[CacheReleaseInput]>('release');
/** The entry's state. Queries add nothing to the entry's history, so a hit read this way costs it no event. */
export const entryQuery = defineQuery<CacheEntryState>('entry');
/** Sent by an entry to a routed call waiting on it (the call's handler is registered only while it waits). */
export const cacheEntrySignal = defineSignal<[CacheEntryNews]>('cacheEntry');

// Local activities through which routed calls reach response-cache entries, via the worker's client. Worker side.
import { createHash } from 'node:crypto';
import {
  QueryRejectedError,
  WithStartWorkflowOperation,
  WorkflowNotFoundError,
  type Client,
} from '@temporalio/client';
import { canonicalJson } from '../config/canonical-json';
import type { GenerationRequest } from '../config/request';
import type { RoutingRequirements } from '../config/routed-call-input';
import type { RoutedCallResult, RoutingRecord } from '../routing/routing-record';
import {
  entryQuery,
  lookupUpdate,
  releaseSignal,
  RESPONSE_CACHE_WORKFLOW_TYPE,
  responseCacheStaticSummary,
  responseCacheWorkflowId,
  storeSignal,
  type CachedAnswer,
  type CacheLookupResult,
  type CacheStoreInput,
} from '../workflows/response-cache/definitions';
import type { responseCacheWorkflow } from '../workflows/response-cache/response-cache-workflow';
import { openRunQueries } from './open-run-queries';

/** What makes two calls the same question: an answer is shared only between calls that agree on all of it. */
export interface CacheKeyParts {
  /** The validated request, defaults applied; compared as canonical JSON (key order does not matter). */
  readonly request: GenerationRequest;
  /** The route as resolved: its name, version and targets, so a changed route never serves an older answer. */
  readonly route: {
    readonly name: string;
    readonly version?: number;
    readonly targets: readonly { readonly provider: string; readonly model: string; readonly via?: string }[];
  };
  /** The call's budget scope: tenants with different scopes never share answers. */
  readonly scope?: string;
  /** The gateway key that made the call: keys never share answers, whatever their scopes. */
  readonly gatewayKey?: string;
  /** The call's cost ceiling and deadline, in USD and milliseconds: either can change which target answers. */
  readonly maxCostUsd?: number;
  readonly deadlineMs?: number;
  readonly prefer?: string;
  readonly require?: RoutingRequirements;
}

export interface LookupCachedAnswerInput extends CacheKeyParts {
  /** Workflow id of the asking routed call. */
  readonly caller: string;
  /** Which lookup of this call this is (1, 2, ..): a repeated local activity gets the same answer back. */
  readonly lookup: number;
  /** The call's TTL, in milliseconds. */
  readonly ttlMs: number;
  /** How long the call holds the entry if it leads, in milliseconds. */
  readonly leaseMs: number;
}

/** The lookup's outcome, and the key's digest that names the entry for the store or release. */
export type LookupCachedAnswerResult = CacheLookupResult & { readonly keyDigest: string };

export interface StoreCachedAnswerInput {
  readonly keyDigest: string;
  readonly caller: string;
  readonly answer: RoutedCallResult['answer'];
  readonly servedBy?: RoutingRecord['servedBy'];
  readonly ttlMs: number;
}

export interface ReleaseCachedAnswerInput {
  readonly keyDigest: string;
  readonly caller: string;
}

export interface ResponseCacheDependencies {
  /** The worker's own Temporal client. */
  readonly client: Client;
  /** Task queue cache entries run on (the entities' queue); part of the key, so deployments never share. */
  readonly taskQueue: string;
}

/** SHA-256 (hex) of the key: the entity queue, the route, the scope, the routing asks and the request. */
export function cacheKeyDigest(taskQueue: string, parts: CacheKeyParts): string {
  const key = {
    version: 1,
    taskQueue,
    route: {
      name: parts.route.name,
      version: parts.route.version,
      targets: parts.route.targets.map(({ provider, model, via }) => ({ provider, model, via })),
    },
    scope: parts.scope,
    gatewayKey: parts.gatewayKey,
    maxCostUsd: parts.maxCostUsd,
    deadlineMs: parts.deadlineMs,
    prefer: parts.prefer,
    require: parts.require,
    request: parts.request,
  };
  return createHash('sha256').update(canonicalJson(key)).digest('hex');
}

function freshFor(entry: CachedAnswer | undefined, ttlMs: number, nowMs: number): entry is CachedAnswer {
  return entry !== undefined && nowMs < entry.expiresAtMs && nowMs < entry.storedAtMs + ttlMs;
}

export function createResponseCacheAccess(dependencies: ResponseCacheDependencies) {
  const { client, taskQueue } = dependencies;
  // An entry past its TTL has ended: its closed run must read as "no entry", not as its last answer.
  const workflows = openRunQueries(client);
  /** The lookups of this worker waiting for an entry's update, by entry: one update at a time per entry. */
  const queues = new Map<string, Promise<unknown>>();

  /**
   * Runs `operation` after this worker's earlier ones on the same entry. Temporal admits only a few updates in
   * flight per workflow (refusing the rest for a second's backoff), and a burst of identical calls lands on one
   * entry; in line, each update is answered at once.
   */
  function inLine<T>(workflowId: string, operation: () => Promise<T>): Promise<T> {
    const before = queues.get(workflowId) ?? Promise.resolve();
    const result = before.then(operation, operation);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    queues.set(workflowId, tail);
    void tail.then(() => {
      if (queues.get(workflowId) === tail) queues.delete(workflowId);
    });
    return result;
  }

  async function readEntry(workflowId: string): Promise<CachedAnswer | undefined> {
    try {
      return (await workflows.getHandle(workflowId).query(entryQuery)).entry;
    } catch (error) {
      if (error instanceof WorkflowNotFoundError || error instanceof QueryRejectedError) return undefined;
      throw error;
    }
  }

  function startOperation(keyDigest: string) {
    return new WithStartWorkflowOperation<typeof responseCacheWorkflow>(RESPONSE_CACHE_WORKFLOW_TYPE, {
      workflowId: responseCacheWorkflowId(keyDigest),
      taskQueue,
      args: [{ keyDigest }],
      // Every call and worker with this key shares the one running entry.
      workflowIdConflictPolicy: 'USE_EXISTING',
      staticSummary: responseCacheStaticSummary(keyDigest),
    });
  }

  /**
   * Finds the answer to a call's key: a fresh one is read with a query (no event in the entry's history), and
   * only without one does the entry decide, by update-with-start, whether the call leads or waits.
   */
  async function lookupCachedAnswer(input: LookupCachedAnswerInput): Promise<LookupCachedAnswerResult> {
    const keyDigest = cacheKeyDigest(taskQueue, input);
    const workflowId = responseCacheWorkflowId(keyDigest);
    const seen = await readEntry(workflowId);
    if (freshFor(seen, input.ttlMs, Date.now())) return { keyDigest, outcome: 'hit', entry: seen };
    const result = await inLine(workflowId, () =>
      client.workflow.executeUpdateWithStart(lookupUpdate, {
        args: [{ caller: input.caller, ttlMs: input.ttlMs, leaseMs: input.leaseMs }],
        // Same call, same lookup, same update id: a repeated local activity gets the first answer back.
        updateId: `lookup:${input.caller}:${input.lookup}`,
        startWorkflowOperation: startOperation(keyDigest),
      }),
    );
    return { keyDigest, ...result };
  }

  /** Hands the leader's answer to its entry (starting one if the entry has ended meanwhile). */
  async function storeCachedAnswer(input: StoreCachedAnswerInput): Promise<void> {
    const store: CacheStoreInput = {
      caller: input.caller,
      answer: input.answer,
      ...(input.servedBy ? { servedBy: input.servedBy } : {}),
      ttlMs: input.ttlMs,
    };
    await client.workflow.signalWithStart<typeof responseCacheWorkflow, [CacheStoreInput]>(
      RESPONSE_CACHE_WORKFLOW_TYPE,
      {
        workflowId: responseCacheWorkflowId(input.keyDigest),
        taskQueue,
        args: [{ keyDigest: input.keyDigest }],
        signal: storeSignal,
        signalArgs: [store],
        staticSummary: responseCacheStaticSummary(input.keyDigest),
      },
    );
  }

  /** The leader failed: its entry keeps nothing and lets a waiting call lead. An ended entry needs nothing. */
  async function releaseCachedAnswer(input: ReleaseCachedAnswerInput): Promise<void> {
    try {
      await client.workflow
        .getHandle(responseCacheWorkflowId(input.keyDigest))
        .signal(releaseSignal, { caller: input.caller });
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
    }
  }

  return { lookupCachedAnswer, storeCachedAnswer, releaseCachedAnswer };
}

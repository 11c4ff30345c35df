// The response-cache entry: one short-lived workflow per cache key, holding one answer for its TTL and electing
// the one call that pays for it. Workflow code.
import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  log,
  setCurrentDetails,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { z } from 'zod';
import {
  cacheEntrySignal,
  CacheLookupInputSchema,
  entryQuery,
  lookupUpdate,
  releaseSignal,
  storeSignal,
  type CachedAnswer,
  type CacheEntryNews,
  type CacheEntryState,
  type CacheLookupInput,
  type CacheLookupResult,
  type CacheStoreInput,
  type ResponseCacheWorkflowInput,
} from './definitions';

const DEFAULT_CONTINUE_AS_NEW_AFTER_MESSAGES = 1_000;
/**
 * How long a new entry waits for its first message, in milliseconds. It is started by the message that needs
 * it (update-with-start, signal-with-start), which arrives in its first task; this only ends an entry started
 * some other way.
 */
const FIRST_MESSAGE_WAIT_MS = 60_000;

class CacheEntry {
  entry: CachedAnswer | undefined;
  leader: { caller: string; leaseEndsAtMs: number } | undefined;
  waiters: { caller: string; leaseMs: number }[];
  messagesThisRun = 0;
  private promoting = false;

  constructor(private readonly input: ResponseCacheWorkflowInput) {
    this.entry = input.carried?.entry;
    this.leader = input.carried?.leader;
    this.waiters = [...(input.carried?.waiters ?? [])];
  }

  private fresh(nowMs: number, ttlMs?: number): CachedAnswer | undefined {
    const { entry } = this;
    if (!entry || nowMs >= entry.expiresAtMs) return undefined;
    if (ttlMs !== undefined && nowMs >= entry.storedAtMs + ttlMs) return undefined;
    return entry;
  }

  /** Synchronous, so concurrent lookups are applied one after another: exactly one of them leads. */
  lookup(request: CacheLookupInput): CacheLookupResult {
    this.messagesThisRun += 1;
    const nowMs = Date.now();
    const entry = this.fresh(nowMs, request.ttlMs);
    if (entry) return { outcome: 'hit', entry };
    const { leader } = this;
    // A repeated lookup by the leader (a retried local activity, a waiter told to lead) renews its lease.
    if (!leader || leader.leaseEndsAtMs <= nowMs || leader.caller === request.caller) {
      this.leader = { caller: request.caller, leaseEndsAtMs: nowMs + request.leaseMs };
      this.waiters = this.waiters.filter((waiter) => waiter.caller !== request.caller);
      this.publishDetails();
      return { outcome: 'lead', leaseEndsAtMs: this.leader.leaseEndsAtMs };
    }
    if (!this.waiters.some((waiter) => waiter.caller === request.caller)) {
      this.waiters.push({ caller: request.caller, leaseMs: request.leaseMs });
    }
    this.publishDetails();
    return { outcome: 'wait', leaseEndsAtMs: leader.leaseEndsAtMs };
  }

  /** Keeps the answer (a newer one replaces an older one) and hands it to every waiting call. */
  async store(store: CacheStoreInput): Promise<void> {
    this.messagesThisRun += 1;
    const nowMs = Date.now();
    const entry: CachedAnswer = {
      answer: store.answer,
      ...(store.servedBy ? { servedBy: store.servedBy } : {}),
      storedBy: store.caller,
      storedAtMs: nowMs,
      expiresAtMs: nowMs + store.ttlMs,
    };
    this.entry = entry;
    this.leader = undefined;
    const waiting = this.waiters;
    this.waiters = [];
    this.publishDetails();
    await Promise.all(waiting.map(({ caller }) => tell(caller, { kind: 'answer', entry })));
  }

  /** The leader failed: its failure is not kept, and the first waiting call that still runs leads next. */
  async release(caller: string): Promise<void> {
    this.messagesThisRun += 1;
    if (this.leader?.caller !== caller) return;
    this.leader = undefined;
    await this.promote();
  }

  /** Ends an answer past its TTL and a lease that ran out (its call is gone or slow: a waiting call leads). */
  async expire(): Promise<void> {
    const nowMs = Date.now();
    if (this.entry && nowMs >= this.entry.expiresAtMs) this.entry = undefined;
    if (this.leader && nowMs >= this.leader.leaseEndsAtMs) {
      this.leader = undefined;
      await this.promote();
    }
    this.publishDetails();
  }

  /** Makes the first waiting call that can still be told the leader; a call that has ended is dropped. */
  private async promote(): Promise<void> {
    if (this.promoting) return;
    this.promoting = true;
    try {
      while (!this.leader && this.waiters.length > 0 && !this.fresh(Date.now())) {
        const next = this.waiters.shift()!;
        const leaseEndsAtMs = Date.now() + next.leaseMs;
        // Held while the signal travels, so a lookup meanwhile waits instead of leading too.
        this.leader = { caller: next.caller, leaseEndsAtMs };
        if (!(await tell(next.caller, { kind: 'lead', leaseEndsAtMs }))) this.leader = undefined;
      }
    } finally {
      this.promoting = false;
      this.publishDetails();
    }
  }

  /** Nothing left to serve or to wait for: the entry ends, and Temporal's retention removes it. */
  empty(): boolean {
    return !this.entry && !this.leader && this.waiters.length === 0;
  }

  /** When the entry must next look at its clock: the answer's expiry or the lease's end. */
  nextWakeAtMs(): number | undefined {
    const times = [this.entry?.expiresAtMs, this.leader?.leaseEndsAtMs].filter(
      (value): value is number => value !== undefined,
    );
    return times.length ? Math.min(...times) : undefined;
  }

  shouldContinueAsNew(): boolean {
    return (
      workflowInfo().continueAsNewSuggested ||
      this.messagesThisRun >=
        (this.input.continueAsNewAfterMessages ?? DEFAULT_CONTINUE_AS_NEW_AFTER_MESSAGES)
    );
  }

  state(): CacheEntryState {
    return {
      ...(this.entry ? { entry: this.entry } : {}),
      ...(this.leader ? { leader: { ...this.leader } } : {}),
      waiters: this.waiters.map((waiter) => ({ ...waiter })),
    };
  }

  carryOver(): ResponseCacheWorkflowInput {
    return { ...this.input, carried: this.state(), generation: (this.input.generation ?? 0) + 1 };
  }

  publishDetails(): void {
    const lines = [`**Response cache** ${this.input.keyDigest.slice(0, 12)}`];
    if (this.entry) {
      lines.push(
        `answer stored ${new Date(this.entry.storedAtMs).toISOString()} by ${this.entry.storedBy}, ` +
          `served until ${new Date(this.entry.expiresAtMs).toISOString()}`,
      );
    }
    if (this.leader) {
      lines.push(
        `calling the provider: ${this.leader.caller} until ${new Date(this.leader.leaseEndsAtMs).toISOString()}`,
      );
    }
    if (this.waiters.length) lines.push(`waiting: ${this.waiters.length}`);
    // Served by a query: costs no history event.
    setCurrentDetails(lines.join('\n\n'));
  }
}

/** Signals a routed call; false when it cannot be told (it has ended, or never existed). */
async function tell(caller: string, news: CacheEntryNews): Promise<boolean> {
  try {
    await getExternalWorkflowHandle(caller).signal(cacheEntrySignal, news);
    return true;
  } catch (error) {
    log.info('a routed call waiting on the response cache could not be told', {
      caller,
      kind: news.kind,
      error: error instanceof Error ? error.message : String(error),
    });
    return false;
  }
}

function invalidLookup(error: z.ZodError): ApplicationFailure {
  return ApplicationFailure.create({
    type: 'InvalidCacheMessage',
    message: `invalid cache lookup:\n${z.prettifyError(error)}`,
    nonRetryable: true,
  });
}

/** Signals have no validator, and throwing in a handler would fail the workflow task: a malformed one is dropped. */
function wellFormedStore(store: CacheStoreInput): boolean {
  return (
    typeof store?.caller === 'string' &&
    typeof store.answer === 'object' &&
    store.answer !== null &&
    Number.isInteger(store.ttlMs) &&
    store.ttlMs > 0
  );
}

/**
 * One cache key's entry. Lookups are synchronous updates, so concurrent identical calls are ordered and exactly
 * one leads; waiting calls are told by signal, never held in an update (Temporal allows only a few updates in
 * flight per workflow). The entry ends once its answer expired and nobody leads or waits: a durable timer wakes
 * it at the expiry, and the closed workflow is removed after the namespace's retention.
 */
export async function responseCacheWorkflow(input: ResponseCacheWorkflowInput): Promise<void> {
  const cache = new CacheEntry(input);

  setHandler(lookupUpdate, (request) => cache.lookup(CacheLookupInputSchema.parse(request)), {
    validator: (request) => {
      const parsed = CacheLookupInputSchema.safeParse(request);
      if (!parsed.success) throw invalidLookup(parsed.error);
    },
  });
  setHandler(storeSignal, async (store) => {
    if (!wellFormedStore(store)) {
      log.warn('dropping a malformed response-cache store');
      return;
    }
    await cache.store(store);
  });
  setHandler(releaseSignal, async (release) => {
    if (typeof release?.caller !== 'string') return;
    await cache.release(release.caller);
  });
  setHandler(entryQuery, () => cache.state());

  // Started by the message that needs it (which the SDK hands over once the handlers above are set).
  if (cache.empty()) await condition(() => !cache.empty(), FIRST_MESSAGE_WAIT_MS);
  for (;;) {
    await cache.expire();
    if (cache.empty() || cache.shouldContinueAsNew()) break;
    const wakeAtMs = cache.nextWakeAtMs() ?? Date.now() + FIRST_MESSAGE_WAIT_MS;
    // Wake early only for what moves the next deadline closer (or ends the entry): a hit or a waiter costs no timer.
    const wakeEarlier = () =>
      cache.empty() ||
      cache.shouldContinueAsNew() ||
      (cache.nextWakeAtMs() ?? Number.POSITIVE_INFINITY) < wakeAtMs;
    await condition(wakeEarlier, Math.max(1, wakeAtMs - Date.now()));
  }
  // Waiting keeps a store's signals to waiting calls from being cut off; continue-as-new from a handler, or
  // while one runs, would lose its message.
  await condition(allHandlersFinished);
  if (!cache.empty()) await continueAsNew<typeof responseCacheWorkflow>(cache.carryOver());
}

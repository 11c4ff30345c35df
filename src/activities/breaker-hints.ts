// A worker's short-lived view of each breaker, so healthy calls cost the breaker entity nothing. Worker side.
import type { BreakerState } from '../routing/breaker-state';

/** Variable that sets the hint TTL when the worker is not given one. */
export const BREAKER_HINT_TTL_VARIABLE = 'SWITCHYARD_BREAKER_HINT_TTL_MS';
/** How long a worker trusts its view of a breaker, in milliseconds. */
export const DEFAULT_BREAKER_HINT_TTL_MS = 1_000;

export interface BreakerHint {
  readonly state: BreakerState;
  /** Whether the entity existed when last read; a missing entity is a closed breaker. */
  readonly exists: boolean;
  /** Epoch milliseconds the entity was read; the hint is trusted until `readAtMs + ttlMs`. */
  readonly readAtMs: number;
}

/** The TTL from `SWITCHYARD_BREAKER_HINT_TTL_MS`, else {@link DEFAULT_BREAKER_HINT_TTL_MS}. */
export function breakerHintTtlFromEnvironment(environment: NodeJS.ProcessEnv = process.env): number {
  const raw = environment[BREAKER_HINT_TTL_VARIABLE];
  if (raw === undefined || raw.trim() === '') return DEFAULT_BREAKER_HINT_TTL_MS;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 60_000) {
    throw new Error(
      `${BREAKER_HINT_TTL_VARIABLE} must be an integer number of milliseconds from 0 to 60000, got "${raw}"`,
    );
  }
  return value;
}

/**
 * Per-worker cache of breaker states keyed by `provider/model`. A view is stale by at most `ttlMs`: after that
 * the next caller re-reads the entity (one read per key at a time, shared by every caller waiting for it).
 * Changes this worker itself makes (an admit's result, a report it sent) are applied at once.
 */
export class BreakerHints {
  private readonly hints = new Map<string, BreakerHint>();
  private readonly reads = new Map<string, Promise<BreakerHint>>();
  private readonly entityTurns = new Map<string, Promise<unknown>>();
  /** Pauses this worker learned of from its own reports, by key: epoch milliseconds each ends. */
  private readonly pauses = new Map<string, number>();

  constructor(
    /** How long a view is trusted, in milliseconds; 0 re-reads the entity on every call. */
    readonly ttlMs: number,
    private readonly clock: () => number = Date.now,
  ) {}

  /** The hint when it is still within its TTL. */
  fresh(key: string): BreakerHint | undefined {
    const hint = this.hints.get(key);
    return hint && this.clock() - hint.readAtMs < this.ttlMs ? hint : undefined;
  }

  /** A fresh hint, reading the entity with `read` when there is none; concurrent callers share one read. */
  async current(
    key: string,
    read: () => Promise<{ state: BreakerState; exists: boolean }>,
  ): Promise<BreakerHint> {
    const hint = this.fresh(key);
    if (hint) return hint;
    const pending = this.reads.get(key);
    if (pending) return pending;
    const readAtMs = this.clock();
    const reading = read()
      .then(({ state, exists }) => this.remember(key, state, exists, readAtMs))
      .finally(() => this.reads.delete(key));
    this.reads.set(key, reading);
    return reading;
  }

  /** Stores what the entity said at `readAtMs` (default now). */
  remember(key: string, state: BreakerState, exists: boolean, readAtMs: number = this.clock()): BreakerHint {
    const hint = { state, exists, readAtMs };
    const known = this.hints.get(key);
    // A slower read must not overwrite a newer answer (e.g. an admit's result that arrived first).
    if (!known || known.readAtMs <= readAtMs) this.hints.set(key, hint);
    return this.hints.get(key)!;
  }

  /**
   * Applies a change this worker caused without reading the entity; the hint keeps its read time, so it
   * does not live longer than the view it was derived from.
   */
  applyLocally(key: string, state: BreakerState): void {
    const known = this.hints.get(key);
    if (known) this.hints.set(key, { ...known, state, exists: true });
  }

  /**
   * Remembers that `key` is paused until `untilMs` (a rate-limited answer this worker reported). Kept apart from
   * the view, which may be dropped or re-read before the entity has applied the report: this worker's callers
   * skip the target at once, whatever view they decide with.
   */
  notePause(key: string, untilMs: number): void {
    const known = this.pauses.get(key);
    if (known === undefined || known < untilMs) this.pauses.set(key, untilMs);
  }

  /**
   * `state` with this worker's own pause of `key` added, when that one ends later than the state's (the same
   * object otherwise). A pause that has ended is forgotten.
   */
  withPause(key: string, state: BreakerState): BreakerState {
    const until = this.pauses.get(key);
    if (until === undefined) return state;
    if (this.clock() >= until) {
      this.pauses.delete(key);
      return state;
    }
    return (state.pausedUntilMs ?? 0) >= until ? state : { ...state, pausedUntilMs: until };
  }

  /** Drops the view of `key`, so the next caller reads the entity. */
  forget(key: string): void {
    this.hints.delete(key);
  }

  /**
   * Runs `body` after every earlier body for the same key has finished: a worker sends one breaker update
   * per key at a time, and each caller decides again with the answer of the one before it.
   */
  async oneAtATime<T>(key: string, body: () => Promise<T>): Promise<T> {
    const previous = this.entityTurns.get(key) ?? Promise.resolve();
    const turn = previous.then(body, body);
    const settled = turn.then(
      () => undefined,
      () => undefined,
    );
    this.entityTurns.set(key, settled);
    void settled.then(() => {
      if (this.entityTurns.get(key) === settled) this.entityTurns.delete(key);
    });
    return turn;
  }
}

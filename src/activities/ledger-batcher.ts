// Coalesces a worker's concurrent reservations on a budget scope into one in-flight update. Worker side.
// Temporal admits at most 10 in-flight updates per workflow; with one update per scope per worker in flight, a
// hot scope stays far below that however many calls wait on it (see docs/decisions/0001-ledger-reservations.md).
import { ApplicationFailure } from '@temporalio/common';
import type { ReservationDecision, ReservationRequest } from '../routing/ledger-state';
import { MAX_RESERVATIONS_PER_UPDATE } from '../workflows/ledger/ledger-definitions';

/** Sends one batch for a scope and returns one decision per request, in order. */
export type SendReservations = (
  scope: string,
  requests: readonly ReservationRequest[],
) => Promise<readonly ReservationDecision[]>;

export interface LedgerBatcherOptions {
  /** Most reservations in one update; a longer queue goes out as several updates, one after another. @default 500 */
  readonly maxBatchSize?: number;
  /** Tries of one batch (transient errors only) before its callers get the error. @default 4 */
  readonly maxTries?: number;
  /** Delay before the second try in milliseconds, doubled per try, with up to 50% jitter. @default 100 */
  readonly retryDelayMs?: number;
}

interface Waiter {
  readonly request: ReservationRequest;
  resolve(decision: ReservationDecision): void;
  reject(error: unknown): void;
}

/** One scope's queue: requests waiting for the next update, and whether an update is in flight. */
interface Lane {
  readonly waiting: Waiter[];
  /** Requests queued or in flight by id, so a retried request joins the first instead of reserving again. */
  readonly byId: Map<string, Promise<ReservationDecision>>;
  sending: boolean;
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function isPermanent(error: unknown): boolean {
  return error instanceof ApplicationFailure && error.nonRetryable === true;
}

/**
 * A request that finds no update in flight for its scope goes out at once, alone: an uncontended call waits
 * for nothing. Requests that arrive while one is in flight queue up and leave together when it returns.
 */
export class LedgerReservationBatcher {
  private readonly lanes = new Map<string, Lane>();
  private readonly maxBatchSize: number;
  private readonly maxTries: number;
  private readonly retryDelayMs: number;

  constructor(
    private readonly send: SendReservations,
    options: LedgerBatcherOptions = {},
  ) {
    this.maxBatchSize = options.maxBatchSize ?? MAX_RESERVATIONS_PER_UPDATE;
    this.maxTries = options.maxTries ?? 4;
    this.retryDelayMs = options.retryDelayMs ?? 100;
  }

  reserve(scope: string, request: ReservationRequest): Promise<ReservationDecision> {
    let lane = this.lanes.get(scope);
    if (!lane) {
      lane = { waiting: [], byId: new Map(), sending: false };
      this.lanes.set(scope, lane);
    }
    const joined = lane.byId.get(request.reservationId);
    if (joined) return joined;
    const decision = new Promise<ReservationDecision>((resolve, reject) =>
      lane.waiting.push({ request, resolve, reject }),
    );
    lane.byId.set(request.reservationId, decision);
    const forget = () => lane.byId.delete(request.reservationId);
    decision.then(forget, forget);
    if (!lane.sending) void this.drain(scope, lane);
    return decision;
  }

  /** Scopes with requests queued or in flight (for tests and diagnostics). */
  get activeScopes(): number {
    return this.lanes.size;
  }

  private async drain(scope: string, lane: Lane): Promise<void> {
    lane.sending = true;
    try {
      while (lane.waiting.length) {
        const batch = lane.waiting.splice(0, this.maxBatchSize);
        try {
          const decisions = await this.sendWithRetries(
            scope,
            batch.map((waiter) => waiter.request),
          );
          if (decisions.length !== batch.length)
            throw new Error(`ledger ${scope} answered ${decisions.length} of ${batch.length} reservations`);
          batch.forEach((waiter, index) => waiter.resolve(decisions[index]!));
        } catch (error) {
          for (const waiter of batch) waiter.reject(error);
        }
      }
    } finally {
      lane.sending = false;
      this.lanes.delete(scope);
    }
  }

  private async sendWithRetries(
    scope: string,
    requests: readonly ReservationRequest[],
  ): Promise<readonly ReservationDecision[]> {
    for (let tries = 1; ; tries += 1) {
      try {
        return await this.send(scope, requests);
      } catch (error) {
        // Safe to send again: the ledger answers a repeated reservation id with its first grant.
        if (isPermanent(error) || tries >= this.maxTries) throw error;
        const backoff = this.retryDelayMs * 2 ** (tries - 1);
        await delay(backoff + Math.random() * backoff * 0.5);
      }
    }
  }
}

// Coalesces a worker's messages to a budget scope (reservations, settles, releases) into one in-flight update. Worker side.
// Temporal admits at most 10 in-flight updates per workflow; with one update per scope per worker in flight, a
// hot scope stays far below that however many calls wait on it (see docs/decisions/0001-ledger-reservations.md).
// Settles and releases travel the same way rather than as signals: a signal that reaches the ledger while it
// continues as new fails that workflow task, while an update never does (docs/decisions/0003-ledger-messages.md).
import { ApplicationFailure } from '@temporalio/common';
import type { ReservationDecision, ReservationRequest, Settlement } from '../routing/ledger-state';
import { MAX_RESERVATIONS_PER_UPDATE } from '../workflows/ledger/ledger-definitions';

/** What one update to a ledger carries; closes are applied before reservations (they free budget). */
export interface LedgerBatch {
  readonly requests: readonly ReservationRequest[];
  readonly settlements: readonly Settlement[];
  readonly releases: readonly { readonly reservationId: string }[];
}

/** Closes taken out of the batcher by {@link LedgerMessageBatcher.takeWaitingCloses}. */
export interface TakenCloses {
  readonly settlements: readonly Settlement[];
  readonly releases: readonly { readonly reservationId: string }[];
  sent(): void;
  failed(): void;
}

/** Sends one batch for a scope and returns one decision per reservation request, in order. */
export type SendLedgerBatch = (scope: string, batch: LedgerBatch) => Promise<readonly ReservationDecision[]>;

export interface LedgerBatcherOptions {
  /** Most messages in one update; a longer queue goes out as several updates, one after another. @default 500 */
  readonly maxBatchSize?: number;
  /** Tries of one batch (transient errors only) before its callers get the error. @default 4 */
  readonly maxTries?: number;
  /** Delay before the second try in milliseconds, doubled per try, with up to 50% jitter. @default 100 */
  readonly retryDelayMs?: number;
  /**
   * How long a settle or release sent with `linger` may wait for other messages to the same scope before it
   * goes alone, in milliseconds: back-to-back calls then cost the ledger one update each instead of two.
   * @default 100
   */
  readonly lingerMs?: number;
}

interface Waiter<T, M> {
  readonly message: M;
  resolve(value: T): void;
  reject(error: unknown): void;
}

type Close =
  | { readonly kind: 'settle'; readonly settlement: Settlement }
  | { readonly kind: 'release'; readonly reservationId: string };

/** One scope's queue: messages waiting for the next update, and whether an update is in flight. */
interface Lane {
  readonly reservations: Waiter<ReservationDecision, ReservationRequest>[];
  readonly closes: Waiter<void, Close>[];
  /** Messages queued or in flight by id, so a retried message joins the first instead of going twice. */
  readonly byId: Map<string, Promise<unknown>>;
  sending: boolean;
  /** Set while lingering closes wait for company; the next message (or the timer) sends them. */
  linger: NodeJS.Timeout | undefined;
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function isPermanent(error: unknown): boolean {
  return error instanceof ApplicationFailure && error.nonRetryable === true;
}

/**
 * A message that finds no update in flight for its scope goes out at once, alone: an uncontended call waits
 * for nothing. Messages that arrive while one is in flight queue up and leave together when it returns.
 */
export class LedgerMessageBatcher {
  private readonly lanes = new Map<string, Lane>();
  private readonly maxBatchSize: number;
  private readonly maxTries: number;
  private readonly retryDelayMs: number;

  constructor(
    private readonly send: SendLedgerBatch,
    options: LedgerBatcherOptions = {},
  ) {
    this.maxBatchSize = options.maxBatchSize ?? MAX_RESERVATIONS_PER_UPDATE;
    this.maxTries = options.maxTries ?? 4;
    this.retryDelayMs = options.retryDelayMs ?? 100;
    this.lingerMs = options.lingerMs ?? 100;
  }

  private readonly lingerMs: number;

  reserve(scope: string, request: ReservationRequest): Promise<ReservationDecision> {
    return this.enqueue(scope, `reserve:${request.reservationId}`, (lane, waiter) =>
      lane.reservations.push({ message: request, ...waiter }),
    );
  }

  /**
   * Several reservations that leave in the same update, in order (a call's reservation and an ask for an
   * allowance beside it): one decision each.
   */
  reserveAll(scope: string, requests: readonly ReservationRequest[]): Promise<ReservationDecision>[] {
    const lane = this.lanes.get(scope);
    // Held back by a linger of their own, so the last of them sends them all; an update in flight takes them next.
    if (lane === undefined || !lane.sending) {
      const held = requests
        .slice(0, -1)
        .map((request) =>
          this.enqueue<ReservationDecision>(
            scope,
            `reserve:${request.reservationId}`,
            (queue, waiter) => queue.reservations.push({ message: request, ...waiter }),
            true,
          ),
        );
      return [...held, this.reserve(scope, requests[requests.length - 1]!)];
    }
    return requests.map((request) => this.reserve(scope, request));
  }

  /**
   * Charges a granted reservation what the attempt cost (the whole reservation when the cost is unknown).
   * `linger`: it may wait up to `lingerMs` for other messages to the scope, to travel with them.
   */
  settle(scope: string, settlement: Settlement, options: { readonly linger?: boolean } = {}): Promise<void> {
    return this.enqueue(
      scope,
      `close:${settlement.reservationId}`,
      (lane, waiter) => lane.closes.push({ message: { kind: 'settle', settlement }, ...waiter }),
      options.linger === true,
    );
  }

  /** Frees a reservation without charge (nothing was sent), and makes the ledger refuse a late copy of it. */
  release(scope: string, reservationId: string, options: { readonly linger?: boolean } = {}): Promise<void> {
    return this.enqueue(
      scope,
      `close:${reservationId}`,
      (lane, waiter) => lane.closes.push({ message: { kind: 'release', reservationId }, ...waiter }),
      options.linger === true,
    );
  }

  /**
   * Takes up to `most` of the settles and releases of a scope that wait for company (and no reservation waits with
   * them), for a message about to leave anyway (a claim) to carry: `sent()` or `failed()` answers their callers once it went;
   * after a failure they go the usual way. Undefined when there is nothing to take.
   */
  takeWaitingCloses(scope: string, most: number): TakenCloses | undefined {
    const lane = this.lanes.get(scope);
    if (!lane || lane.closes.length === 0 || lane.reservations.length > 0 || most <= 0) return undefined;
    const taken = lane.closes.splice(0, most);
    // No longer queued: a copy sent again (after a failed claim) must go, not join the one taken.
    for (const { message } of taken) {
      lane.byId.delete(
        `close:${message.kind === 'settle' ? message.settlement.reservationId : message.reservationId}`,
      );
    }
    if (!lane.sending && lane.closes.length === 0) {
      clearTimeout(lane.linger);
      lane.linger = undefined;
      this.lanes.delete(scope);
    }
    return {
      settlements: taken.flatMap(({ message }) => (message.kind === 'settle' ? [message.settlement] : [])),
      releases: taken.flatMap(({ message }) =>
        message.kind === 'release' ? [{ reservationId: message.reservationId }] : [],
      ),
      sent: () => taken.forEach((waiter) => waiter.resolve()),
      failed: () => {
        for (const waiter of taken) {
          const again =
            waiter.message.kind === 'settle'
              ? this.settle(scope, waiter.message.settlement)
              : this.release(scope, waiter.message.reservationId);
          again.then(waiter.resolve, waiter.reject);
        }
      },
    };
  }

  /** Scopes with messages queued or in flight (for tests and diagnostics). */
  get activeScopes(): number {
    return this.lanes.size;
  }

  private enqueue<T>(
    scope: string,
    id: string,
    push: (lane: Lane, waiter: { resolve(value: T): void; reject(error: unknown): void }) => void,
    linger = false,
  ): Promise<T> {
    let lane = this.lanes.get(scope);
    if (!lane) {
      lane = { reservations: [], closes: [], byId: new Map(), sending: false, linger: undefined };
      this.lanes.set(scope, lane);
    }
    const joined = lane.byId.get(id);
    if (joined) return joined as Promise<T>;
    const queued = new Promise<T>((resolve, reject) => push(lane, { resolve, reject }));
    lane.byId.set(id, queued);
    const forget = () => lane.byId.delete(id);
    queued.then(forget, forget);
    if (lane.sending) return queued;
    if (linger && this.lingerMs > 0) {
      // The first lingering message starts the clock; anything not lingering sends them all at once.
      lane.linger ??= setTimeout(() => void this.drain(scope, lane), this.lingerMs);
      return queued;
    }
    void this.drain(scope, lane);
    return queued;
  }

  private async drain(scope: string, lane: Lane): Promise<void> {
    if (lane.sending) return;
    clearTimeout(lane.linger);
    lane.linger = undefined;
    lane.sending = true;
    try {
      while (lane.closes.length || lane.reservations.length) {
        const closes = lane.closes.splice(0, this.maxBatchSize);
        const reservations = lane.reservations.splice(0, this.maxBatchSize - closes.length);
        try {
          const decisions = await this.sendWithRetries(scope, {
            requests: reservations.map((waiter) => waiter.message),
            settlements: closes.flatMap(({ message }) =>
              message.kind === 'settle' ? [message.settlement] : [],
            ),
            releases: closes.flatMap(({ message }) =>
              message.kind === 'release' ? [{ reservationId: message.reservationId }] : [],
            ),
          });
          if (decisions.length !== reservations.length)
            throw new Error(
              `ledger ${scope} answered ${decisions.length} of ${reservations.length} reservations`,
            );
          reservations.forEach((waiter, index) => waiter.resolve(decisions[index]!));
          closes.forEach((waiter) => waiter.resolve());
        } catch (error) {
          for (const waiter of [...reservations, ...closes]) waiter.reject(error);
        }
      }
    } finally {
      lane.sending = false;
      // A lingering message that arrived while this update was out has its own timer running.
      if (!lane.linger) this.lanes.delete(scope);
    }
  }

  private async sendWithRetries(scope: string, batch: LedgerBatch): Promise<readonly ReservationDecision[]> {
    for (let tries = 1; ; tries += 1) {
      try {
        return await this.send(scope, batch);
      } catch (error) {
        // Safe to send again: the ledger answers a repeated reservation id with its first grant, and a repeated
        // settle or release of a closed one changes nothing.
        if (isPermanent(error) || tries >= this.maxTries) throw error;
        const backoff = this.retryDelayMs * 2 ** (tries - 1);
        await delay(backoff + Math.random() * backoff * 0.5);
      }
    }
  }
}

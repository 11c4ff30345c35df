// A worker's allowances on budget ledgers: reservations granted from a leased block without a ledger round trip,
// each recorded on the ledger (a claim) before its attempt sends anything. Worker side.
// Why this is exact, and when it steps aside: docs/decisions/0009-worker-allowances.md.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { AllowanceClaims, ReservationDecision, ReservationRequest } from '../routing/ledger-state';
import { MAX_ALLOWANCE_LEASE_MS, MAX_RESERVATIONS_PER_UPDATE } from '../workflows/ledger/ledger-definitions';
import type { LedgerMessageBatcher } from './ledger-batcher';

/** Records claims in the scope's ledger; resolves once they are in its history (a signal, not an update). */
export type SendClaims = (scope: string, claims: AllowanceClaims) => Promise<void>;

export interface BudgetAllowanceOptions {
  /**
   * How long after asking for an allowance the worker grants from it, in milliseconds: a claim recorded later
   * than this is not trusted, and its attempt asks the ledger the usual way. @default 2000
   */
  readonly claimWindowMs?: number;
  /**
   * How much longer than the claim window the ledger holds the allowance, in milliseconds: the margin that keeps
   * every trusted claim ahead of the lease's end in the ledger's history. @default 1000
   */
  readonly leaseMarginMs?: number;
  /** An allowance nobody claimed from for this long goes back to the ledger, in milliseconds. @default 500 */
  readonly idleMs?: number;
  /** After a refused or failed ask, how long the worker reserves call by call before asking again, in milliseconds. @default 1000 */
  readonly quietAfterRefusalMs?: number;
  /** First allowance, in multiples of the reservation that asked for it; doubles or halves with use. @default 8 */
  readonly initialMultiple?: number;
  /** @default 64 */
  readonly maxMultiple?: number;
  /**
   * One clock in milliseconds for tests, in place of both clocks the claim window is measured on: the elapsed time
   * is the larger of the monotonic clock's and the wall clock's, so that neither a wall-clock step nor a suspended
   * machine (which stops the monotonic clock) makes a late claim look timely. @default both
   */
  readonly now?: () => number;
  /** The wall clock, for tests that move it apart from `now`. @default `now` when given, else Date.now */
  readonly wallNow?: () => number;
}

interface Claim {
  readonly request: ReservationRequest;
  resolve(): void;
  reject(error: unknown): void;
}

interface Allowance {
  readonly id: string;
  /** Monotonic and wall time just before the ask left: the claim window is counted from here. */
  readonly askedAt: number;
  readonly askedAtWall: number;
  readonly grantedNanoUsd: number;
  remainingNanoUsd: number;
  /** Claims taken and not yet answered by the ledger; the allowance is given back only at zero. */
  inFlight: number;
  lastClaimAt: number;
  /** No more claims; given back once none is in flight. */
  retiring: boolean;
  givenBack: boolean;
  readonly queue: Claim[];
  sending: boolean;
  timer: NodeJS.Timeout | undefined;
}

interface ScopeAllowances {
  current: Allowance | undefined;
  asking: boolean;
  quietUntil: number;
  multiple: number;
}

/** Ledgers that answered a grant without the allowance mark (they do not know allowances) are left alone this long. */
const OLD_LEDGER_QUIET_MS = 60_000;
const MIN_MULTIPLE = 2;

/**
 * Grants a worker's reservations from allowances it leases from each scope's ledger. An attempt's reservation is
 * taken from the scope's allowance in memory and recorded in the ledger's history by a claim (one signal per
 * batch of claims, no workflow task waited for) before the reservation is returned; without an allowance that
 * can hold it, the reservation goes to the ledger as before, with an ask for an allowance beside it.
 */
export class BudgetAllowances {
  private readonly scopes = new Map<string, ScopeAllowances>();
  private readonly workerTag = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private sequence = 0;
  private readonly claimWindowMs: number;
  private readonly leaseMarginMs: number;
  private readonly idleMs: number;
  private readonly quietAfterRefusalMs: number;
  private readonly initialMultiple: number;
  private readonly maxMultiple: number;
  private readonly now: () => number;
  private readonly wallNow: () => number;

  constructor(
    private readonly batcher: LedgerMessageBatcher,
    private readonly sendClaims: SendClaims,
    options: BudgetAllowanceOptions = {},
  ) {
    this.claimWindowMs = options.claimWindowMs ?? 2000;
    this.leaseMarginMs = options.leaseMarginMs ?? 1000;
    this.idleMs = options.idleMs ?? 500;
    this.quietAfterRefusalMs = options.quietAfterRefusalMs ?? 1000;
    this.initialMultiple = options.initialMultiple ?? 8;
    this.maxMultiple = options.maxMultiple ?? 64;
    this.now = options.now ?? (() => performance.now());
    this.wallNow = options.wallNow ?? options.now ?? Date.now;
    // A margin of at least half a second keeps a trusted claim ahead of the lease's end; the ledger caps the lease.
    if (!(this.claimWindowMs > 0) || !(this.leaseMarginMs >= 500)) {
      throw new RangeError(
        `budgetAllowances: claimWindowMs must be above 0 and leaseMarginMs at least 500 (got ${this.claimWindowMs} and ${this.leaseMarginMs})`,
      );
    }
    if (this.claimWindowMs + this.leaseMarginMs > MAX_ALLOWANCE_LEASE_MS) {
      throw new RangeError(
        `budgetAllowances: claimWindowMs + leaseMarginMs must be at most ${MAX_ALLOWANCE_LEASE_MS} ms (the ledger's longest allowance lease)`,
      );
    }
  }

  /** Reserves for one attempt: from the scope's allowance when it can hold it, else on the ledger. */
  async reserve(scope: string, request: ReservationRequest): Promise<ReservationDecision> {
    const lane = this.lane(scope);
    const allowance = lane.current;
    if (allowance && this.canHold(allowance, request.amountNanoUsd)) {
      return this.claim(scope, lane, allowance, request);
    }
    // An allowance too small for this call goes back at once: what it holds may be what the call needs.
    if (allowance) this.retire(scope, lane, allowance);
    if (!this.mayAsk(lane)) return this.batcher.reserve(scope, request);
    const ask = this.ask(lane, request);
    const [decision, asked] = this.batcher.reserveAll(scope, [request, ask.request]);
    this.whenAnswered(scope, lane, ask, asked!);
    return decision!;
  }

  /** Scopes with an allowance or an ask open (for tests and diagnostics). */
  get openAllowances(): number {
    let count = 0;
    for (const lane of this.scopes.values()) if (lane.current) count += 1;
    return count;
  }

  private lane(scope: string): ScopeAllowances {
    let lane = this.scopes.get(scope);
    if (!lane) {
      lane = { current: undefined, asking: false, quietUntil: 0, multiple: this.initialMultiple };
      this.scopes.set(scope, lane);
    }
    return lane;
  }

  private canHold(allowance: Allowance, amountNanoUsd: number): boolean {
    return (
      !allowance.retiring &&
      allowance.remainingNanoUsd >= amountNanoUsd &&
      this.sinceAsked(allowance) < this.claimWindowMs
    );
  }

  private sinceAsked(allowance: Allowance): number {
    return Math.max(this.now() - allowance.askedAt, this.wallNow() - allowance.askedAtWall);
  }

  private mayAsk(lane: ScopeAllowances): boolean {
    return !lane.asking && this.now() >= lane.quietUntil;
  }

  private ask(lane: ScopeAllowances, model: ReservationRequest) {
    lane.asking = true;
    this.sequence += 1;
    const request: ReservationRequest = {
      reservationId: `allowance:${this.workerTag}#${this.sequence}`,
      amountNanoUsd: Math.min(model.amountNanoUsd * lane.multiple, Number.MAX_SAFE_INTEGER),
      holder: `worker ${this.workerTag}`,
      leaseMs: this.claimWindowMs + this.leaseMarginMs,
      allowance: true,
    };
    return { request, askedAt: this.now(), askedAtWall: this.wallNow() };
  }

  private whenAnswered(
    scope: string,
    lane: ScopeAllowances,
    ask: { request: ReservationRequest; askedAt: number; askedAtWall: number },
    answer: Promise<ReservationDecision>,
  ): void {
    answer.then(
      (decision) => {
        lane.asking = false;
        if (!decision.granted) {
          lane.quietUntil = this.now() + this.quietAfterRefusalMs;
          return;
        }
        if (!decision.allowance) {
          // A ledger from before allowances granted a plain reservation: nobody would ever claim from it.
          lane.quietUntil = this.now() + OLD_LEDGER_QUIET_MS;
          void this.batcher.release(scope, decision.reservationId, { linger: true }).catch(() => undefined);
          return;
        }
        const allowance: Allowance = {
          id: decision.reservationId,
          askedAt: ask.askedAt,
          askedAtWall: ask.askedAtWall,
          grantedNanoUsd: decision.amountNanoUsd,
          remainingNanoUsd: decision.amountNanoUsd,
          inFlight: 0,
          lastClaimAt: this.now(),
          retiring: false,
          givenBack: false,
          queue: [],
          sending: false,
          timer: undefined,
        };
        if (lane.current) this.retire(scope, lane, lane.current);
        lane.current = allowance;
        this.watch(scope, lane, allowance);
      },
      () => {
        lane.asking = false;
        lane.quietUntil = this.now() + this.quietAfterRefusalMs;
      },
    );
  }

  private async claim(
    scope: string,
    lane: ScopeAllowances,
    allowance: Allowance,
    request: ReservationRequest,
  ): Promise<ReservationDecision> {
    allowance.remainingNanoUsd -= request.amountNanoUsd;
    allowance.inFlight += 1;
    allowance.lastClaimAt = this.now();
    // Ask for the next one while this one still serves, so a steady stream of calls never waits for a grant.
    const halfGone = this.sinceAsked(allowance) > this.claimWindowMs / 2;
    if ((halfGone || allowance.remainingNanoUsd < request.amountNanoUsd) && this.mayAsk(lane)) {
      const ask = this.ask(lane, request);
      const [asked] = this.batcher.reserveAll(scope, [ask.request]);
      this.whenAnswered(scope, lane, ask, asked!);
    }
    try {
      await new Promise<void>((resolve, reject) => {
        allowance.queue.push({ request, resolve, reject });
        void this.flush(scope, allowance);
      });
    } catch {
      // The claim may or may not be in the ledger; asking with the same id settles which, and sends nothing twice.
      return this.batcher.reserve(scope, request);
    } finally {
      allowance.inFlight -= 1;
      this.giveBackIfDone(scope, allowance);
    }
    // Recorded too late to be sure it came before the lease's end: the ledger decides, by the same id.
    if (this.sinceAsked(allowance) >= this.claimWindowMs) return this.batcher.reserve(scope, request);
    return {
      granted: true,
      reservationId: request.reservationId,
      amountNanoUsd: request.amountNanoUsd,
      leaseExpiresAt: Date.now() + request.leaseMs,
    };
  }

  /** One claim signal in flight per allowance; claims taken meanwhile travel together in the next. */
  private async flush(scope: string, allowance: Allowance): Promise<void> {
    if (allowance.sending) return;
    allowance.sending = true;
    try {
      while (allowance.queue.length > 0) {
        // A signal carries as many messages as an update may: the ledger drops a larger one whole.
        const batch = allowance.queue.splice(0, MAX_RESERVATIONS_PER_UPDATE);
        // Settles waiting for company ride along: back-to-back calls then cost the ledger one message each.
        const closes = this.batcher.takeWaitingCloses(scope, MAX_RESERVATIONS_PER_UPDATE - batch.length);
        try {
          await this.sendClaims(scope, {
            allowanceId: allowance.id,
            claims: batch.map((claim) => claim.request),
            ...(closes ? { settlements: [...closes.settlements], releases: [...closes.releases] } : {}),
          });
          closes?.sent();
          for (const claim of batch) claim.resolve();
        } catch (error) {
          closes?.failed();
          for (const claim of batch) claim.reject(error);
        }
      }
    } finally {
      allowance.sending = false;
    }
  }

  /** Retires the allowance at the end of its claim window, or once idle. */
  private watch(scope: string, lane: ScopeAllowances, allowance: Allowance): void {
    const windowEnd = allowance.askedAt + this.claimWindowMs;
    const idleEnd = allowance.lastClaimAt + this.idleMs;
    const at = Math.min(windowEnd, idleEnd);
    if (this.now() >= at) {
      this.retire(scope, lane, allowance);
      return;
    }
    allowance.timer = setTimeout(() => this.watch(scope, lane, allowance), at - this.now() + 1);
    allowance.timer.unref();
  }

  private retire(scope: string, lane: ScopeAllowances, allowance: Allowance): void {
    if (lane.current === allowance) lane.current = undefined;
    if (allowance.retiring) return;
    allowance.retiring = true;
    clearTimeout(allowance.timer);
    const used = allowance.grantedNanoUsd - allowance.remainingNanoUsd;
    if (used * 4 >= allowance.grantedNanoUsd * 3)
      lane.multiple = Math.min(this.maxMultiple, lane.multiple * 2);
    else if (used * 4 < allowance.grantedNanoUsd) lane.multiple = Math.max(MIN_MULTIPLE, lane.multiple / 2);
    this.giveBackIfDone(scope, allowance);
  }

  /**
   * Gives back what a retired allowance still holds once every claim on it has been answered: the release then
   * follows every claim in the ledger's history, so none can come after it. (One whose send failed may; the ledger
   * finds the allowance gone and the claim holds nothing, and its attempt asked the usual way.)
   */
  private giveBackIfDone(scope: string, allowance: Allowance): void {
    if (!allowance.retiring || allowance.inFlight > 0 || allowance.givenBack) return;
    allowance.givenBack = true;
    void this.batcher.release(scope, allowance.id, { linger: true }).catch(() => undefined);
  }
}

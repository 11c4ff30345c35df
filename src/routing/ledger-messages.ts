// What callers exchange with a ledger: reservation requests and decisions, settlements. Plain JSON types.
import type { NanoUsd } from './money';

export interface ReservationRequest {
  /** Deterministic in the caller, so a retried request never reserves twice. */
  readonly reservationId: string;
  readonly amountNanoUsd: NanoUsd;
  readonly holder: string;
  /** How long the reservation may stay open before it is charged in full, in milliseconds. */
  readonly leaseMs: number;
  /**
   * Asks for an allowance: a block of the scope a worker grants its own attempts' reservations from, each told
   * to the ledger by a claim ({@link AllowanceClaims}) before its request is sent. Granted only while it leaves
   * at least as much for everyone else; its lease is short, and what no claim took goes back when it ends.
   */
  readonly allowance?: true;
}

export interface ReservationGrant {
  readonly granted: true;
  readonly reservationId: string;
  readonly amountNanoUsd: NanoUsd;
  readonly leaseExpiresAt: number;
  /** Set when the grant is an allowance: a ledger that does not know allowances grants a plain reservation. */
  readonly allowance?: true;
}

/** `over_budget`: it does not fit; `closed`: the id was already settled, released or expired. */
export interface ReservationRefusal {
  readonly granted: false;
  readonly reservationId: string;
  readonly reason: 'over_budget' | 'closed';
  readonly requestedNanoUsd: NanoUsd;
  readonly limitNanoUsd: NanoUsd | null;
  /** Limit − spent − reserved; negative after an overdraft; null when unlimited. */
  readonly availableNanoUsd: NanoUsd | null;
  readonly spentNanoUsd: NanoUsd;
  readonly reservedNanoUsd: NanoUsd;
  readonly overdraftNanoUsd: NanoUsd;
}

export type ReservationDecision = ReservationGrant | ReservationRefusal;

export interface Settlement {
  readonly reservationId: string;
  /** The real cost when known; ignored when unknown (the full reservation is charged). */
  readonly costNanoUsd: NanoUsd;
  readonly costKnown: boolean;
}

/** What a settle or release did: `duplicate` and `unmatched` change nothing. */
export type CloseEffect =
  | { readonly kind: 'closed'; readonly chargedNanoUsd: NanoUsd; readonly overdraftNanoUsd: NanoUsd }
  | { readonly kind: 'duplicate' }
  | { readonly kind: 'unmatched' };

/**
 * Reservations a worker granted from one of its allowances, each moved by the ledger from the allowance to a
 * reservation of its own (same id, holder and lease as a reserve would make), then settled as any other.
 */
export interface AllowanceClaims {
  readonly allowanceId: string;
  readonly claims: readonly ReservationRequest[];
  /** The worker's settles and releases that were waiting to go: applied first, as in a batch of messages. */
  readonly settlements?: readonly Settlement[];
  readonly releases?: readonly { readonly reservationId: string }[];
}

/**
 * What the ledger did with one claim: `claimed`; or void, holding nothing: the allowance is gone (its lease
 * ended, or it was given back), the id is already open or closed, or the claim is more than the allowance holds.
 */
export type ClaimEffect = 'claimed' | 'no_allowance' | 'duplicate' | 'exceeds_allowance';

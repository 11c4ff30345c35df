// What callers exchange with a ledger: reservation requests and decisions, settlements. Plain JSON types.
import type { NanoUsd } from './money';

export interface ReservationRequest {
  /** Deterministic in the caller, so a retried request never reserves twice. */
  readonly reservationId: string;
  readonly amountNanoUsd: NanoUsd;
  readonly holder: string;
  /** How long the reservation may stay open before it is charged in full, in milliseconds. */
  readonly leaseMs: number;
}

export interface ReservationGrant {
  readonly granted: true;
  readonly reservationId: string;
  readonly amountNanoUsd: NanoUsd;
  readonly leaseExpiresAt: number;
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

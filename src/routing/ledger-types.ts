// The budget ledger's state as plain JSON: limit, spend, open and closed reservations, totals. Pure types.
import type { LedgerPeriod } from '../config/budget';
import type { WindowRule } from './ledger-window';
import type { NanoUsd } from './money';

/** How many closed reservation ids a ledger remembers to recognise a repeated or late message. */
export const CLOSED_RESERVATIONS_REMEMBERED = 1000;

/** A budget limit. `limitNanoUsd: null` is unlimited: spend is tracked and nothing is refused. */
export interface LedgerLimit {
  readonly limitNanoUsd: NanoUsd | null;
  readonly period: LedgerPeriod | null;
}

/** Who set the limit in force: nobody yet, the config file's `budgets`, or an operator (`ledgers.setLimit`). */
export const LimitSource = { none: 'none', config: 'config', operator: 'operator' } as const;
export type LimitSource = (typeof LimitSource)[keyof typeof LimitSource];

export interface OpenReservation {
  readonly amountNanoUsd: NanoUsd;
  /** Workflow id of the routed call holding it, for operators. */
  readonly holder: string;
  readonly reservedAt: number;
  /** After this instant the reservation is charged in full and closed (or, on a ledger that reconciles, looked up). */
  readonly leaseExpiresAt: number;
  /**
   * Its lease ran out without a settle, and the ledger is asking the holder's own record what the attempt cost
   * (a settle lost with its worker). Still held in full until that answer comes.
   */
  readonly reconciling?: true;
  /** A worker's allowance: `amountNanoUsd` is what its claims have not taken yet. */
  readonly allowance?: true;
  /**
   * When an allowance's lease was seen to end: what is left goes back in a later activation, never the one that
   * saw it, so every claim that reached the ledger before the lease ended has been applied first.
   */
  readonly expiringSince?: number;
}

export const ClosedOutcome = { settled: 'settled', released: 'released', expired: 'expired' } as const;
export type ClosedOutcome = (typeof ClosedOutcome)[keyof typeof ClosedOutcome];

export interface ClosedReservation {
  readonly reservationId: string;
  readonly outcome: ClosedOutcome;
  readonly chargedNanoUsd: NanoUsd;
  /**
   * What was granted, for a reservation that was open when it closed (absent for an id closed before its
   * reservation arrived, and in states from before this field): a later settle may top the charge up to it.
   */
  readonly amountNanoUsd?: NanoUsd;
}

/** Lifetime counts, kept across windows and continue-as-new. */
export interface LedgerTotals {
  readonly granted: number;
  readonly settled: number;
  readonly released: number;
  readonly expired: number;
  /** Settlements whose real cost exceeded their reservation. */
  readonly overdrafts: number;
}

export interface LedgerWindowSummary {
  readonly startedAt: number;
  readonly endedAt: number;
  readonly spentNanoUsd: NanoUsd;
  readonly overdraftNanoUsd: NanoUsd;
}

/**
 * What a ledger does with a lease that ran out: `charge` it in full at once (ledgers from before reconciling, and
 * states that do not say), or `reconcile` it: keep holding it and ask the holder's own record what the attempt
 * cost, charging in full only when no record says.
 */
export type LeaseExpiry = 'charge' | 'reconcile';

export interface LedgerState extends LedgerLimit, WindowRule {
  readonly scope: string;
  /** @default 'charge' */
  readonly leaseExpiry?: LeaseExpiry;
  readonly limitSource: LimitSource;
  /** The config declaration last applied; a declaration is applied again only when it changes. */
  readonly configLimit: LedgerLimit | null;
  readonly windowStartedAt: number;
  /** Charged in this window: settled costs, unknown costs at their full reservation, expired leases. */
  readonly spentNanoUsd: NanoUsd;
  /** Part of `spentNanoUsd` charged beyond the reservations it settled (providers exceeding the bound). */
  readonly overdraftNanoUsd: NanoUsd;
  readonly reservations: Readonly<Record<string, OpenReservation>>;
  /** Most recently closed reservations, oldest first, at most {@link CLOSED_RESERVATIONS_REMEMBERED}. */
  readonly closed: readonly ClosedReservation[];
  readonly totals: LedgerTotals;
  readonly previousWindow: LedgerWindowSummary | null;
}

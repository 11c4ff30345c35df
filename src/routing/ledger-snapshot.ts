// The readable view of a budget ledger (query, client, CLI): totals, open reservations, window. Pure.
import { nanoToUsd, type NanoUsd } from './money';
import {
  availableNanoUsd,
  reservedNanoUsd,
  type LedgerState,
  type LedgerTotals,
  type LimitSource,
} from './ledger-state';
import type { LedgerPeriod } from '../config/budget';
import { nextWindowStartAt } from './ledger-window';

export interface OpenReservationView {
  readonly reservationId: string;
  readonly amountNanoUsd: NanoUsd;
  readonly holder: string;
  /** ISO time. */
  readonly reservedAt: string;
  /** ISO time after which it is charged in full (an allowance: given back). */
  readonly leaseExpiresAt: string;
  /** A worker's allowance: the amount is what its claims have not taken yet. */
  readonly allowance?: true;
}

/** Every amount is integer nano-USD (authoritative); the `Usd` fields are the same numbers for reading. */
export interface LedgerSnapshot {
  readonly scope: string;
  /** null: unlimited (tracked, never refused). */
  readonly limitNanoUsd: NanoUsd | null;
  readonly limitUsd: number | null;
  readonly period: LedgerPeriod | null;
  readonly limitSource: LimitSource;
  /** ISO start of the current window (of the ledger's life when it has no period). */
  readonly windowStartedAt: string;
  /** ISO time the spend resets, null without a period. */
  readonly nextResetAt: string | null;
  readonly spentNanoUsd: NanoUsd;
  readonly spentUsd: number;
  readonly reservedNanoUsd: NanoUsd;
  readonly reservedUsd: number;
  /** Limit − spent − reserved: negative after an overdraft; null when unlimited. */
  readonly availableNanoUsd: NanoUsd | null;
  readonly availableUsd: number | null;
  readonly overdraftNanoUsd: NanoUsd;
  readonly overdraftUsd: number;
  readonly openReservations: readonly OpenReservationView[];
  readonly totals: LedgerTotals;
  readonly previousWindow: {
    readonly startedAt: string;
    readonly endedAt: string;
    readonly spentNanoUsd: NanoUsd;
    readonly overdraftNanoUsd: NanoUsd;
  } | null;
}

const iso = (at: number) => new Date(at).toISOString();

export function ledgerSnapshot(state: LedgerState): LedgerSnapshot {
  const reserved = reservedNanoUsd(state);
  const available = availableNanoUsd(state);
  const nextReset = nextWindowStartAt(state, state.windowStartedAt);
  return {
    scope: state.scope,
    limitNanoUsd: state.limitNanoUsd,
    limitUsd: state.limitNanoUsd === null ? null : nanoToUsd(state.limitNanoUsd),
    period: state.period,
    limitSource: state.limitSource,
    windowStartedAt: iso(state.windowStartedAt),
    nextResetAt: nextReset === null ? null : iso(nextReset),
    spentNanoUsd: state.spentNanoUsd,
    spentUsd: nanoToUsd(state.spentNanoUsd),
    reservedNanoUsd: reserved,
    reservedUsd: nanoToUsd(reserved),
    availableNanoUsd: available,
    availableUsd: available === null ? null : nanoToUsd(available),
    overdraftNanoUsd: state.overdraftNanoUsd,
    overdraftUsd: nanoToUsd(state.overdraftNanoUsd),
    openReservations: Object.entries(state.reservations)
      .map(([reservationId, reservation]) => ({
        reservationId,
        amountNanoUsd: reservation.amountNanoUsd,
        holder: reservation.holder,
        reservedAt: iso(reservation.reservedAt),
        leaseExpiresAt: iso(reservation.leaseExpiresAt),
        ...(reservation.allowance ? { allowance: true as const } : {}),
      }))
      .sort(
        (a, b) => a.reservedAt.localeCompare(b.reservedAt) || a.reservationId.localeCompare(b.reservationId),
      ),
    totals: state.totals,
    previousWindow: state.previousWindow && {
      startedAt: iso(state.previousWindow.startedAt),
      endedAt: iso(state.previousWindow.endedAt),
      spentNanoUsd: state.previousWindow.spentNanoUsd,
      overdraftNanoUsd: state.previousWindow.overdraftNanoUsd,
    },
  };
}

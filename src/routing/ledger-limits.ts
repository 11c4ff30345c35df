// Where a ledger's limit comes from: an operator's change, or the config's declaration when it changes. Pure.
import { advanceClock, LimitSource, type LedgerLimit, type LedgerState } from './ledger-state';
import type { Budget, BudgetLimitChange, LedgerPeriod } from '../config/budget';
import { windowStartAt } from './ledger-window';
import { usdToNanoFloor, type NanoUsd } from './money';

/** A change of limit; `period` undefined keeps the current one. */
export interface LimitChange {
  readonly limitNanoUsd: NanoUsd | null;
  readonly period?: LedgerPeriod | null;
}

function changeLimit(state: LedgerState, change: LimitChange, now: number): LedgerState {
  const current = advanceClock(state, now);
  const period = change.period === undefined ? current.period : change.period;
  // A new period keeps the spend so far: it becomes the spend of the window that contains now.
  const windowStartedAt =
    period === current.period
      ? current.windowStartedAt
      : windowStartAt({ period, windowMs: current.windowMs }, now);
  return { ...current, limitNanoUsd: change.limitNanoUsd, period, windowStartedAt };
}

/** An operator's limit: in force until the config's declaration for the scope changes. */
export function setOperatorLimit(state: LedgerState, change: LimitChange, now: number): LedgerState {
  return { ...changeLimit(state, change, now), limitSource: LimitSource.operator };
}

/**
 * The config's declaration for the scope, applied when the ledger has not seen this declaration yet: so an
 * edited config takes effect, and an unchanged one never undoes an operator's later change.
 */
export function applyConfigLimit(state: LedgerState, declared: LedgerLimit, now: number): LedgerState {
  const seen = state.configLimit;
  if (seen && seen.limitNanoUsd === declared.limitNanoUsd && seen.period === declared.period) return state;
  return {
    ...changeLimit(state, declared, now),
    limitSource: LimitSource.config,
    configLimit: { ...declared },
  };
}

/** The ledger limit a config budget declares (limits round down: never more than was written). */
export function budgetLimit(budget: Budget): LedgerLimit {
  return { limitNanoUsd: usdToNanoFloor(budget.limitUsd), period: budget.period ?? null };
}

export function limitChange(change: BudgetLimitChange): LimitChange {
  return {
    limitNanoUsd: change.limitUsd === null ? null : usdToNanoFloor(change.limitUsd),
    ...(change.period !== undefined ? { period: change.period } : {}),
  };
}

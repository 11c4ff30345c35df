// Budget schemas: scope names, config budgets and limit changes, in USD at the edges. Workflow-safe (zod only).
import { z } from 'zod';
import { strictObject } from './strict-object';

/** How often a budget's spend starts again from zero. Stable strings: they are kept in ledger state. */
export const LedgerPeriod = { day: 'day', month: 'month' } as const;
export type LedgerPeriod = (typeof LedgerPeriod)[keyof typeof LedgerPeriod];

export const LEDGER_PERIODS: readonly LedgerPeriod[] = Object.values(LedgerPeriod);

/** Largest limit a ledger can hold: integer nano-USD stay exact up to about 9.007 million USD. */
export const MAX_LIMIT_USD = 9_000_000;

/** A budget scope: a team, a project, a schedule. It names the ledger workflow, so it is kept short. */
export const BudgetScopeSchema = z.string().min(1, 'a budget scope needs a name').max(200);

const PeriodSchema = z.enum(LEDGER_PERIODS as [LedgerPeriod, ...LedgerPeriod[]]);
const LimitUsdSchema = z.number().min(0).max(MAX_LIMIT_USD);

/** A budget declared in the config file for one scope. */
export const BudgetSchema = strictObject({
  /** Spending limit in USD (per window when `period` is set); rounded down to whole nano-USD. */
  limitUsd: LimitUsdSchema,
  /** Window after which spend starts again from zero, in UTC. @default none: the limit covers the ledger's life */
  period: PeriodSchema.optional(),
});
export type Budget = z.infer<typeof BudgetSchema>;

/** An operator's change of a scope's limit (`ledgers.setLimit`, `switchyard ledger <scope> --limit-usd`). */
export const BudgetLimitChangeSchema = strictObject({
  /** Spending limit in USD, rounded down to whole nano-USD; `null` makes the scope unlimited (still tracked). */
  limitUsd: LimitUsdSchema.nullable(),
  /** Window after which spend resets (UTC); `null` removes it. @default the ledger's current period */
  period: PeriodSchema.nullable().optional(),
});
export type BudgetLimitChange = z.infer<typeof BudgetLimitChangeSchema>;

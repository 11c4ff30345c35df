// Budget windows: where a day or month window starts and ends, in UTC epoch milliseconds. Pure.

import { LedgerPeriod } from '../config/budget';

/** A window rule: a calendar period, or a fixed length in milliseconds (tests), or none (spend never resets). */
export interface WindowRule {
  readonly period: LedgerPeriod | null;
  /** Fixed window length in milliseconds, aligned to the Unix epoch; overrides `period` when set. */
  readonly windowMs: number | null;
}

export function hasWindow(rule: WindowRule): boolean {
  return rule.windowMs !== null || rule.period !== null;
}

/** Start of the window that contains `at`; `at` itself when the rule has no window. */
export function windowStartAt(rule: WindowRule, at: number): number {
  if (rule.windowMs !== null) return Math.floor(at / rule.windowMs) * rule.windowMs;
  const date = new Date(at);
  if (rule.period === LedgerPeriod.day)
    return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
  if (rule.period === LedgerPeriod.month) return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
  return at;
}

/** Start of the window after the one starting at `windowStart`; null when the rule has no window. */
export function nextWindowStartAt(rule: WindowRule, windowStart: number): number | null {
  if (rule.windowMs !== null) return windowStart + rule.windowMs;
  const date = new Date(windowStart);
  if (rule.period === LedgerPeriod.day) {
    return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() + 1);
  }
  if (rule.period === LedgerPeriod.month) return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
  return null;
}

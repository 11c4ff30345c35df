// Ready-made visibility queries over Switchyard's search attributes, for the UI, the CLI and code.
import {
  fallbacksAttribute,
  outcomeAttribute,
  routeAttribute,
  servedByAttribute,
} from '../workflows/search-attributes';

/** A value quoted for a visibility query: single quotes, with `\` and `'` escaped. */
export function quoteQueryValue(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** Calls on `route` that needed a fallback (a failover or a retry), e.g. `SwitchyardRoute = 'support' AND SwitchyardFallbacks > 0`. */
export function callsWithFallbackQuery(route: string): string {
  return `${routeAttribute.name} = ${quoteQueryValue(route)} AND ${fallbacksAttribute.name} > 0`;
}

/** Calls served by any model of `provider`, e.g. `SwitchyardServedBy STARTS_WITH 'anthropic/'`. */
export function callsServedByProviderQuery(provider: string): string {
  return `${servedByAttribute.name} STARTS_WITH ${quoteQueryValue(`${provider}/`)}`;
}

/**
 * Calls on `route` that failed, whatever the failure type (`SwitchyardOutcome` names it), e.g.
 * `SwitchyardRoute = 'support' AND ExecutionStatus = 'Failed'`.
 */
export function failedCallsQuery(route: string): string {
  return `${routeAttribute.name} = ${quoteQueryValue(route)} AND ExecutionStatus = 'Failed'`;
}

/** Calls on `route` that ended with one failure type, e.g. `SwitchyardOutcome = 'BudgetExceeded'`. */
export function callsWithOutcomeQuery(route: string, outcome: string): string {
  return `${routeAttribute.name} = ${quoteQueryValue(route)} AND ${outcomeAttribute.name} = ${quoteQueryValue(outcome)}`;
}

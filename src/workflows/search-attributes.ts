// Search attribute keys Switchyard sets on routed calls. Workflow-safe; also read by the engine.
// @temporalio/common is the workflow SDK's own deterministic core; the key helpers live only there.
import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';

export const routeAttribute = defineSearchAttributeKey('SwitchyardRoute', SearchAttributeType.KEYWORD);
/** `succeeded`, `running`, or the failure type (`AllTargetsFailed`, `BudgetExceeded`, …). */
export const outcomeAttribute = defineSearchAttributeKey('SwitchyardOutcome', SearchAttributeType.KEYWORD);
/** `provider/model` of the target that served the call. */
export const servedByAttribute = defineSearchAttributeKey('SwitchyardServedBy', SearchAttributeType.KEYWORD);
/** Attempts made after the first one (failovers and retries). */
export const fallbacksAttribute = defineSearchAttributeKey('SwitchyardFallbacks', SearchAttributeType.INT);
export const costUsdAttribute = defineSearchAttributeKey('SwitchyardCostUsd', SearchAttributeType.DOUBLE);

export const SWITCHYARD_SEARCH_ATTRIBUTES = [
  routeAttribute,
  outcomeAttribute,
  servedByAttribute,
  fallbacksAttribute,
  costUsdAttribute,
] as const;

/**
 * The search attributes a routed call is started with: `running`, and the route when the starter knows its
 * name. Set at start they cost the call no command; the call upserts only what is missing.
 */
export function routedCallStartAttributes(routeName: string | undefined): SearchAttributePair[] {
  return [
    ...(routeName !== undefined ? [{ key: routeAttribute, value: routeName }] : []),
    { key: outcomeAttribute, value: 'running' },
  ];
}

/** The route name a start can know: a named route, `inline`, or the default route when the config says. */
export function startRouteName(route: unknown, defaultRoute?: string): string | undefined {
  if (typeof route === 'string') return route;
  if (route !== undefined) return 'inline';
  return defaultRoute;
}

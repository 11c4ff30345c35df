// Search attribute keys Switchyard sets on routed calls (DESIGN §7). Workflow-safe; also read by the engine.
// @temporalio/common is the workflow SDK's own deterministic core; the key helpers live only there.
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

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

// Validating a routed call's input and planning it against a config: no Temporal client needed. Node side.
import type { Config } from '../config/config';
import { resolveRoute, RouteResolutionError } from '../config/resolve-route';
import type { ResolvedRoute } from '../config/resolved-route';
import {
  RoutedCallInputSchema,
  type RoutedCallInput,
  type RoutedCallInputValue,
} from '../config/routed-call-input';
import { firstIssueField, prettifyIssues } from '../config/strict-object';
import { planCall, type CallPlan } from '../routing/call-plan';
import { InvalidRequestError } from './invalid-request-error';

/** Validates a call's input and names the first bad field, before anything starts. */
export function validateCallInput(input: RoutedCallInputValue): RoutedCallInput {
  const parsed = RoutedCallInputSchema.safeParse(input);
  if (!parsed.success) {
    throw new InvalidRequestError(
      `Invalid routed call:\n${prettifyIssues(parsed.error)}`,
      firstIssueField(parsed.error),
    );
  }
  return parsed.data;
}

/** The call's route resolved against `config`; an unknown route, provider or model names its field. */
function resolveCallRoute(config: Config, call: RoutedCallInput): ResolvedRoute {
  try {
    return resolveRoute(config, call.route);
  } catch (error) {
    if (error instanceof RouteResolutionError) throw new InvalidRequestError(error.message, error.field);
    throw error;
  }
}

/**
 * What a call would do now, planned against `config` (its order by the route's strategy or the call's `prefer`,
 * its `require` applied); needs no Temporal connection, and has no worker's measurements.
 */
export function planRoutedCall(config: Config, input: RoutedCallInputValue): CallPlan {
  const validated = validateCallInput(input);
  return planCall(resolveCallRoute(config, validated), validated.request, {
    ...(validated.deadlineMs !== undefined ? { deadlineMs: validated.deadlineMs } : {}),
    ...(validated.prefer ? { prefer: validated.prefer } : {}),
    ...(validated.require ? { require: validated.require } : {}),
  });
}

/**
 * Refuses, before anything starts, a call the workers would refuse for its route: one they cannot resolve,
 * or one without a budget scope on a route that requires it. The workers check again against their config.
 */
export function checkCallAgainstConfig(config: Config, call: RoutedCallInput): void {
  const route = resolveCallRoute(config, call);
  if (route.requireBudget && call.budget === undefined) {
    throw new InvalidRequestError(
      `route ${route.name} requires a budget scope and the call names none`,
      'budget',
    );
  }
}

// The routed-call workflows: validate the input, resolve the route once, then walk it. Workflow code.
import { ApplicationFailure, proxyLocalActivities } from '@temporalio/workflow';
import type { SwitchyardActivities } from '../../activities';
import type { ResolvedRoute } from '../../config/resolved-route';
import { firstIssueField, prettifyIssues } from '../../config/strict-object';
import {
  RoutedCallInputSchema,
  type RoutedCallInput,
  type RoutedCallInputValue,
} from '../../config/routed-call-input';
import { readsObservations } from '../../routing/candidate-order';
import { RoutedCallFailureType, type RoutedCallResult } from '../../routing/routing-record';
import { admissionOf, breakerCaller } from '../breaker/breaker-gate';
import { FirstGenerationStep } from './first-generation-step';
import { LeanStep } from './lean-step';
import { AttemptWatch } from './attempt-watch';
import { cachedCall, cacheTtlMs } from './response-cache-step';
import { RouteWalk } from './route-walk';

// Resolution is an idempotent look-up and a hint-only admission changes nothing, so local activities
// (at-least-once) suit them; their results are recorded.
const { resolveRoute, beginCall } = proxyLocalActivities<SwitchyardActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3 },
});

function invalidRequest(message: string, field: string): ApplicationFailure {
  return ApplicationFailure.create({
    type: RoutedCallFailureType.invalidRequest,
    message,
    nonRetryable: true,
    details: [{ field }],
  });
}

function parseInput(rawInput: RoutedCallInputValue): RoutedCallInput {
  const parsed = RoutedCallInputSchema.safeParse(rawInput);
  if (parsed.success) return parsed.data;
  throw invalidRequest(
    `invalid routed-call input:\n${prettifyIssues(parsed.error)}`,
    firstIssueField(parsed.error),
  );
}

function checkBudgetRequired(route: ResolvedRoute, input: RoutedCallInput): void {
  if (route.requireBudget && input.budget === undefined) {
    throw invalidRequest(`route ${route.name} requires a budget scope and the call names none`, 'budget');
  }
}

/**
 * A routed call: one local activity resolves the route and, from the worker's view, admits the first target;
 * then each attempt is one activity that reserves its bound, calls the provider, charges the ledger and tells
 * the breaker by itself. A healthy call is two workflow tasks, one local activity and one activity.
 */
export async function routedCallV2Workflow(rawInput: RoutedCallInputValue): Promise<RoutedCallResult> {
  const input = parseInput(rawInput);
  const firstCaller = breakerCaller(1);
  // Asked for only when the call (or an inline route) orders by measurements: other calls' input is unchanged.
  const observe = readsObservations(
    typeof input.route === 'object' ? { strategy: input.route.strategy } : undefined,
    input,
  );
  const begun = await beginCall({
    route: input.route,
    hasBudget: input.budget !== undefined,
    firstCaller,
    ...(observe ? { observe } : {}),
  });
  checkBudgetRequired(begun.route, input);
  const first = begun.route.targets[0];
  // Made for targets[0]: the step uses it only when the call's first attempt goes to targets[0].
  const firstAdmission =
    begun.firstAdmission && first
      ? admissionOf(begun.firstAdmission, begun.route, first, firstCaller)
      : undefined;
  const observed = {
    ...(begun.observations ? { observations: begun.observations } : {}),
    ...(begun.draw !== undefined ? { draw: begun.draw } : {}),
  };
  // A call that waited behind the response cache walks without the admission made at its start: a breaker may
  // have opened, or a Retry-After paused the target, while it waited.
  const watch = new AttemptWatch();
  // Only a call with the response cache on takes this path: every other call's commands stay as they were.
  const cacheTtl = cacheTtlMs(begun.route, input);
  // A cached call's answer is stored before the call ends, and its record says so: its caller waits for both.
  const walkInput = cacheTtl === undefined ? input : withoutAnswerHandoff(input);
  const walk = (waited = false) =>
    new RouteWalk(
      begun.route,
      walkInput,
      new LeanStep(waited ? undefined : firstAdmission, watch),
      observed,
    ).run();
  try {
    return await (cacheTtl === undefined ? walk() : cachedCall(begun.route, input, cacheTtl, walk));
  } finally {
    watch.end();
  }
}

/**
 * The routed call as first written, kept so that calls started under it finish and replay unchanged: route,
 * admission and reservation each a local activity, and the settle a signal the call waits for. Clients start
 * {@link routedCallV2Workflow}; a new workflow type rather than a `patched()` branch, because a patch costs
 * every call a marker and a `TemporalChangeVersion` search-attribute upsert (docs/architecture.md, "The path of one call").
 */
export async function routedCallWorkflow(rawInput: RoutedCallInputValue): Promise<RoutedCallResult> {
  const input = parseInput(rawInput);
  const route = await resolveRoute(input.route);
  checkBudgetRequired(route, input);
  return new RouteWalk(route, input, new FirstGenerationStep()).run();
}

/** The input without the relay's `answer`: a streamed call keeps its relay for the pieces, a JSON call drops it. */
function withoutAnswerHandoff(input: RoutedCallInput): RoutedCallInput {
  if (!input.relay?.answer) return input;
  const { relay, ...rest } = input;
  const { answer: _answer, ...pieces } = relay;
  return input.stream ? { ...rest, relay: pieces } : rest;
}

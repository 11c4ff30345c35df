// The routed-call workflow: validates its input, resolves the route once, then walks it. Workflow code.
import { ApplicationFailure, proxyLocalActivities } from '@temporalio/workflow';
import { z } from 'zod';
import type { SwitchyardActivities } from '../../activities';
import {
  RoutedCallInputSchema,
  type RoutedCallInput,
  type RoutedCallInputValue,
} from '../../config/routed-call-input';
import { RoutedCallFailureType, type RoutedCallResult } from '../../routing/routing-record';
import { RouteWalk } from './route-walk';

// Resolution is an idempotent look-up, so a local activity (at-least-once) suits it; its result is recorded.
const { resolveRoute } = proxyLocalActivities<SwitchyardActivities>({
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
  const field = parsed.error.issues[0]?.path.join('.') ?? '';
  throw invalidRequest(`invalid routed-call input:\n${z.prettifyError(parsed.error)}`, field);
}

export async function routedCallWorkflow(rawInput: RoutedCallInputValue): Promise<RoutedCallResult> {
  const input = parseInput(rawInput);
  const route = await resolveRoute(input.route);
  if (route.requireBudget && input.budget === undefined) {
    throw invalidRequest(`route ${route.name} requires a budget scope and the call names none`, 'budget');
  }
  return new RouteWalk(route, input).run();
}

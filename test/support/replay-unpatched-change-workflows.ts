// Test-only workflow bundle: routedCallWorkflow changed the wrong way (a new timer before the walk, no patched()),
// which the replay test must catch against the recorded histories. Workflow code.
import { sleep } from '@temporalio/workflow';
import type { RoutedCallInputValue } from '../../src/config/routed-call-input';
import type { RoutedCallResult } from '../../src/routing/routing-record';
import {
  routedCallV2Workflow as currentRoutedCallV2Workflow,
  routedCallWorkflow as currentRoutedCallWorkflow,
} from '../../src/workflows/routed-call/routed-call-workflow';

/** Same workflow type names as the real ones, so recorded routed-call histories replay against it. */
export async function routedCallWorkflow(input: RoutedCallInputValue): Promise<RoutedCallResult> {
  // A new first command: every history recorded before this change starts with the route look-up instead.
  await sleep('1 second');
  return currentRoutedCallWorkflow(input);
}

/** The same change to the second routed-call workflow. */
export async function routedCallV2Workflow(input: RoutedCallInputValue): Promise<RoutedCallResult> {
  // A new first command: every history recorded before this change starts with the route look-up instead.
  await sleep('1 second');
  return currentRoutedCallV2Workflow(input);
}

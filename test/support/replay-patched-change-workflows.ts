// Test-only workflow bundle: the same change to routedCallWorkflow made the right way, behind patched(), so
// histories recorded before it still replay. Workflow code.
import { patched, sleep } from '@temporalio/workflow';
import type { RoutedCallInputValue } from '../../src/config/routed-call-input';
import type { RoutedCallResult } from '../../src/routing/routing-record';
import {
  routedCallV2Workflow as currentRoutedCallV2Workflow,
  routedCallWorkflow as currentRoutedCallWorkflow,
} from '../../src/workflows/routed-call/routed-call-workflow';

/** Same workflow type names as the real ones, so recorded routed-call histories replay against it. */
export async function routedCallWorkflow(input: RoutedCallInputValue): Promise<RoutedCallResult> {
  // patched() is false while replaying a history recorded without the change, so old runs skip the new timer.
  if (patched('replay-guard-example-timer-before-walk')) await sleep('1 second');
  return currentRoutedCallWorkflow(input);
}

/** The same change to the second routed-call workflow. */
export async function routedCallV2Workflow(input: RoutedCallInputValue): Promise<RoutedCallResult> {
  // patched() is false while replaying a history recorded without the change, so old runs skip the new timer.
  if (patched('replay-guard-example-timer-before-walk')) await sleep('1 second');
  return currentRoutedCallV2Workflow(input);
}

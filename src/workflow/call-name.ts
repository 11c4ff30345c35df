// The workflow id of each routed call a user's workflow makes: from its idempotency key, its name, or its place. Workflow code.
import { SwitchyardError } from '../config/branded-error';
import { workflowInfo } from '@temporalio/workflow';
import { childCallWorkflowId, routedCallWorkflowId } from '../workflows/definitions';

/** Misuse of `routedCall` that only a code change can fix; it fails the workflow task, so a fixed worker resumes. */
export class RoutedCallUsageError extends SwitchyardError {
  static override readonly brand: string = 'switchyard.RoutedCallUsageError';

  override readonly name = 'RoutedCallUsageError';
}

// The calls this run has made without a name. Workflow modules are evaluated once per workflow run in the
// worker's sandbox, and again on each replay, so the count restarts with the run and replays the same way.
let unnamedCalls = 0;

export interface CallNaming {
  /** A name for the call, unique within the parent workflow id (across continue-as-new). */
  readonly callId?: string | undefined;
  /** Makes the call the client's call of the same key: `switchyard-call-<key>`. */
  readonly idempotencyKey?: string | undefined;
}

/**
 * The child workflow id of the next call: `switchyard-call-<idempotencyKey>`, else `<parent id>-<callId>`, else
 * `<parent id>-call-<n>` for the n-th unnamed call of this run. The same code asks for the same ids when the
 * parent is replayed, reset or retried, which is how a call is never made (or charged) twice.
 */
export function nextCallWorkflowId(naming: CallNaming): string {
  if (naming.idempotencyKey !== undefined) {
    if (!naming.idempotencyKey)
      throw new RoutedCallUsageError('routedCall: idempotencyKey must not be empty');
    return routedCallWorkflowId(naming.idempotencyKey);
  }
  const info = workflowInfo();
  if (naming.callId !== undefined) {
    if (!naming.callId) throw new RoutedCallUsageError('routedCall: callId must not be empty');
    return childCallWorkflowId(info.workflowId, naming.callId);
  }
  // A run continued from another one (continue-as-new, cron) counts from 1 again: its first unnamed call would
  // meet the previous run's first call and get its answer. A retried run (attempt > 1) must meet them.
  if (info.continuedFromExecutionRunId !== undefined && info.attempt === 1) {
    throw new RoutedCallUsageError(
      `routedCall: workflow ${info.workflowId} continued from an earlier run, so its calls need names: pass ` +
        '`callId` (unique across the runs, e.g. `turn-${turn}` with the turn carried over) or `idempotencyKey`',
    );
  }
  unnamedCalls += 1;
  return childCallWorkflowId(info.workflowId, `call-${unnamedCalls}`);
}

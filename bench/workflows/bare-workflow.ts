// The engine's floor: a workflow that runs one provider-attempt activity and returns. Workflow code (bench bundle).
import { proxyActivities } from '@temporalio/workflow';
import type { AttemptInput, AttemptSuccess } from 'switchyard/testing';
import type { BareActivities } from '../bare-activities';

// The same options a routed call gives its attempt: one try, a heartbeat timeout, a start-to-close bound.
const { callProvider } = proxyActivities<BareActivities>({
  startToCloseTimeout: '31 seconds',
  heartbeatTimeout: '5 seconds',
  retry: { maximumAttempts: 1 },
});

export async function bareWorkflow(input: AttemptInput): Promise<AttemptSuccess> {
  return callProvider(input);
}

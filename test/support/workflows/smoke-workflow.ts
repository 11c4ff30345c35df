// A one-activity workflow for the engine smoke test. Workflow code.
import { proxyActivities } from '@temporalio/workflow';

const { greet } = proxyActivities<{ greet(name: string): Promise<string> }>({
  startToCloseTimeout: '10 seconds',
});

export async function smokeWorkflow(name: string): Promise<string> {
  return greet(name);
}

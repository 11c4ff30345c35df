// A breaker no worker answers for: its target is skipped as if open, and the record says the breaker was unreachable.
import { WorkflowNotFoundError } from '@temporalio/client';
import { breakerWorkflowId } from '../../src/workflows/breaker/definitions';
import { startHarness, type Harness } from '../support/harness';
import { uniqueName } from '../support/temporal';

const request = { messages: [{ role: 'user' as const, content: 'Say hello' }], maxOutputTokens: 64 };
const twoTargets = {
  targets: [
    { provider: 'openai', model: 'gpt-primary', timeoutMs: 5_000 },
    { provider: 'anthropic', model: 'claude-primary', timeoutMs: 5_000 },
  ],
};

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => harness?.close());

test('an unreachable breaker skips its target as circuit_open, labelled unreachable, and the next target serves', async () => {
  const workflowId = breakerWorkflowId('openai', 'gpt-primary');
  const record = await harness.withWorker(async (switchyard) => {
    // The entity runs on a task queue nobody polls: its state query is never answered, as on a wedged worker.
    await harness.temporal.client.workflow.start('breakerWorkflow', {
      taskQueue: uniqueName('nobody-polls'),
      workflowId,
      args: [{ provider: 'openai', model: 'gpt-primary' }],
    });
    try {
      return (await switchyard.generate({ route: twoTargets, request })).record;
    } finally {
      await harness.temporal.client.workflow
        .getHandle(workflowId)
        .terminate('test isolation')
        .catch((error: unknown) => {
          if (!(error instanceof WorkflowNotFoundError)) throw error;
        });
    }
  });
  expect(record.attempts[0]).toMatchObject({
    outcome: 'skipped',
    skipReason: 'circuit_open',
    message: 'breaker unreachable: treated as open',
  });
  expect(record.servedBy?.model).toBe('claude-primary');
  expect(harness.fake.requestsFor('gpt-primary')).toHaveLength(0);
});

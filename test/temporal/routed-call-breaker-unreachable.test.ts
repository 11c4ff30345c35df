// A breaker no worker answers for: its target is skipped as if open, and the record says the breaker was unreachable.
import { WorkflowNotFoundError } from '@temporalio/client';
import { breakerWorkflowId } from '../../src/workflows/breaker/definitions';
import { eventually } from '../support/eventually';
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

test('a counted failure reaches a breaker that stopped answering during the attempt, and the call fails over', async () => {
  const provider = 'openai';
  // Its own breaker: the test before wedged gpt-primary's.
  const model = 'gpt-secondary';
  const workflowId = breakerWorkflowId(provider, model);
  const route = {
    targets: [
      { provider, model, timeoutMs: 10_000 },
      { provider: 'anthropic', model: 'claude-primary', timeoutMs: 5_000 },
    ],
  };
  // Longer than the worker's 1 s view of the breaker: the failure's report finds that view expired.
  harness.fake.script(model, { kind: 'error', error: 'server_error', delayMs: 2_500 });
  const { record, signals } = await harness.withWorker(async (switchyard) => {
    const call = switchyard.generate({ route, request });
    await eventually(
      'the attempt at the provider',
      async () => harness.fake.requestsFor(model).length,
      (count) => count > 0,
      { intervalMs: 50 },
    );
    // The entity moves to a task queue nobody polls: reads of it go unanswered, signals still land.
    await harness.temporal.client.workflow
      .getHandle(workflowId)
      .terminate('wedge it')
      .catch((error: unknown) => {
        // A breaker nobody had to change yet was never started.
        if (!(error instanceof WorkflowNotFoundError)) throw error;
      });
    await harness.temporal.client.workflow.start('breakerWorkflow', {
      taskQueue: uniqueName('nobody-polls'),
      workflowId,
      args: [{ provider, model }],
    });
    try {
      const { record } = await call;
      const history = await harness.temporal.client.workflow.getHandle(workflowId).fetchHistory();
      const signals = (history.events ?? []).filter(
        (event) => event.workflowExecutionSignaledEventAttributes,
      );
      return {
        record,
        signals: signals.map((event) => event.workflowExecutionSignaledEventAttributes!.signalName),
      };
    } finally {
      await harness.temporal.client.workflow.getHandle(workflowId).terminate('test isolation');
    }
  });
  expect(record.attempts[0]).toMatchObject({ model, failureClass: 'unavailable' });
  expect(record.servedBy?.model).toBe('claude-primary');
  // The failure was told to the breaker although no view of it could be read.
  expect(signals).toContain('outcome');
});

// `switchyard/workflow` on a real dev server: a user's own workflows (the sample agent among them) make routed
// calls as child workflows, and a replayed, reset or retried parent never calls or charges twice.
import {
  WorkflowFailedError,
  type Client,
  type WorkflowHandleWithFirstExecutionRunId,
} from '@temporalio/client';
import { ApplicationFailure, defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { Worker, type WorkflowBundlePath } from '@temporalio/worker';
import { createAgentActivities } from '../../examples/agent/activities';
import type { SupportAgentResult } from '../../examples/agent/workflows';
import type { SwitchyardClient } from '../../src/client/switchyard-client';
import { nanoToUsd } from '../../src/routing/money';
import { ROUTED_CALL_WORKFLOW_TYPE } from '../../src/workflows/definitions';
import { startHarness, type Harness } from '../support/harness';
import { eventually } from '../support/eventually';
import { sharedWorkflowBundle } from '../support/shared-bundles';
import { uniqueName } from '../support/temporal';
import type {
  callsWorkflow,
  catchingWorkflow,
  continuingWorkflow,
  failsOnceAfterCallWorkflow,
  supportAgentWorkflow,
} from '../support/user-workflows';
import { settledLedger } from '../support/settled-ledger';

const EventType = temporal.api.enums.v1.EventType;
const ORDERS = { 'A-1001': { status: 'shipped', eta: '2026-11-20' } } as const;
const QUESTION = 'Where is my order A-1001?';
const FINAL_ANSWER = 'Order A-1001 has shipped and arrives on 2026-11-20.';
const request = { messages: [{ role: 'user' as const, content: 'Say hello' }], maxOutputTokens: 64 };

let harness: Harness;
let userBundle: WorkflowBundlePath;
beforeAll(async () => {
  [harness, userBundle] = await Promise.all([startHarness(), sharedWorkflowBundle('user-workflows')]);
});
afterAll(async () => harness?.close());
beforeEach(() => harness.fake.reset());

interface Stack {
  readonly switchyard: SwitchyardClient;
  readonly client: Client;
  /** Switchyard's task queue (its worker polls it). */
  readonly switchyardTaskQueue: string;
  /** The user's own task queue: their workflows and their tool activity. */
  readonly userTaskQueue: string;
}

/** Runs `body` while a Switchyard worker and a worker of the user's own workflows poll their queues. */
function withStack<T>(body: (stack: Stack) => Promise<T>): Promise<T> {
  return harness.withWorker(async (switchyard, switchyardTaskQueue) => {
    const userTaskQueue = uniqueName('user-workflows');
    const worker = await Worker.create({
      connection: harness.temporal.nativeConnection,
      taskQueue: userTaskQueue,
      workflowBundle: userBundle,
      activities: createAgentActivities(ORDERS),
    });
    const client = harness.temporal.client;
    return worker.runUntil(body({ switchyard, client, switchyardTaskQueue, userTaskQueue }));
  });
}

/** The model asks for the tool first, then answers. */
function scriptAgentTurns(): void {
  harness.fake.script('gpt-primary', [
    { kind: 'answer', toolCalls: [{ name: 'look_up_order', arguments: { orderId: 'A-1001' } }] },
    { kind: 'answer', text: FINAL_ANSWER },
  ]);
}

async function startAgent(
  stack: Stack,
  budget: string,
): Promise<WorkflowHandleWithFirstExecutionRunId<typeof supportAgentWorkflow>> {
  return stack.client.workflow.start<typeof supportAgentWorkflow>('supportAgentWorkflow', {
    taskQueue: stack.userTaskQueue,
    workflowId: uniqueName('support-agent'),
    args: [{ question: QUESTION, budget, switchyardTaskQueue: stack.switchyardTaskQueue }],
  });
}

async function eventTypes(client: Client, workflowId: string): Promise<string[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).map((event) => EventType[event.eventType ?? 0] ?? String(event.eventType));
}

/** The search attributes a workflow was started with (its first event), decoded. */
async function startingSearchAttributes(
  client: Client,
  workflowId: string,
): Promise<Record<string, unknown>> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const fields =
    history.events?.[0]?.workflowExecutionStartedEventAttributes?.searchAttributes?.indexedFields;
  return Object.fromEntries(
    Object.entries(fields ?? {}).map(([key, payload]) => [key, defaultPayloadConverter.fromPayload(payload)]),
  );
}

/** Resets `workflowId` to its first workflow task: everything after it runs again in a new run. */
async function resetToFirstTask(client: Client, workflowId: string): Promise<string> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const firstTask = history.events?.find(
    (event) => event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
  );
  const { runId } = await client.workflowService.resetWorkflowExecution({
    namespace: client.options.namespace,
    workflowExecution: { workflowId },
    workflowTaskFinishEventId: firstTask!.eventId,
    reason: 'test: run the agent again from its start',
    requestId: uniqueName('reset'),
  });
  return runId!;
}

test('the sample agent: a model call, its tool, a second call; each call a child with its own record', async () => {
  scriptAgentTurns();
  const budget = uniqueName('agent-run');
  await withStack(async (stack) => {
    await stack.switchyard.ledgers.setLimit(budget, { limitUsd: 0.05 });
    const agent = await startAgent(stack, budget);
    const result = await agent.result();

    expect(result).toMatchObject({ answer: FINAL_ANSWER, turns: 2, toolCalls: 1 });
    expect(result.callWorkflowIds).toEqual([`${agent.workflowId}-turn-1`, `${agent.workflowId}-turn-2`]);
    // What the provider received: the tool defined in both requests; in the second, the model's own tool call
    // sent back as an assistant turn, then the activity's output as that call's tool result.
    const requests = harness.fake.requestsFor('gpt-primary');
    expect(requests).toHaveLength(2);
    type WireMessage = {
      role: string;
      content?: unknown;
      tool_call_id?: string;
      tool_calls?: { id: string; function: { name: string; arguments: string } }[];
    };
    const bodies = requests.map(
      (logged) => logged.body as { tools?: { function: { name: string } }[]; messages: WireMessage[] },
    );
    for (const body of bodies)
      expect(body.tools?.map((tool) => tool.function.name)).toEqual(['look_up_order']);
    const [, userTurn, assistantTurn, toolTurn, ...rest] = bodies[1]!.messages;
    expect(userTurn).toMatchObject({ role: 'user', content: QUESTION });
    expect(assistantTurn?.role).toBe('assistant');
    expect(assistantTurn?.tool_calls).toHaveLength(1);
    const call = assistantTurn!.tool_calls![0]!;
    expect(call.function.name).toBe('look_up_order');
    expect(JSON.parse(call.function.arguments)).toEqual({ orderId: 'A-1001' });
    expect(toolTurn).toMatchObject({ role: 'tool', tool_call_id: call.id });
    expect(JSON.parse(toolTurn!.content as string)).toEqual({ orderId: 'A-1001', ...ORDERS['A-1001'] });
    expect(rest).toEqual([]);

    // Each call is a routed call like any other: the parent is the agent, the UI fields are set from the start.
    for (const callId of result.callWorkflowIds) {
      const call = await stack.client.workflow.getHandle(callId).describe();
      expect(call.type).toBe(ROUTED_CALL_WORKFLOW_TYPE);
      expect(call.taskQueue).toBe(stack.switchyardTaskQueue);
      expect(call.parentExecution?.workflowId).toBe(agent.workflowId);
      expect(await call.staticSummary()).toBe(
        `route support · ${callId.endsWith('1') ? 1 : 3} msg · max 256 out · from ${agent.workflowId}`,
      );
      expect(await startingSearchAttributes(stack.client, callId)).toMatchObject({
        SwitchyardRoute: 'support',
        SwitchyardOutcome: 'running',
      });
      expect(await stack.switchyard.inspect(callId)).toMatchObject({ status: 'COMPLETED' });
    }
    // Both calls were charged to the run's scope, and only what their records say.
    const records = await Promise.all(result.callWorkflowIds.map((id) => stack.switchyard.inspect(id)));
    const recorded = records.reduce((sum, inspection) => sum + inspection.record!.totalCostNanoUsd, 0);
    const ledger = await settledLedger(stack.switchyard.ledgers, budget);
    expect(ledger?.spentNanoUsd).toBe(recorded);
    expect(ledger?.openReservations).toHaveLength(0);
    expect(result.costUsd).toBeCloseTo(nanoToUsd(recorded), 9);
  });
});

test("a call's failure reaches the parent typed: uncaught it fails the parent with the call's type and record", async () => {
  const budget = uniqueName('agent-broke');
  await withStack(async (stack) => {
    await stack.switchyard.ledgers.setLimit(budget, { limitUsd: 0.000_001 });
    const agent = await startAgent(stack, budget);
    const failure = await agent.result().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    const cause = (failure as WorkflowFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect((cause as ApplicationFailure).type).toBe('BudgetExceeded');
    const record = (cause as ApplicationFailure).details?.[0] as { workflowId: string; attempts: unknown[] };
    expect(record.workflowId).toBe(`${agent.workflowId}-turn-1`);
    expect(record.attempts.length).toBeGreaterThan(0);
    expect(harness.fake.requests).toHaveLength(0);
  });
});

test('workflow code catches RoutedCallFailure: an ApplicationFailure with the type, field and call id', async () => {
  const caught = await withStack((stack) =>
    stack.client.workflow.execute<typeof catchingWorkflow>('catchingWorkflow', {
      taskQueue: stack.userTaskQueue,
      workflowId: uniqueName('catching'),
      args: [
        {
          call: { route: 'support', request: { messages: [], maxOutputTokens: 64 } },
          switchyardTaskQueue: stack.switchyardTaskQueue,
        },
      ],
    }),
  );
  expect(caught).toMatchObject({
    caught: 'RoutedCallFailure',
    isApplicationFailure: true,
    name: 'RoutedCallFailure',
    type: 'InvalidRequest',
    field: 'request.messages',
  });
  expect(caught.workflowId).toMatch(/^catching-.*-call-1$/);
  expect(harness.fake.requests).toHaveLength(0);
});

test('unnamed calls get the parent id and their place; a key makes the call the client’s call of that key', async () => {
  await withStack(async (stack) => {
    const key = uniqueName('ticket');
    harness.fake.script('gpt-primary', { kind: 'answer', text: 'from the client' });
    const first = await stack.switchyard.generate({ route: 'support', request }, { idempotencyKey: key });
    const workflowId = uniqueName('calls');
    const probe = await stack.client.workflow.execute<typeof callsWorkflow>('callsWorkflow', {
      taskQueue: stack.userTaskQueue,
      workflowId,
      args: [
        { call: { route: 'support', request }, switchyardTaskQueue: stack.switchyardTaskQueue, calls: 2 },
      ],
    });
    expect(probe.callWorkflowIds).toEqual([`${workflowId}-call-1`, `${workflowId}-call-2`]);

    const keyed = await stack.client.workflow.execute<typeof callsWorkflow>('callsWorkflow', {
      taskQueue: stack.userTaskQueue,
      workflowId: uniqueName('keyed'),
      args: [
        {
          call: { route: 'support', request },
          switchyardTaskQueue: stack.switchyardTaskQueue,
          idempotencyKey: key,
        },
      ],
    });
    // The client's call, read back by the worker: no second request, the same answer and record.
    expect(keyed.callWorkflowIds).toEqual([first.record.workflowId]);
    expect(keyed.texts).toEqual(['from the client']);
    expect(harness.fake.requests).toHaveLength(3);
  });
});

test('a retried parent asks for its call again and gets the first answer: one request, one charge', async () => {
  const budget = uniqueName('retried');
  harness.fake.script('gpt-primary', { kind: 'answer', text: 'answered once' });
  await withStack(async (stack) => {
    const result = await stack.client.workflow.execute<typeof failsOnceAfterCallWorkflow>(
      'failsOnceAfterCallWorkflow',
      {
        taskQueue: stack.userTaskQueue,
        workflowId: uniqueName('retried'),
        retry: { maximumAttempts: 2, initialInterval: '100 milliseconds' },
        args: [
          { call: { route: 'support', request, budget }, switchyardTaskQueue: stack.switchyardTaskQueue },
        ],
      },
    );
    expect(result.texts).toEqual(['answered once']);
    expect(harness.fake.requests).toHaveLength(1);
    const call = await stack.switchyard.inspect(result.callWorkflowIds[0]!);
    expect((await settledLedger(stack.switchyard.ledgers, budget)).spentNanoUsd).toBe(
      call.record!.totalCostNanoUsd,
    );
  });
});

test('a continued-as-new run does not meet the previous run’s calls: unnamed calls are refused, named ones run', async () => {
  await withStack(async (stack) => {
    const unnamed = await stack.client.workflow.start<typeof continuingWorkflow>('continuingWorkflow', {
      taskQueue: stack.userTaskQueue,
      workflowId: uniqueName('continuing'),
      args: [{ call: { route: 'support', request }, switchyardTaskQueue: stack.switchyardTaskQueue }],
    });
    // The second run's first call would be `<id>-call-1` again: its workflow task fails, naming the fix.
    const failedTask = await eventually(
      'the continued run to refuse its unnamed call',
      async () => {
        const history = await stack.client.workflow.getHandle(unnamed.workflowId).fetchHistory();
        return history.events?.find((event) => event.workflowTaskFailedEventAttributes)
          ?.workflowTaskFailedEventAttributes;
      },
      (attributes) => attributes !== undefined,
    );
    expect(failedTask?.failure?.message).toMatch(
      /continued from an earlier run, so its calls need names: pass `callId`/,
    );
    await unnamed.terminate('test: refused as expected');
    expect(harness.fake.requests).toHaveLength(1);

    const workflowId = uniqueName('continuing-named');
    const named = await stack.client.workflow.execute<typeof continuingWorkflow>('continuingWorkflow', {
      taskQueue: stack.userTaskQueue,
      workflowId,
      args: [
        {
          call: { route: 'support', request },
          switchyardTaskQueue: stack.switchyardTaskQueue,
          callId: 'step',
        },
      ],
    });
    expect(named.callWorkflowIds).toEqual([`${workflowId}-step-2`]);
    expect(harness.fake.requests).toHaveLength(3);
  });
});

test('a parent reset to its start runs again without calling or charging again, and its history replays', async () => {
  scriptAgentTurns();
  const budget = uniqueName('agent-reset');
  await withStack(async (stack) => {
    await stack.switchyard.ledgers.setLimit(budget, { limitUsd: 0.05 });
    const agent = await startAgent(stack, budget);
    const first: SupportAgentResult = await agent.result();
    const spent = (await settledLedger(stack.switchyard.ledgers, budget)).spentNanoUsd;

    const newRunId = await resetToFirstTask(stack.client, agent.workflowId);
    const again = await stack.client.workflow
      .getHandle<typeof supportAgentWorkflow>(agent.workflowId, newRunId)
      .result();

    // The reset run asked for the same two calls, found them, and read their answers through Switchyard's worker.
    expect(again).toEqual(first);
    expect(harness.fake.requests).toHaveLength(2);
    expect((await settledLedger(stack.switchyard.ledgers, budget)).spentNanoUsd).toBe(spent);
    const events = await eventTypes(stack.client, agent.workflowId);
    expect(events.filter((type) => type === 'EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_FAILED')).toHaveLength(
      2,
    );
    expect(events).not.toContain('EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED');

    // Both runs replay against today's code: the calls are in history, so replay never asks for them again.
    for (const runId of [agent.firstExecutionRunId, newRunId]) {
      const history = await stack.client.workflow.getHandle(agent.workflowId, runId).fetchHistory();
      await Worker.runReplayHistory({ workflowBundle: userBundle }, history, agent.workflowId);
    }
  });
});

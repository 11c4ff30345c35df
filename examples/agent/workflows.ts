// A sample agent written as your own workflow: a tool loop of routed model calls and tool activities. Workflow code.
import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import {
  assistantMessageOf,
  routedCall,
  type Message,
  type Tool,
  type ToolCall,
  type ToolMessage,
} from 'switchyard/workflow';
import type { AgentActivities, OrderLookup } from './activities';

// The tool runs on the agent's own worker; a failed lookup is retried like any activity.
const { lookUpOrder } = proxyActivities<AgentActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3 },
});

const LOOK_UP_ORDER: Tool = {
  name: 'look_up_order',
  description: "Returns an order's shipping status.",
  parameters: {
    type: 'object',
    properties: { orderId: { type: 'string' } },
    required: ['orderId'],
  },
};

export interface SupportAgentInput {
  readonly question: string;
  /** Switchyard route of every model call. @default 'support' */
  readonly route?: string;
  /** Budget scope every call of this run is charged to; the starter sets its limit. */
  readonly budget: string;
  /** Model calls before the agent gives up. @default 4 */
  readonly maxTurns?: number;
  /** Task queue of the Switchyard workers. @default 'switchyard' */
  readonly switchyardTaskQueue?: string;
}

export interface SupportAgentResult {
  readonly answer: string;
  /** Model calls made, one per turn. */
  readonly turns: number;
  readonly toolCalls: number;
  /** What the model calls cost in all, in USD (from their routing records). */
  readonly costUsd: number;
  /** Workflow id of each model call, for `switchyard show <id>`. */
  readonly callWorkflowIds: readonly string[];
}

type ToolResult = ToolMessage['content'][number];

/** The tool's arguments as the model wrote them (JSON text), or undefined when they are not an order lookup. */
function parseArguments(text: string): OrderLookup | undefined {
  try {
    const parsed = JSON.parse(text) as Partial<OrderLookup> | null;
    return typeof parsed?.orderId === 'string' ? { orderId: parsed.orderId } : undefined;
  } catch {
    return undefined;
  }
}

/** Runs one tool call as an activity; a call the agent cannot run goes back to the model as an error result. */
async function runTool(call: ToolCall): Promise<ToolResult> {
  const lookup = call.name === LOOK_UP_ORDER.name ? parseArguments(call.arguments) : undefined;
  // A model's mistake goes back to the model; a throw here would fail the workflow task instead.
  if (lookup === undefined) {
    const content = `cannot run ${call.name} with ${call.arguments}`;
    return { type: 'tool_result', callId: call.id, name: call.name, content, isError: true };
  }
  const output = await lookUpOrder(lookup);
  return { type: 'tool_result', callId: call.id, name: call.name, content: JSON.stringify(output) };
}

export async function supportAgentWorkflow(input: SupportAgentInput): Promise<SupportAgentResult> {
  const messages: Message[] = [{ role: 'user', content: input.question }];
  const callWorkflowIds: string[] = [];
  let toolCalls = 0;
  let costUsd = 0;
  const maxTurns = input.maxTurns ?? 4;
  for (let turn = 1; turn <= maxTurns; turn += 1) {
    // One routed call per turn: failover, breakers and the budget apply as to any call. A BudgetExceeded (or any
    // other) RoutedCallFailure ends this run with the call's own type and record unless caught here.
    const { answer, record } = await routedCall(
      {
        route: input.route ?? 'support',
        budget: input.budget,
        request: {
          system: 'You answer questions about orders. Use look_up_order; reply in one sentence.',
          messages,
          tools: [LOOK_UP_ORDER],
          maxOutputTokens: 256,
        },
      },
      // Named by turn: the ids stay unique if this workflow ever continues-as-new with its turn carried over.
      {
        callId: `turn-${turn}`,
        ...(input.switchyardTaskQueue ? { taskQueue: input.switchyardTaskQueue } : {}),
      },
    );
    callWorkflowIds.push(record.workflowId);
    costUsd += record.totalCostUsd;
    if (answer.toolCalls.length === 0) {
      return { answer: answer.text, turns: turn, toolCalls, costUsd, callWorkflowIds };
    }
    // The answer goes back as it came (text, tool calls, and any reasoning, which only its own provider kind is
    // sent), then one tool message holding a result for every call, matched by the call's id.
    messages.push(assistantMessageOf(answer));
    toolCalls += answer.toolCalls.length;
    messages.push({ role: 'tool', content: await Promise.all(answer.toolCalls.map(runTool)) });
  }
  throw ApplicationFailure.create({
    type: 'AgentGaveUp',
    message: `no final answer after ${maxTurns} model calls`,
    nonRetryable: true,
  });
}

// A user's own workflows that call Switchyard through `switchyard/workflow`: the sample agent and small probes. Workflow code.
import { ApplicationFailure, continueAsNew, isCancellation, workflowInfo } from '@temporalio/workflow';
import { routedCall, RoutedCallFailure, type RoutedCallInput } from 'switchyard/workflow';

export { supportAgentWorkflow } from '../../examples/agent/workflows';

export interface ProbeInput {
  readonly call: RoutedCallInput;
  readonly switchyardTaskQueue: string;
  /** Calls to make one after another. @default 1 */
  readonly calls?: number;
  readonly callId?: string;
  readonly idempotencyKey?: string;
}

export interface ProbeResult {
  readonly texts: string[];
  readonly callWorkflowIds: string[];
}

/** Makes `calls` routed calls one after another; returns their answers and ids. */
export async function callsWorkflow(input: ProbeInput): Promise<ProbeResult> {
  const texts: string[] = [];
  const callWorkflowIds: string[] = [];
  for (let index = 0; index < (input.calls ?? 1); index += 1) {
    const { answer, record } = await routedCall(input.call, {
      taskQueue: input.switchyardTaskQueue,
      ...(input.callId !== undefined ? { callId: input.callId } : {}),
      ...(input.idempotencyKey !== undefined ? { idempotencyKey: input.idempotencyKey } : {}),
    });
    texts.push(answer.text);
    callWorkflowIds.push(record.workflowId);
  }
  return { texts, callWorkflowIds };
}

/** What a caught RoutedCallFailure says about itself, as plain JSON. */
export interface CaughtFailure {
  readonly caught: 'RoutedCallFailure' | 'other';
  readonly isApplicationFailure: boolean;
  readonly name: string;
  readonly type?: string;
  readonly field?: string;
  readonly workflowId?: string;
  readonly attempts?: number;
}

/** Makes one call and catches its failure, to show what workflow code can read from it. */
export async function catchingWorkflow(input: ProbeInput): Promise<CaughtFailure> {
  try {
    await routedCall(input.call, { taskQueue: input.switchyardTaskQueue });
    throw ApplicationFailure.create({ message: 'the call was expected to fail', nonRetryable: true });
  } catch (error) {
    if (error instanceof RoutedCallFailure) {
      return {
        caught: 'RoutedCallFailure',
        isApplicationFailure: error instanceof ApplicationFailure,
        name: error.name,
        type: error.type,
        ...(error.field !== undefined ? { field: error.field } : {}),
        workflowId: error.workflowId,
        ...(error.record ? { attempts: error.record.attempts.length } : {}),
      };
    }
    if (isCancellation(error)) throw error;
    return {
      caught: 'other',
      isApplicationFailure: error instanceof ApplicationFailure,
      name: String(error),
    };
  }
}

/** Makes one call, then fails its first attempt: a retried run asks for the same call again. */
export async function failsOnceAfterCallWorkflow(input: ProbeInput): Promise<ProbeResult> {
  const result = await callsWorkflow(input);
  if (workflowInfo().attempt === 1) {
    throw ApplicationFailure.create({ message: 'fails once, after its call, to be retried' });
  }
  return result;
}

/** One call per run, then continue-as-new once: the second run's unnamed call must not meet the first's. */
export async function continuingWorkflow(
  input: ProbeInput & { readonly run?: number },
): Promise<ProbeResult> {
  const run = input.run ?? 1;
  const result = await callsWorkflow(
    input.callId !== undefined ? { ...input, callId: `${input.callId}-${run}` } : input,
  );
  if (run === 1) await continueAsNew<typeof continuingWorkflow>({ ...input, run: 2 });
  return result;
}

// Scenarios of `npm run histories:record` for attempts that never reached an answer the caller got: one lost by a
// stalled worker before it sent, and an answer that arrived after the caller cancelled. Script side.
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { setTimeout as delay } from 'node:timers/promises';
import { ROUTED_CALL_WORKFLOW_TYPE } from '../src/workflows/definitions';
import { runIdOf, type Recorded, type ScenarioContext } from './record-histories-scenario';

/** The model whose first attempt the recorder's worker holds past its heartbeat timeout. */
export const STALLED_MODEL = 'lost-primary';
/** The model that answers after the caller cancelled. */
export const LATE_MODEL = 'late-primary';
/** The lost route's heartbeat timeout, in milliseconds; the stall outlasts it. */
export const LOST_HEARTBEAT_TIMEOUT_MS = 1_000;
const STALL_MS = 3_000;

const request = { messages: [{ role: 'user' as const, content: 'Say hello' }], maxOutputTokens: 64 };
const answer = { kind: 'answer' as const, text: 'hello', usage: { inputTokens: 10, outputTokens: 5 } };

/**
 * Holds the first attempt on {@link STALLED_MODEL} before it runs, as an overloaded worker would: the server gives
 * it up by heartbeat timeout before it records its sending mark.
 */
export function stallFirstLostAttempt(): ActivityInterceptorsFactory {
  let stalled = false;
  return (context) => ({
    inbound: {
      async execute(input, next) {
        const [attempt] = input.args as [{ target?: { model?: string } } | undefined];
        if (
          context.info.activityType === 'attemptTarget' &&
          attempt?.target?.model === STALLED_MODEL &&
          !stalled
        ) {
          stalled = true;
          await delay(STALL_MS);
        }
        return next(input);
      },
    },
  });
}

/** (h) An attempt lost before it sent (`worker_lost`): asked again of the same target, which answers. */
export async function workerLost({ switchyard, client, fake }: ScenarioContext): Promise<Recorded[]> {
  fake.scriptAlways(STALLED_MODEL, answer);
  const handle = await switchyard.start({ route: 'lost', request, budget: 'recorder-failover' });
  const result = await handle.result();
  const classes = result.record.attempts.map((attempt) => attempt.failureClass ?? attempt.outcome);
  if (classes.join() !== 'worker_lost,succeeded')
    throw new Error(`worker-lost scenario went another way: ${classes.join()}`);
  // Let the stalled attempt wake, find itself given up and give its reservation back before recording.
  await delay(STALL_MS);
  return [
    {
      name: 'routed-call-v2-worker-lost',
      scenario:
        'routed call: the first attempt is lost by a stalled worker before it sent (worker_lost, free), asked again, served',
      workflowType: ROUTED_CALL_WORKFLOW_TYPE,
      workflowId: handle.workflowId,
      runId: await runIdOf(client, handle.workflowId),
    },
  ];
}

/** (i) The caller cancels while its attempt is at the provider, which answers before the attempt hears: Cancelled. */
export async function lateAnswerAfterCancel({
  switchyard,
  client,
  fake,
}: ScenarioContext): Promise<Recorded[]> {
  fake.script(LATE_MODEL, { ...answer, delayMs: 1_500 });
  const handle = await switchyard.start({ route: 'late', request });
  while (fake.counters(LATE_MODEL).requests === 0) await delay(50);
  await handle.cancel();
  const failure = await handle.result().then(
    () => undefined,
    (error: unknown) => error as { type?: string },
  );
  if (failure?.type !== 'Cancelled')
    throw new Error(`late-answer scenario went another way: ${String(failure?.type)}`);
  return [
    {
      name: 'routed-call-v2-late-answer-after-cancel',
      scenario:
        'routed call cancelled while its provider answered: the answer is charged, the call ends Cancelled',
      workflowType: ROUTED_CALL_WORKFLOW_TYPE,
      workflowId: handle.workflowId,
      runId: await runIdOf(client, handle.workflowId),
    },
  ];
}

// Scenarios of `npm run histories:record` for attempts that were lost or cancelled, or watched their call for a
// cancellation: one lost by a stalled worker before it sent, an answer that arrived after the caller cancelled, and
// the attempt watch (`switchyardAttemptWatch`) answered `{ cancelled: true }` and `{ cancelled: false }`. Script side.
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { setTimeout as delay } from 'node:timers/promises';
import {
  attemptWatchUpdate,
  ROUTED_CALL_WORKFLOW_TYPE,
  type AttemptWatchAnswer,
} from '../src/workflows/definitions';
import { runIdOf, type Recorded, type ScenarioContext } from './record-histories-scenario';

/** The model whose first attempt the recorder's worker holds past its heartbeat timeout. */
export const STALLED_MODEL = 'lost-primary';
/** The model that answers after the caller cancelled. */
export const LATE_MODEL = 'late-primary';
/** The lost route's heartbeat timeout, in milliseconds; the stall outlasts it. */
export const LOST_HEARTBEAT_TIMEOUT_MS = 1_000;
/** The model that answers too slowly for the caller, who cancels while the attempt watches its call. */
export const WATCH_CANCEL_MODEL = 'watch-cancel-primary';
/** The model that answers after the attempt began watching its call, which nobody cancels. */
export const WATCH_ANSWER_MODEL = 'watch-answer-primary';
/**
 * The watch-cancel route's heartbeat timeout, in milliseconds: the attempt's next heartbeat is seconds past the
 * cancel, so only its watch can stop the request before the answer.
 */
export const WATCH_HEARTBEAT_TIMEOUT_MS = 30_000;
/** The watch-cancel route's target timeout, in milliseconds: longer than the provider's slow answer. */
export const WATCH_TARGET_TIMEOUT_MS = 30_000;
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
  // The answer comes 220 ms after the request, before the attempt's watch on its call begins (250 ms) and long
  // before its next heartbeat (10 s timeout): the cancel, sent as soon as the request arrives, is on record
  // while the attempt has not heard of it.
  fake.script(LATE_MODEL, { ...answer, delayMs: 220 });
  const handle = await switchyard.start({ route: 'late', request });
  while (fake.counters(LATE_MODEL).requests === 0) await delay(5);
  await handle.cancel();
  const failure = await handle.result().then(
    () => undefined,
    (error: unknown) => error as { type?: string },
  );
  if (failure?.type !== 'Cancelled' || fake.counters(LATE_MODEL).answered !== 1)
    throw new Error(
      `late-answer scenario went another way: ${String(failure?.type)}, ` +
        `${fake.counters(LATE_MODEL).answered} answered`,
    );
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

/**
 * The answers to `switchyardAttemptWatch` in a recorded run's history: one per update accepted, in order. Throws
 * unless every accepted watch was also completed, so a recording that missed the watch is never written.
 */
async function watchAnswersOf(
  client: Client,
  workflowId: string,
  runId: string,
): Promise<AttemptWatchAnswer[]> {
  const events = (await client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
  const accepted = events.filter(
    (event) =>
      event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name ===
      attemptWatchUpdate.name,
  ).length;
  const answers = events.flatMap((event) => {
    const payload = event.workflowExecutionUpdateCompletedEventAttributes?.outcome?.success?.payloads?.[0];
    return payload ? [defaultPayloadConverter.fromPayload<AttemptWatchAnswer>(payload)] : [];
  });
  if (accepted === 0 || answers.length !== accepted)
    throw new Error(`${workflowId}: ${accepted} attempt watches accepted, ${answers.length} completed`);
  return answers;
}

/** Milliseconds the caller waits, once its request reached the provider, before it cancels: past the watch. */
const CANCEL_AFTER_MS = 1_000;

/**
 * (j) The caller cancels a call whose provider answers slowly, 1 s after its request went out: the attempt has
 * watched its call since 250 ms, the call answers the watch `cancelled` as it cancels the attempt, and the attempt
 * aborts its request long before a heartbeat would have told it.
 */
export async function cancelWatch({ switchyard, client, fake }: ScenarioContext): Promise<Recorded[]> {
  fake.script(WATCH_CANCEL_MODEL, { ...answer, delayMs: 6_000 });
  const handle = await switchyard.start({ route: 'watch-cancel', request });
  while (fake.counters(WATCH_CANCEL_MODEL).requests === 0) await delay(50);
  await delay(CANCEL_AFTER_MS);
  await handle.cancel();
  const failure = await handle.result().then(
    () => undefined,
    (error: unknown) => error as { type?: string },
  );
  const [sent] = fake.requestsFor(WATCH_CANCEL_MODEL);
  const counters = fake.counters(WATCH_CANCEL_MODEL);
  if (
    failure?.type !== 'Cancelled' ||
    counters.answered !== 0 ||
    sent === undefined ||
    fake.abandonedAt(sent.sequence) === undefined
  )
    throw new Error(
      `cancel-watch scenario went another way: ${String(failure?.type)}, ${JSON.stringify(counters)}`,
    );
  const runId = await runIdOf(client, handle.workflowId);
  const answers = await watchAnswersOf(client, handle.workflowId, runId);
  if (JSON.stringify(answers) !== JSON.stringify([{ cancelled: true }]))
    throw new Error(`cancel-watch scenario's watch was answered ${JSON.stringify(answers)}`);
  return [
    {
      name: 'routed-call-v2-cancel-watch',
      scenario:
        'routed call cancelled 1 s into a slow answer: the attempt watching its call is answered cancelled, aborts its request, the call ends Cancelled',
      workflowType: ROUTED_CALL_WORKFLOW_TYPE,
      workflowId: handle.workflowId,
      runId,
    },
  ];
}

/**
 * (k) A call whose provider answers after 1 s, nobody cancelling: the attempt watched its call from 250 ms, and the
 * call answers the watch `cancelled: false` when the attempt ends, then is served.
 */
export async function watchThenAnswer({ switchyard, client, fake }: ScenarioContext): Promise<Recorded[]> {
  fake.script(WATCH_ANSWER_MODEL, { ...answer, delayMs: 1_000 });
  const handle = await switchyard.start({ route: 'watch-answer', request });
  const { record } = await handle.result();
  if (record.servedBy?.model !== WATCH_ANSWER_MODEL || record.attempts.length !== 1)
    throw new Error(`watch-then-answer scenario went another way: ${JSON.stringify(record)}`);
  const runId = await runIdOf(client, handle.workflowId);
  const answers = await watchAnswersOf(client, handle.workflowId, runId);
  if (JSON.stringify(answers) !== JSON.stringify([{ cancelled: false }]))
    throw new Error(`watch-then-answer scenario's watch was answered ${JSON.stringify(answers)}`);
  return [
    {
      name: 'routed-call-v2-watch-then-answer',
      scenario:
        'routed call answered after 1 s: the attempt watched its call from 250 ms, the watch is answered not cancelled when the attempt ends, served',
      workflowType: ROUTED_CALL_WORKFLOW_TYPE,
      workflowId: handle.workflowId,
      runId,
    },
  ];
}

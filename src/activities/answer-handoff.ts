// Hands an attempt's whole answer to its caller (a gateway's relay, or a client in this process) once history holds it, ahead of the call's record. Worker side.
import type { Context } from '@temporalio/activity';
import { RelayReply, type RelayAnswer, type RelayTarget } from '../config/relay';
import { ACKNOWLEDGED_BEAT_GAP_MS, AcknowledgedBeats } from './acknowledged-beats';
import type { AnswerHandoff, AttemptSuccess, TargetAttemptInput } from './attempt-types';
import type { AttemptHeartbeat } from './call-provider';
import { awaitedHere, handOverHere, isInProcessRelay } from '../in-process-answers';
import { neverConnected, postToRelay, type RelayPolicy } from './relay-client';
import { relayOriginAllowed } from './relay-origins';
import type { HeartbeatReceipt, RecordHeartbeat } from './sending-mark';

/**
 * Largest answer handed over ahead of the record, as JSON characters. It rides in a heartbeat first, and the
 * server fails an activity whose heartbeat details pass its blob limit (2 MB by default; it warns from 512 KB), so
 * a larger answer comes the usual way, with the call's result.
 */
export const HANDOFF_MAX_ANSWER_CHARS = 256 * 1024;

export interface AnswerHandoffFacts {
  readonly relay: RelayTarget;
  readonly handoff: AnswerHandoff;
  /** The attempt's activity id and target, as its pieces would name them. */
  readonly attemptId: string;
  /** The call's workflow id: a caller in this process takes only its own call's answer. */
  readonly workflowId: string;
  readonly target: { readonly provider: string; readonly model: string };
  readonly success: AttemptSuccess;
  /** What this attempt costs, in nano-USD. */
  readonly costNanoUsd: number;
}

/**
 * How long the attempt waits for the gateway to take a handed answer, in milliseconds. The call's record waits
 * behind it (the activity completes after), so a gateway the workers cannot reach costs each call this at most;
 * past it the answer comes with the call's result as usual.
 */
export const HANDOFF_PUSH_TIMEOUT_MS = 1_000;

/**
 * Hands one answer over: `record` makes it part of every heartbeat of the attempt from now on and waits for the
 * server's receipt of one, then the answer goes to the relay. Resolves to whether the caller may hold the answer
 * now (the gateway took it, or its answer never came and it may have); never throws (the answer still reaches
 * the gateway with the call's result).
 */
export type HandOffAnswer = (
  facts: AnswerHandoffFacts,
  record: (answered: AttemptSuccess) => Promise<HeartbeatReceipt>,
) => Promise<boolean>;

/**
 * The order is the guarantee: the answer is in the attempt's heartbeat on the server before any caller can hold
 * it, so a worker lost after the push leaves a call that ends with this very answer (and charges what it cost)
 * instead of failing over to another model's. A heartbeat the server did not take, or a cancelled call, hands
 * nothing over.
 */
export function createAnswerHandoff(policy: RelayPolicy = {}): HandOffAnswer {
  return async (facts, record) => {
    const { relay, handoff, success } = facts;
    // A caller in this process (a client beside its worker) takes the answer directly; a worker elsewhere finds
    // nobody waiting there and hands nothing over.
    const here = isInProcessRelay(relay.url);
    if (here ? !awaitedHere(relay) : !relayOriginAllowed(relay.url, policy.allowedOrigins)) return false;
    if (JSON.stringify(success.result).length > HANDOFF_MAX_ANSWER_CHARS) return false;
    if ((await record(success)) !== 'recorded') return false;
    const push: RelayAnswer = {
      attemptId: facts.attemptId,
      target: { provider: facts.target.provider, model: facts.target.model },
      answer: success.result,
      route: handoff.route,
      fallbacks: handoff.requestsBefore,
      totalCostNanoUsd: handoff.costBeforeNanoUsd + facts.costNanoUsd,
      createdAtMs: handoff.firstStartedAtMs ?? Date.now() - success.latencyMs,
    };
    if (here) return handOverHere(relay, facts.workflowId, push);
    try {
      return (await postToRelay(relay, push, HANDOFF_PUSH_TIMEOUT_MS)) === RelayReply.accepted;
    } catch (error) {
      // A connection never made delivered nothing; a timeout or a reset may have.
      return !neverConnected(error);
    }
  };
}

/**
 * The heartbeat channel of an attempt that may hand its answer over (its call's relay takes answers): its beats go
 * one at a time through the client, so that no older beat can land after the one holding the answer (see
 * acknowledged-beats.ts). Undefined for any other attempt, whose beats take the worker's own path.
 */
export function handoffBeats(
  input: TargetAttemptInput,
  context: Context,
  recordHeartbeat: RecordHeartbeat,
): AcknowledgedBeats | undefined {
  if (input.handoff === undefined || input.relay?.answer !== true) return undefined;
  const { taskToken } = context.info;
  return new AcknowledgedBeats({
    record: (details) => recordHeartbeat(taskToken, details),
    onNews: (details) => context.heartbeat(details),
    minGapMs: ACKNOWLEDGED_BEAT_GAP_MS,
  });
}

/**
 * Hands the attempt's answer to its call's relay when the call asks for it (the heartbeat is on the acknowledged
 * channel then): resolves to whether the caller may hold it now; false at once when the call does not ask.
 */
export async function handOverIfAsked(
  handOffAnswer: HandOffAnswer,
  attempt: { input: TargetAttemptInput; context: Context; heartbeat: AttemptHeartbeat },
  success: AttemptSuccess,
  costNanoUsd: number,
): Promise<boolean> {
  const { input, context, heartbeat } = attempt;
  if (!input.handoff || !input.relay?.answer) return false;
  return handOffAnswer(
    {
      relay: input.relay,
      handoff: input.handoff,
      attemptId: context.info.activityId,
      workflowId: context.info.workflowExecution?.workflowId ?? '',
      target: input.target,
      success,
      costNanoUsd,
    },
    (answered) => heartbeat.answered(answered),
  );
}

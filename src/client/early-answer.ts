// A routed call's answer as soon as an attempt has it, ahead of the call's record, for a client whose own process
// runs a worker of its task queue. Node side.
import { randomBytes } from 'node:crypto';
import { awaitAnswer, inProcessRelayUrl } from '../in-process-answers';
import type { RoutedCallInputValue } from '../config/routed-call-input';
import type { RelayAnswer } from '../config/relay';
import type { RoutedCallResult } from '../routing/routing-record';
import { InvalidRequestError } from './errors';

/** A routed call's answer, with what its response needs of the call; the record follows with `result()`. */
export interface RoutedCallAnswer {
  readonly workflowId: string;
  readonly answer: RoutedCallResult['answer'];
  /** The target whose answer this is, as the route names it; absent for an answer from the response cache. */
  readonly servedBy?: { readonly provider: string; readonly model: string };
  /** Requests of the call before the one that answered. */
  readonly fallbacks: number;
  /** What the call cost, in nano-USD (the record's `totalCostNanoUsd`). */
  readonly totalCostNanoUsd: number;
  /**
   * True when the answer came from the attempt ahead of the call's record: a worker in this process ran it. False
   * when it came with the call's result (the attempt ran elsewhere, or its answer was too large to hand over).
   */
  readonly early: boolean;
  /** The call's result, routing record included, once the call has ended; never a failure after an early answer. */
  result(): Promise<RoutedCallResult>;
}

/** How {@link answerSoon} starts the call: `SwitchyardClient.start`, with the caller's options. */
export type StartCall = (
  input: RoutedCallInputValue,
) => Promise<{ readonly workflowId: string; result(): Promise<RoutedCallResult> }>;

/**
 * Starts the call with a relay in this process and takes whichever comes first: the answer an attempt run here
 * hands over, or the call's result. Rejects as the call does when no answer was handed over.
 */
export async function answerSoon(start: StartCall, input: RoutedCallInputValue): Promise<RoutedCallAnswer> {
  if ((input as { relay?: unknown }).relay !== undefined) {
    throw new InvalidRequestError('relay: `answer` sets the call’s relay itself; leave it out', 'relay');
  }
  const token = randomBytes(32).toString('base64url');
  const wait = awaitAnswer(token);
  try {
    const handle = await start({ ...input, relay: { url: inProcessRelayUrl(), token, answer: true } });
    wait.bind(handle.workflowId);
    const result = handle.result();
    // The result is read by `result()`, or not at all: a rejection nobody reads must not end the process.
    result.catch(() => undefined);
    const first = await Promise.race([
      wait.answered.then((handed) => ({ handed })),
      result.then((ended) => ({ ended })),
    ]);
    const common = { workflowId: handle.workflowId, result: () => result };
    return 'handed' in first
      ? { ...common, ...fromHanded(first.handed) }
      : { ...common, ...fromResult(first.ended) };
  } finally {
    wait.stop();
  }
}

function fromHanded(push: RelayAnswer) {
  // The target as the route names it (the record's), not the model the provider says answered.
  const { provider: _provider, model: _model, ...answer } = push.answer;
  return {
    answer,
    servedBy: { provider: push.target.provider, model: push.target.model },
    fallbacks: push.fallbacks,
    totalCostNanoUsd: push.totalCostNanoUsd,
    early: true,
  };
}

function fromResult({ answer, record }: RoutedCallResult) {
  return {
    answer,
    ...(record.servedBy
      ? { servedBy: { provider: record.servedBy.provider, model: record.servedBy.model } }
      : {}),
    fallbacks: record.fallbacks,
    totalCostNanoUsd: record.totalCostNanoUsd,
    early: false,
  };
}

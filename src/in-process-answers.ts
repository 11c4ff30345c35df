// Whole answers handed to a caller in this very process (a client beside its own worker), without a network or a
// relay server: the attempt gives the answer to the waiting caller directly. Node side.
import { randomBytes } from 'node:crypto';
import type { RelayAnswer, RelayTarget } from './config/relay';

/**
 * The origin of in-process relay URLs. `.invalid` never resolves (RFC 6761), so a worker that does not know the
 * scheme sends nothing anywhere: its request fails before it connects.
 */
export const IN_PROCESS_RELAY_ORIGIN = 'http://in-process.switchyard.invalid';

/** A caller's wait: bound to its call once the call is started; answers that came before are kept till then. */
interface Waiter {
  readonly resolve: (answer: RelayAnswer) => void;
  workflowId?: string;
  readonly before: Map<string, RelayAnswer>;
}

/** At most this many answers wait for a caller to learn its call's id (a guess at its token gets no more). */
const MAX_ANSWERS_BEFORE_START = 4;

/**
 * Shared by every copy of this module in the process (a second copy, bundled or loaded twice, would otherwise
 * wait on a registry the workers never see): the process's id in its relay URL, and the callers waiting.
 */
const registry: { readonly processId: string; readonly waiting: Map<string, Waiter> } = ((
  global: Record<symbol, unknown>,
) => {
  const key = Symbol.for('switchyard.in-process-answers');
  global[key] ??= { processId: randomBytes(12).toString('base64url'), waiting: new Map() };
  return global[key] as { processId: string; waiting: Map<string, Waiter> };
})(globalThis as unknown as Record<symbol, unknown>);

/** The relay URL of callers in this process: it names the process, so a worker elsewhere finds nobody there. */
export function inProcessRelayUrl(): string {
  return `${IN_PROCESS_RELAY_ORIGIN}/${registry.processId}`;
}

/** Whether `url` is an in-process relay's (this process's or another's). */
export function isInProcessRelay(url: string): boolean {
  return url.startsWith(`${IN_PROCESS_RELAY_ORIGIN}/`);
}

/** A caller's wait for the answer handed over under one token. */
export interface AnswerWait {
  /** Resolves with its call's answer, if an attempt in this process hands one over before {@link stop}. */
  readonly answered: Promise<RelayAnswer>;
  /**
   * Binds the wait to the call it started: only that call's answer is taken. The token is in the call's input,
   * so another call could name it; its answer never reaches this caller.
   */
  bind(workflowId: string): void;
  /** Stops waiting: an attempt that comes later hands nothing over, and its answer comes with the result. */
  stop(): void;
}

/** Waits for the answer of the call whose relay is {@link inProcessRelayUrl} with `token`. */
export function awaitAnswer(token: string): AnswerWait {
  let waiter!: Waiter;
  const answered = new Promise<RelayAnswer>((resolve) => {
    waiter = { resolve, before: new Map() };
  });
  registry.waiting.set(token, waiter);
  const stop = () => {
    if (registry.waiting.get(token) === waiter) registry.waiting.delete(token);
  };
  return {
    answered,
    bind: (workflowId) => {
      waiter.workflowId = workflowId;
      const early = waiter.before.get(workflowId);
      waiter.before.clear();
      if (early) {
        stop();
        waiter.resolve(early);
      }
    },
    stop,
  };
}

/** Whether a caller in this process waits on `relay` now: an attempt records its answer only for one that does. */
export function awaitedHere(relay: RelayTarget): boolean {
  return relay.url === inProcessRelayUrl() && registry.waiting.has(relay.token);
}

/**
 * Hands `answer`, of the call `workflowId`, to the caller waiting on `relay`. False when none waits (any more) or
 * the caller waits for another call: nothing was handed over.
 */
export function handOverHere(relay: RelayTarget, workflowId: string, answer: RelayAnswer): boolean {
  if (relay.url !== inProcessRelayUrl() || workflowId === '') return false;
  const waiter = registry.waiting.get(relay.token);
  if (!waiter) return false;
  if (waiter.workflowId === undefined) {
    // The attempt beat its caller's start to the answer: kept until the caller learns which call is its own.
    if (waiter.before.size >= MAX_ANSWERS_BEFORE_START && !waiter.before.has(workflowId)) return false;
    waiter.before.set(workflowId, answer);
    return true;
  }
  if (waiter.workflowId !== workflowId) return false;
  registry.waiting.delete(relay.token);
  waiter.resolve(answer);
  return true;
}

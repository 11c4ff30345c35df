// Whole answers handed to a caller in this very process (a client beside its own worker), without a network or a
// relay server: the attempt gives the answer to the waiting caller directly. Node side.
import { randomBytes } from 'node:crypto';
import type { RelayAnswer, RelayTarget } from './config/relay';

/**
 * The origin of in-process relay URLs. `.invalid` never resolves (RFC 6761), so a worker that does not know the
 * scheme sends nothing anywhere: its request fails before it connects.
 */
export const IN_PROCESS_RELAY_ORIGIN = 'http://in-process.switchyard.invalid';

/** Names this process in its relay URL: a worker in another process finds no caller of its own there. */
const PROCESS_ID = randomBytes(12).toString('base64url');

/** Callers of this process waiting for an answer, by their relay token. */
const waiting = new Map<string, (answer: RelayAnswer) => void>();

/** The relay URL of callers in this process. */
export function inProcessRelayUrl(): string {
  return `${IN_PROCESS_RELAY_ORIGIN}/${PROCESS_ID}`;
}

/** Whether `url` is an in-process relay's (this process's or another's). */
export function isInProcessRelay(url: string): boolean {
  return url.startsWith(`${IN_PROCESS_RELAY_ORIGIN}/`);
}

/** A caller's wait for the answer handed over under one token. */
export interface AnswerWait {
  /** Resolves with the answer, if an attempt in this process hands one over before {@link stop}. */
  readonly answered: Promise<RelayAnswer>;
  /** Stops waiting: an attempt that comes later hands nothing over, and its answer comes with the result. */
  stop(): void;
}

/** Waits for the answer of the call whose relay is {@link inProcessRelayUrl} with `token`. */
export function awaitAnswer(token: string): AnswerWait {
  let stop = () => undefined as void;
  const answered = new Promise<RelayAnswer>((resolve) => {
    waiting.set(token, resolve);
    stop = () => {
      if (waiting.get(token) === resolve) waiting.delete(token);
    };
  });
  return { answered, stop };
}

/** Whether a caller in this process waits on `relay` now: an attempt records its answer only for one that does. */
export function awaitedHere(relay: RelayTarget): boolean {
  return relay.url === inProcessRelayUrl() && waiting.has(relay.token);
}

/** Hands `answer` to the caller waiting on `relay`; false when none waits (any more): nothing was handed. */
export function handOverHere(relay: RelayTarget, answer: RelayAnswer): boolean {
  if (relay.url !== inProcessRelayUrl()) return false;
  const take = waiting.get(relay.token);
  if (!take) return false;
  waiting.delete(relay.token);
  take(answer);
  return true;
}

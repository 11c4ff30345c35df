// Pushes a streamed attempt's output to the gateway's relay as it arrives, in order, one push at a time. Worker side.
import { RelayReply, type RelayBatch, type RelayPush, type RelayTarget } from '../config/relay';
import type { OutputDelta } from '../providers/types';
import { isInProcessRelay } from '../in-process-answers';
import { takePush } from './relay-batches';
import { RELAY_ORIGINS_VARIABLE, relayOriginAllowed } from './relay-origins';

/** How long one push may take before the relay counts as unreachable, in milliseconds. */
const PUSH_TIMEOUT_MS = 5_000;

export interface RelayIdentity {
  /** The attempt's activity id: the gateway takes output from one attempt only. */
  readonly attemptId: string;
  readonly target: { readonly provider: string; readonly model: string };
}

export interface RelayPolicy {
  /**
   * Origins (`http(s)://host[:port]`) this worker pushes to; a relay elsewhere gets no push at all.
   * @default any origin (see `SWITCHYARD_RELAY_ORIGINS`, read by the worker's composition root)
   */
  readonly allowedOrigins?: readonly string[];
}

export interface RelayEvents {
  /** Called once, when output of this attempt may first have reached the caller (to heartbeat it at once). */
  readonly onDelivered?: () => void;
  /** Called when the gateway answered that another attempt's output already reached the caller. */
  readonly onSuperseded?: () => void;
  /** Called when the gateway answered that the caller left and the call is being cancelled. */
  readonly onCancelled?: () => void;
  /** Called once when the relay stops taking pushes for another reason (with the reason, never a body). */
  readonly onStopped?: (reason: string) => void;
}

/**
 * One attempt's side of the relay. Pieces are pushed as they come; while one push is in flight the next ones
 * gather and go together (in pushes the relay's body limit takes), so a slow relay batches instead of falling
 * behind, and the order always holds.
 * A relay that is gone or unreachable is dropped and the attempt goes on: its answer still reaches the
 * workflow, and a caller who comes back with the same Idempotency-Key gets it.
 */
export class RelayPusher {
  private pending: OutputDelta[] = [];
  private sending: Promise<void> | undefined;
  private sequence = 0;
  private stopped = false;
  private delivered = false;
  private superseded = false;

  constructor(
    private readonly relay: RelayTarget,
    private readonly identity: RelayIdentity,
    private readonly events: RelayEvents = {},
    policy: RelayPolicy = {},
  ) {
    // A caller in a worker's own process takes whole answers only (see in-process-answers.ts): pieces have
    // nowhere to go, and nothing may be sent to its URL.
    if (isInProcessRelay(relay.url)) this.stopped = true;
    // Refused before anything is sent: a routed call's input may name any URL, and the answer is the payload.
    else if (!relayOriginAllowed(relay.url, policy.allowedOrigins))
      this.stop(`relay origin ${originOf(relay.url)} is not in ${RELAY_ORIGINS_VARIABLE}`);
  }

  /**
   * Whether the caller may already hold output of this call: a push of this attempt may have reached it, or
   * the gateway said another attempt's did. Either way the call must not fail over any more.
   */
  get callerHasOutput(): boolean {
    return this.delivered || this.superseded;
  }

  push(delta: OutputDelta): void {
    if (this.stopped) return;
    this.pending.push(delta);
    this.sending ??= this.drain();
  }

  /** Resolves once every piece pushed so far was answered (or the relay stopped). */
  async flush(): Promise<void> {
    while (this.sending) await this.sending;
  }

  private async drain(): Promise<void> {
    while (this.pending.length > 0 && !this.stopped) await this.send(takePush(this.pending));
    this.pending = [];
    this.sending = undefined;
  }

  private async send(deltas: OutputDelta[]): Promise<void> {
    const batch: RelayBatch = { ...this.identity, sequence: this.sequence, deltas };
    this.sequence += 1;
    try {
      const status = await postToRelay(this.relay, batch);
      if (status === RelayReply.accepted) return this.markDelivered();
      if (status === RelayReply.superseded) {
        this.superseded = true;
        this.stop('superseded');
        this.events.onSuperseded?.();
        return;
      }
      if (status === RelayReply.cancelled) {
        this.stop('the caller left');
        this.events.onCancelled?.();
        return;
      }
      this.stop(status === RelayReply.gone ? 'the request is over' : `relay answered ${status}`);
    } catch (error) {
      if (isRedirect(error)) {
        // Answered with a redirect, which is not followed: nothing reached the caller.
        this.stop('relay answered a redirect, which is never followed');
        return;
      }
      // A connection never made certainly delivered nothing; anything else (a timeout, a reset) may have.
      if (!neverConnected(error)) this.markDelivered();
      this.stop(`relay unreachable (${errorCode(error)})`);
    }
  }

  private markDelivered(): void {
    if (this.delivered) return;
    this.delivered = true;
    this.events.onDelivered?.();
  }

  private stop(reason: string): void {
    if (this.stopped) return;
    this.stopped = true;
    if (reason !== 'superseded') this.events.onStopped?.(reason);
  }
}

/** Sends one push to `relay` and answers the HTTP status it got; throws when no answer came in `timeoutMs`. */
export async function postToRelay(
  relay: RelayTarget,
  push: RelayPush,
  timeoutMs = PUSH_TIMEOUT_MS,
): Promise<number> {
  const response = await fetch(relay.url, {
    method: 'POST',
    headers: { authorization: `Bearer ${relay.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(push),
    signal: AbortSignal.timeout(timeoutMs),
    // The relay is the gateway's own endpoint: a redirect would carry the token and the answer elsewhere.
    redirect: 'error',
  });
  await response.body?.cancel();
  return response.status;
}

function errorCode(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  return (error as Error | undefined)?.name ?? 'unknown';
}

/** The request failed before any connection: refused, or a host name that does not resolve. Nothing was sent. */
export function neverConnected(error: unknown): boolean {
  return ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN'].includes(errorCode(error));
}

/** Node's fetch with `redirect: 'error'` fails with a cause saying so when the answer was a redirect. */
function isRedirect(error: unknown): boolean {
  const cause = (error as { cause?: { message?: unknown } } | undefined)?.cause;
  return typeof cause?.message === 'string' && cause.message.includes('redirect');
}

/** The origin of a URL for a log line (never its path, which holds the relay id). */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(not a URL)';
  }
}

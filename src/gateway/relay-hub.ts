// The gateway's end of the relay: one registration per open streamed request, and the endpoint attempts push to. Node side.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { RelayPushSchema, RelayReply, type RelayPush, type RelayTarget } from '../config/relay';

/** Path prefix of the relay endpoint; `/<relay id>` follows. */
export const RELAY_PATH = '/switchyard/relay';

/** HTTP statuses the hub answers besides {@link RelayReply}'s. */
const REFUSED = { badToken: 401, badBatch: 400 } as const;

export interface RelayRegistration {
  /** What goes into the routed-call input: this gateway's URL for the request, and its token. */
  readonly target: RelayTarget;
  /** Receives each valid push; answers with a {@link RelayReply} status. Set before the workflow starts. */
  onPush: ((push: RelayPush) => number) | undefined;
  /**
   * Forgets the registration: later pushes are answered `gone`, and the token is worth nothing. With
   * `'cancelled'` (the caller left and its call is being cancelled), pushes are answered `cancelled` for a while
   * first, so the attempt stops its provider request at its next push.
   */
  close(reason?: 'cancelled'): void;
}

interface Entry {
  readonly tokenSha256: Buffer;
  readonly registration: RelayRegistration;
  /** Set when the caller left and the call was cancelled: pushes get `cancelled` until the entry goes. */
  cancelled?: true;
}

/**
 * How long a cancelled request's relay keeps answering `cancelled`, in milliseconds: long enough for an attempt's
 * next push (the provider's next piece), after which the heartbeat has brought the cancellation anyway.
 */
const CANCELLED_RELAY_KEPT_MS = 60_000;

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * Each streamed request (and each whole-answer request whose surface may answer before the call's record)
 * registers here under a random id with a random token, and its routed call carries `<relay url>/<id>` and the
 * token. Any worker running an attempt pushes to that URL, so the pieces, or the whole answer, reach the gateway
 * holding the caller's connection, however many workers and gateways there are. Only the token's hash is kept,
 * and only while the request is open.
 */
export class RelayHub {
  private readonly entries = new Map<string, Entry>();
  private baseUrl = '';

  /** Sets this gateway's URL as the workers reach it, e.g. `http://10.0.0.5:4000`, once it listens. */
  listenAt(baseUrl: string): void {
    this.baseUrl = baseUrl.replace(/\/$/, '');
  }

  /** Open registrations (streamed requests in flight). */
  get size(): number {
    let open = 0;
    for (const entry of this.entries.values()) if (!entry.cancelled) open += 1;
    return open;
  }

  /** @param options.answer the call's attempts hand their whole answer here too (see {@link RelayTarget}) */
  open(options: { answer?: boolean } = {}): RelayRegistration {
    const relayId = randomBytes(16).toString('base64url');
    const token = randomBytes(32).toString('base64url');
    const registration: RelayRegistration = {
      target: {
        url: `${this.baseUrl}${RELAY_PATH}/${relayId}`,
        token,
        ...(options.answer ? { answer: true as const } : {}),
      },
      onPush: undefined,
      close: (reason) => {
        const entry = this.entries.get(relayId);
        if (reason !== 'cancelled' || !entry || entry.cancelled) {
          if (!entry?.cancelled) this.entries.delete(relayId);
          return;
        }
        entry.cancelled = true;
        setTimeout(() => this.entries.delete(relayId), CANCELLED_RELAY_KEPT_MS).unref();
      },
    };
    this.entries.set(relayId, { tokenSha256: sha256(token), registration });
    return registration;
  }

  /**
   * Checks a push's relay id and token from its headers alone, so a push that would be refused is refused
   * before its body is read: the HTTP status to refuse it with, or undefined when it may go on.
   */
  refusal(relayId: string, authorization: string | undefined): number | undefined {
    const entry = this.entries.get(relayId);
    if (!entry) return RelayReply.gone;
    const presented = /^Bearer (.+)$/.exec(authorization ?? '')?.[1];
    if (presented === undefined || !timingSafeEqual(sha256(presented), entry.tokenSha256))
      return REFUSED.badToken;
    if (entry.cancelled) return RelayReply.cancelled;
    return undefined;
  }

  /** Handles one push; resolves to the HTTP status to answer with. */
  receive(relayId: string, authorization: string | undefined, body: unknown): number {
    // Checked again: the request may have ended while the body was read.
    const refused = this.refusal(relayId, authorization);
    if (refused !== undefined) return refused;
    const entry = this.entries.get(relayId)!;
    const parsed = RelayPushSchema.safeParse(body);
    if (!parsed.success) return REFUSED.badBatch;
    return entry.registration.onPush?.(parsed.data) ?? RelayReply.gone;
  }
}

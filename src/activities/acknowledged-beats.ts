// An attempt's heartbeats sent one at a time through the worker's client, each waited for, so that they reach the
// server in the order they were sent. Worker side.
import type { AttemptHeartbeatDetails } from './attempt-types';
import type { HeartbeatReceipt } from './sending-mark';

/** Least time between two acknowledged beats, in milliseconds: as often as the worker's own path lets beats out. */
export const ACKNOWLEDGED_BEAT_GAP_MS = 500;

export interface AcknowledgedBeatsOptions {
  /** Records `details` as the attempt's heartbeat and waits for the server's receipt. */
  readonly record: (details: AttemptHeartbeatDetails) => Promise<HeartbeatReceipt>;
  /**
   * Called with a receipt that says the server has news for the activity (`cancelled`, or `gone`: it gave the
   * attempt up). Only a beat of the worker's own path delivers such news to the activity's context.
   */
  readonly onNews: (details: AttemptHeartbeatDetails) => void;
  /** Least time between two beats, in milliseconds; beats asked for meanwhile go as one, the latest. */
  readonly minGapMs: number;
}

/**
 * The worker's own heartbeats travel through the SDK's core, which batches them on a connection of its own; a
 * beat sent another way may reach the server before an older core beat and be replaced by it. An attempt whose
 * answer is recorded in a heartbeat before it reaches a caller cannot have that: every beat of it goes here, one
 * in flight at a time, so the last one the server holds is the last one sent.
 */
export class AcknowledgedBeats {
  private inFlight: Promise<HeartbeatReceipt> | undefined;
  private pending: AttemptHeartbeatDetails | undefined;
  private lastSentAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly options: AcknowledgedBeatsOptions) {}

  /** Sends `details` when the previous beat was answered and the gap has passed; a later call replaces it. */
  beat(details: AttemptHeartbeatDetails): void {
    if (this.stopped) return;
    this.pending = details;
    this.sendWhenFree();
  }

  /**
   * Sends `details` at once after the beat in flight (none waits for the gap), and resolves to its receipt:
   * nothing sent before it can reach the server after it.
   */
  async now(details: AttemptHeartbeatDetails): Promise<HeartbeatReceipt> {
    this.pending = undefined;
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.inFlight) await this.inFlight;
    return this.send(details);
  }

  /**
   * A beat with the current details was just recorded another way (the sending mark): the next one waits its gap,
   * rather than saying the same again at once.
   */
  recordedElsewhere(): void {
    this.lastSentAt = Date.now();
  }

  /** No beat leaves after this; one in flight is answered as usual. */
  stop(): void {
    this.stopped = true;
    this.pending = undefined;
    clearTimeout(this.timer);
  }

  private sendWhenFree(): void {
    if (this.inFlight || this.timer || this.pending === undefined || this.stopped) return;
    const waitMs = this.lastSentAt + this.options.minGapMs - Date.now();
    if (waitMs > 0) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.sendWhenFree();
      }, waitMs);
      return;
    }
    const details = this.pending;
    this.pending = undefined;
    void this.send(details);
  }

  private send(details: AttemptHeartbeatDetails): Promise<HeartbeatReceipt> {
    this.lastSentAt = Date.now();
    const sent = this.options.record(details).then((receipt) => {
      if (this.inFlight === sent) this.inFlight = undefined;
      if ((receipt === 'cancelled' || receipt === 'gone') && !this.stopped) this.options.onNews(details);
      this.sendWhenFree();
      return receipt;
    });
    this.inFlight = sent;
    return sent;
  }
}

// The call's side of an attempt's watch: answers the attempt in flight the moment the call is cancelled. Workflow code.
import { condition, isCancellation, setHandler } from '@temporalio/workflow';
import { attemptWatchUpdate, type AttemptWatchAnswer } from '../definitions';

/**
 * Temporal tells an activity of its cancellation only in the answer to its next heartbeat, a second or more after
 * the call was cancelled, while the provider goes on generating tokens somebody pays for. An attempt whose request
 * is out a while asks the call to be told instead (an update it waits on); the call answers it in the same
 * workflow task that cancels the activity, so the attempt aborts its request within one round trip.
 *
 * Attempts of one call run one at a time: a watch belongs to the attempt running when it is accepted, and ends
 * with it. A watch asked while no attempt runs is refused before acceptance, so it costs the call no history.
 */
export class AttemptWatch {
  /** Counts attempts begun; the one running, if any, is `running`. */
  private begun = 0;
  private running: number | undefined;
  private callEnded = false;

  constructor() {
    setHandler(attemptWatchUpdate, () => this.watch(), {
      validator: () => {
        if (this.running === undefined) throw new Error('no attempt of this call is running');
      },
    });
  }

  /** Runs one attempt; watches accepted meanwhile are answered when it ends, if the call was not cancelled first. */
  async during<T>(attempt: () => Promise<T>): Promise<T> {
    this.begun += 1;
    this.running = this.begun;
    try {
      return await attempt();
    } finally {
      this.running = undefined;
    }
  }

  /** The call is over: every watch still open is answered, so none outlives the workflow. */
  end(): void {
    this.callEnded = true;
  }

  private async watch(): Promise<AttemptWatchAnswer> {
    const watched = this.running;
    try {
      // The handler runs in the workflow's root scope: the call's cancellation rejects this wait.
      await condition(() => this.callEnded || this.running !== watched);
      return { cancelled: false };
    } catch (error) {
      if (isCancellation(error)) return { cancelled: true };
      throw error;
    }
  }
}

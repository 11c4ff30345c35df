// Whether the caller of a gateway request is still connected, and what to do when it leaves. Node side.
import type { ServerResponse } from 'node:http';

/**
 * Watches one response's connection. A caller may leave at any moment — while its body is read, while its call
 * is being started, while it runs — and each of these must end the same way, so departure is a state to ask
 * about, not only an event to catch: a listener added after the caller left runs at once.
 */
export class CallerPresence {
  private left: boolean;
  private readonly listeners: (() => void)[] = [];

  constructor(private readonly response: ServerResponse) {
    // Node marks the response destroyed when its socket closes, even before anyone listens.
    this.left = response.destroyed && !response.writableFinished;
    response.once('close', () => {
      if (response.writableFinished || this.left) return;
      this.left = true;
      for (const listener of this.listeners.splice(0)) listener();
    });
  }

  /** Whether the caller closed the connection before the whole response was written. */
  get departed(): boolean {
    return this.left || (this.response.destroyed && !this.response.writableFinished);
  }

  /** Runs `listener` once the caller leaves (at once if it already has); never after a complete response. */
  onDeparture(listener: () => void): void {
    if (this.departed) listener();
    else this.listeners.push(listener);
  }
}

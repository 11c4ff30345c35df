// An attempt's watch on its call: hears the call's cancellation from the call itself, long before a heartbeat. Worker side.
import type { Client } from '@temporalio/client';
import { attemptWatchUpdate } from '../workflows/definitions';

/** The routed call an attempt belongs to. */
export interface WatchedCall {
  readonly workflowId: string;
  readonly runId: string;
}

/**
 * Waits until the call answers the attempt's watch: `cancelled` (stop the request now) or `over` (the attempt or
 * the call ended first, the watch was refused, or the call's workflow predates watches). Never throws; `signal`
 * abandons the wait.
 */
export type WatchCall = (
  call: WatchedCall,
  watchId: string,
  signal: AbortSignal,
) => Promise<'cancelled' | 'over'>;

export function createWatchCall(client: Client): WatchCall {
  return async (call, watchId, signal) => {
    try {
      const answer = await client.withAbortSignal(signal, () =>
        client.workflow
          .getHandle(call.workflowId, call.runId)
          .executeUpdate(attemptWatchUpdate, { updateId: watchId }),
      );
      return answer.cancelled ? 'cancelled' : 'over';
    } catch {
      // Heartbeats still bring the cancellation, later: a watch that fails costs only speed.
      return 'over';
    }
  };
}

/**
 * How long an attempt's request is out before it watches its call, in milliseconds: a watch costs the call a
 * workflow task and two history events, which a short answer should not pay for.
 */
export const WATCH_AFTER_MS = 250;

/**
 * Starts watching `call` once the request has been out `afterMs` (the worker's setting, else
 * {@link WATCH_AFTER_MS}), and calls `onCancelled` if the call is cancelled while it is. Returns the stop, to call
 * when the request ends.
 */
export function watchWhileSending(
  watchCall: WatchCall,
  call: WatchedCall | undefined,
  watch: { readonly watchId: string; readonly afterMs: number },
  onCancelled: () => void,
): () => void {
  // An activity started on its own, outside any workflow, has no call to watch.
  if (!call) return () => undefined;
  const stopped = new AbortController();
  const timer = setTimeout(() => {
    void watchCall(call, watch.watchId, stopped.signal).then((said) => {
      if (said === 'cancelled' && !stopped.signal.aborted) onCancelled();
    });
  }, watch.afterMs);
  return () => {
    clearTimeout(timer);
    stopped.abort();
  };
}

// The mark an attempt records on the server before it sends its request, acknowledged, so that an attempt whose
// worker is lost can be told apart from one that reached the provider. Worker side.
import {
  ActivityCancelledError,
  ActivityNotFoundError,
  ActivityResetError,
  type Client,
} from '@temporalio/client';
import type { AttemptHeartbeatDetails } from './attempt-types';

/**
 * What the server said to a heartbeat sent and waited for: `recorded` (the details are what it holds now),
 * `gone` (it no longer knows the attempt: timed out, reset, or its workflow moved on), `cancelled` (the caller
 * asked to stop), `unrecorded` (it could not be reached: nothing is known).
 */
export type HeartbeatReceipt = 'recorded' | 'gone' | 'cancelled' | 'unrecorded';

/** Records `details` as the attempt's heartbeat and waits for the server's answer. */
export type RecordHeartbeat = (
  taskToken: Uint8Array,
  details: AttemptHeartbeatDetails,
) => Promise<HeartbeatReceipt>;

/**
 * Heartbeats through the worker's client rather than the worker's own heartbeat path, because that one batches and
 * throttles beats and never says whether one arrived: the sending mark must be on the server before the request
 * leaves, or a worker that dies just after sending would be taken for one that never sent. The client encodes the
 * details with its data converter, the workers' own, so the workflow reads them from a heartbeat timeout.
 */
export function createRecordHeartbeat(client: Client): RecordHeartbeat {
  return async (taskToken, details) => {
    try {
      await client.activity.heartbeat(taskToken, details);
      return 'recorded';
    } catch (error) {
      if (error instanceof ActivityNotFoundError || error instanceof ActivityResetError) return 'gone';
      if (error instanceof ActivityCancelledError) return 'cancelled';
      // Paused: the beat was recorded all the same (the server says so with its answer).
      if ((error as Error | undefined)?.name === 'ActivityPausedError') return 'recorded';
      return 'unrecorded';
    }
  };
}

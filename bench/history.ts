// Reads workflow histories as (event type, time) lists with sub-millisecond times. Bench side.
import type { Client } from '@temporalio/client';

export interface TimedEvent {
  /** `WorkflowTaskStarted`, `ActivityTaskScheduled`, … */
  readonly type: string;
  /** Epoch milliseconds, with the server's sub-millisecond part. */
  readonly atMs: number;
}

type Seconds = number | { toNumber(): number } | null | undefined;

/** A protobuf timestamp as epoch milliseconds, keeping the part below a millisecond. */
function timestampMs(time: { seconds?: Seconds; nanos?: number | null } | null | undefined): number {
  const seconds = time?.seconds;
  const wholeSeconds = typeof seconds === 'number' ? seconds : seconds ? seconds.toNumber() : 0;
  return wholeSeconds * 1000 + (time?.nanos ?? 0) / 1e6;
}

/** An event's type from the one `…EventAttributes` field it carries: `workflowTaskStartedEventAttributes` → `WorkflowTaskStarted`. */
function eventTypeName(event: object): string {
  for (const [key, value] of Object.entries(event)) {
    if (key.endsWith('EventAttributes') && value) {
      const name = key.slice(0, -'EventAttributes'.length);
      return name.charAt(0).toUpperCase() + name.slice(1);
    }
  }
  return 'Unknown';
}

export async function timedEvents(client: Client, workflowId: string): Promise<TimedEvent[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).map((event) => ({
    type: eventTypeName(event),
    atMs: timestampMs(event.eventTime as { seconds?: Seconds; nanos?: number | null } | null | undefined),
  }));
}

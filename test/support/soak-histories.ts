// Reads every soak call's history for hidden trouble: failed or timed-out workflow tasks the callers never see.
import type { Client } from '@temporalio/client';

export interface TaskTrouble {
  readonly workflowId: string;
  readonly failedTasks: number;
  readonly timedOutTasks: number;
  /** The first failed task's cause and message, shortened. */
  readonly firstFailure?: string;
}

/**
 * A workflow task that fails is retried from the call's history, so the caller may still get an answer; but
 * the failure is a bug (a bare error, a refused command) and the retry can change what the call does.
 */
export async function findTaskTrouble(
  client: Client,
  workflowIds: readonly string[],
  concurrency = 8,
): Promise<TaskTrouble[]> {
  const troubles: TaskTrouble[] = [];
  let next = 0;
  const readers = Array.from({ length: concurrency }, async () => {
    while (next < workflowIds.length) {
      const workflowId = workflowIds[next]!;
      next += 1;
      const history = await client.workflow.getHandle(workflowId).fetchHistory();
      let failedTasks = 0;
      let timedOutTasks = 0;
      let firstFailure: string | undefined;
      for (const event of history.events ?? []) {
        const failed = event.workflowTaskFailedEventAttributes;
        if (failed) {
          failedTasks += 1;
          firstFailure ??= `${String(failed.cause)}: ${failed.failure?.message ?? ''}`.slice(0, 300);
        }
        if (event.workflowTaskTimedOutEventAttributes) timedOutTasks += 1;
      }
      if (failedTasks > 0 || timedOutTasks > 0)
        troubles.push({ workflowId, failedTasks, timedOutTasks, ...(firstFailure ? { firstFailure } : {}) });
    }
  });
  await Promise.all(readers);
  return troubles;
}

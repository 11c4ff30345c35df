// The failover lane alone, for an A/B of one change: the gap from the first target's failure to the second
// target's request, and where it goes, read from each call's history. Bench side.
//
//   npx tsx bench/failover-gap.ts [--calls 150] [--variant routed|budgeted]
import { parseArgs } from 'node:util';
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { buildBundles } from './bundles';
import { startEnvironment } from './environment';
import { measureFailover } from './failover';
import { TUNED_SETUP } from './run';
import { summarize } from './stats';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

function timeOf(event: HistoryEvent | undefined): number {
  const time = event?.eventTime;
  return time ? Number(time.seconds) * 1000 + (time.nanos ?? 0) / 1e6 : NaN;
}

/**
 * From the failed attempt's end to the next attempt's request, by the server's clock: the failure reaching the
 * server, the workflow task that fails over (dispatch and run), and the next attempt up to its request.
 */
async function stagesOf(client: Client, workflowIds: readonly string[], secondRequestsAt: readonly number[]) {
  // Calls and second requests pair up by order only when every call failed over once.
  if (secondRequestsAt.length !== workflowIds.length) return undefined;
  const stages: Record<string, number[]> = { failureToTask: [], taskRun: [], taskToRequest: [] };
  for (const [index, workflowId] of workflowIds.entries()) {
    const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
    const failed = events.findIndex((event) => event.activityTaskFailedEventAttributes);
    const after = events.slice(failed);
    const started = after.find((event) => event.workflowTaskStartedEventAttributes);
    const completed = after.find((event) => event.workflowTaskCompletedEventAttributes);
    const requestAt = secondRequestsAt[index];
    if (failed < 0 || !started || !completed || requestAt === undefined) continue;
    stages.failureToTask!.push(timeOf(started) - timeOf(events[failed]));
    stages.taskRun!.push(timeOf(completed) - timeOf(started));
    stages.taskToRequest!.push(requestAt - timeOf(completed));
  }
  return Object.fromEntries(Object.entries(stages).map(([name, values]) => [name, summarize(values)]));
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      calls: { type: 'string', default: '150' },
      variant: { type: 'string', default: 'routed' },
    },
  });
  const variant = values.variant === 'budgeted' ? 'budgeted' : 'routed';
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const bundles = await buildBundles();
  const environment = await startEnvironment(TUNED_SETUP, bundles);
  try {
    const { link, fakes, client } = environment;
    await measureFailover(link, fakes['0ms'], 20, 10_000, variant);
    const failover = await measureFailover(link, fakes['0ms'], Number(values.calls), 60_000, variant);
    const stages = await stagesOf(client, failover.workflowIds, failover.secondRequestsAt);
    process.stdout.write(
      `${JSON.stringify({ variant, gap: failover.failover, stages, call: failover.call, errors: failover.errors })}\n`,
    );
  } finally {
    await environment.stop();
    bundles.remove();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`failover-gap failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);

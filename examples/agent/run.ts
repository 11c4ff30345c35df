// Runs the sample agent against a running Switchyard (e.g. `npm start`): its own worker, one run, the result. Node side.
// npx tsx examples/agent/run.ts "Where is my order A-1001?"
import { randomUUID } from 'node:crypto';
import { Worker } from '@temporalio/worker';
import { connectClient, SwitchyardClient } from 'switchyard';
import { connectWorker } from 'switchyard/worker';
import { createAgentActivities } from './activities';
import type { supportAgentWorkflow } from './workflows';

/** The agent's own task queue: your workflows and tools, beside Switchyard's `switchyard` queue. */
const AGENT_TASK_QUEUE = 'support-agent';

async function main(): Promise<void> {
  const question = process.argv[2] ?? 'Where is my order A-1001?';
  // Both read TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE (and SWITCHYARD_CODEC_KEY) as Switchyard's own do.
  const client = await connectClient();
  const { connection, namespace } = await connectWorker();
  const worker = await Worker.create({
    connection,
    namespace,
    taskQueue: AGENT_TASK_QUEUE,
    workflowsPath: require.resolve('./workflows'),
    activities: createAgentActivities({ 'A-1001': { status: 'shipped', eta: '2026-11-20' } }),
  });
  // A budget scope per run, with a limit: every model call of the run reserves its worst case there first.
  const runId = randomUUID().slice(0, 8);
  const budget = `support-agent-${runId}`;
  await new SwitchyardClient({ client }).ledgers.setLimit(budget, { limitUsd: 0.05 });
  const result = await worker.runUntil(
    client.workflow.execute<typeof supportAgentWorkflow>('supportAgentWorkflow', {
      taskQueue: AGENT_TASK_QUEUE,
      workflowId: `support-agent-${runId}`,
      args: [{ question, budget }],
    }),
  );
  console.log(JSON.stringify(result, null, 2));
  await connection.close();
  await client.connection.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

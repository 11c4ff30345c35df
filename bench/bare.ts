// Bare path: a one-activity workflow (the engine's floor) running the same attempt activity. Worker process.
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Config } from 'switchyard';
import { resolveRoute, type AttemptInput } from 'switchyard/testing';
import { BARE_TASK_QUEUE } from './bare-activities';
import { benchRequest, MODE_ROUTE, type LatencyMode } from './bench-config';
import type { bareWorkflow } from './workflows/bare-workflow';

/** Starts a bare workflow on `mode`'s healthy target and waits for its result; resolves to its workflow id. */
export function bareCaller(client: Client, config: Config, mode: LatencyMode): () => Promise<string> {
  const target = resolveRoute(config, MODE_ROUTE[mode]).targets[0]!;
  const input: AttemptInput = {
    target,
    request: benchRequest(),
    timeoutMs: target.timeoutMs,
    stream: false,
  };
  return async () => {
    const workflowId = `bench-bare-${randomUUID()}`;
    await client.workflow.execute<typeof bareWorkflow>('bareWorkflow', {
      taskQueue: BARE_TASK_QUEUE,
      workflowId,
      args: [input],
    });
    return workflowId;
  };
}

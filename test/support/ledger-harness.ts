// Per-file harness for ledger tests: dev server connection, the ledger test bundle, worker processes with budgets.
import { setTimeout as delay } from 'node:timers/promises';
import { Client, type WorkflowHandle } from '@temporalio/client';
import { NativeConnection, Worker, type WorkflowBundlePath } from '@temporalio/worker';
import { createActivities, createEntityActivities } from '../../src/activities';
import { Ledgers } from '../../src/client/ledgers';
import type { Config } from '../../src/config/config';
import { parseConfig } from '../../src/config/load-config';
import type { ReservationDecision } from '../../src/routing/ledger-state';
import { entityTaskQueue } from '../../src/workflows/definitions';
import type { LedgerCallerInput, ledgerCallerWorkflow } from './ledger-test-workflows';
import { sharedWorkflowBundle } from './shared-bundles';
import { connectForTest, temporalAddress, uniqueName, type TemporalTestContext } from './temporal';

export interface LedgerTestContext {
  readonly client: Client;
  /** The entity queue: where ledgers run. */
  readonly taskQueue: string;
  /** The callers' queue, which Switchyard's clients and CLI are given (they derive the entity queue). */
  readonly callTaskQueue: string;
  readonly config: Config;
  readonly ledgers: Ledgers;
  /** Runs one caller workflow per input, all at once, and returns their decisions in input order. */
  callers(inputs: readonly LedgerCallerInput[]): Promise<ReservationDecision[]>;
  /** Starts one caller; signal a holding caller with `finishCallerSignal`. */
  startCaller(input: LedgerCallerInput): Promise<WorkflowHandle<typeof ledgerCallerWorkflow>>;
}

export interface LedgerHarness {
  readonly temporal: TemporalTestContext;
  /** Starts `workers` workers (default 1) on a fresh task queue with these budgets, runs `body`, stops them. */
  withWorkers<T>(
    options: { workers?: number; budgets?: Config['budgets'] },
    body: (context: LedgerTestContext) => Promise<T>,
  ): Promise<T>;
  close(): Promise<void>;
}

export async function startLedgerHarness(): Promise<LedgerHarness> {
  const [temporal, bundle] = await Promise.all([connectForTest(), sharedWorkflowBundle('ledger-test')]);
  return {
    temporal,
    withWorkers: (options, body) => runWithWorkers(temporal, bundle, options, body),
    close: () => temporal.close(),
  };
}

/**
 * One worker "process": a worker for the callers' workflows and local activities on the call queue, and a
 * worker for the ledger entities on the entity queue. Separate workers have separate workflow-task slots, so
 * callers waiting on reserve local activities can never starve the ledger they wait for (see the decision
 * record, "Where the entity runs").
 */
async function createWorkerProcess(
  connection: NativeConnection,
  config: Config,
  bundle: WorkflowBundlePath,
  queues: { readonly call: string; readonly entity: string },
): Promise<Worker[]> {
  const client = new Client({ connection });
  const activities = createActivities({ config, client, taskQueue: queues.entity });
  return Promise.all([
    Worker.create({ connection, taskQueue: queues.call, workflowBundle: bundle, activities }),
    Worker.create({
      connection,
      taskQueue: queues.entity,
      workflowBundle: bundle,
      activities: createEntityActivities({ client }),
    }),
  ]);
}

async function runWithWorkers<T>(
  temporal: TemporalTestContext,
  bundle: WorkflowBundlePath,
  options: { workers?: number; budgets?: Config['budgets'] },
  body: (context: LedgerTestContext) => Promise<T>,
): Promise<T> {
  const taskQueue = uniqueName('ledger-test');
  const queues = { call: taskQueue, entity: entityTaskQueue(taskQueue) };
  const config = parseConfig({
    providers: {},
    routes: {},
    ...(options.budgets ? { budgets: options.budgets } : {}),
  });
  // A second worker process needs a connection of its own, as it would have on another machine.
  const extraConnections = await Promise.all(
    Array.from({ length: (options.workers ?? 1) - 1 }, () =>
      NativeConnection.connect({ address: temporalAddress() }),
    ),
  );
  const workers = (
    await Promise.all(
      [temporal.nativeConnection, ...extraConnections].map((connection) =>
        createWorkerProcess(connection, config, bundle, queues),
      ),
    )
  ).flat();
  const client = temporal.client;
  const startCaller = (input: LedgerCallerInput) =>
    client.workflow.start<typeof ledgerCallerWorkflow>('ledgerCallerWorkflow', {
      taskQueue: queues.call,
      workflowId: uniqueName('ledger-caller'),
      args: [input],
    });
  const context: LedgerTestContext = {
    client,
    taskQueue: queues.entity,
    callTaskQueue: queues.call,
    config,
    ledgers: new Ledgers({ client, taskQueue: queues.entity }),
    startCaller,
    callers: (inputs) => Promise.all(inputs.map(async (input) => (await startCaller(input)).result())),
  };
  try {
    // Each worker runs until the body (wrapped by the workers before it) is done.
    return await workers.reduce<Promise<T>>((inner, worker) => worker.runUntil(inner), body(context));
  } finally {
    await Promise.all(extraConnections.map((connection) => connection.close()));
  }
}

/** Polls until `condition` holds; fails after about 30 seconds. Used for durable timers, never to time them. */
export async function waitFor(what: string, condition: () => Promise<boolean>): Promise<void> {
  for (let tries = 0; tries < 300; tries += 1) {
    if (await condition()) return;
    await delay(100);
  }
  throw new Error(`timed out waiting for ${what}`);
}

// The embedded engine: a dev server of its own starts with Switchyard's search attributes, runs a workflow on a
// real worker, keeps it across a restart with a database file, and stops without leaving a process behind.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { startDevServer } from '../../src/engine';
import { SWITCHYARD_SEARCH_ATTRIBUTES } from '../../src/workflows/search-attributes';
import { quietRuntime, uniqueName } from '../support/temporal';

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function runSmokeWorkflow(address: string, workflowId: string): Promise<string> {
  const nativeConnection = await NativeConnection.connect({ address });
  const connection = await Connection.connect({ address });
  try {
    const taskQueue = uniqueName('smoke');
    const worker = await Worker.create({
      connection: nativeConnection,
      taskQueue,
      workflowsPath: require.resolve('../support/workflows/smoke-workflow'),
      activities: { greet: async (name: string) => `hello, ${name}` },
    });
    const client = new Client({ connection });
    return await worker.runUntil(
      client.workflow.execute('smokeWorkflow', { taskQueue, workflowId, args: ['switchyard'] }),
    );
  } finally {
    await connection.close();
    await nativeConnection.close();
  }
}

test('a dev server of its own runs a workflow, persists it across a restart, and stops cleanly', async () => {
  quietRuntime();
  const dbFilename = path.join(mkdtempSync(path.join(tmpdir(), 'switchyard-engine-')), 'temporal.db');
  const workflowId = uniqueName('smoke');

  const first = await startDevServer({ headless: true, dbFilename });
  try {
    expect(await runSmokeWorkflow(first.address, workflowId)).toBe('hello, switchyard');
    const connection = await Connection.connect({ address: first.address });
    const { customAttributes } = await connection.operatorService.listSearchAttributes({
      namespace: 'default',
    });
    await connection.close();
    for (const key of SWITCHYARD_SEARCH_ATTRIBUTES)
      expect(Object.keys(customAttributes ?? {})).toContain(key.name);
  } finally {
    await first.stop();
  }
  expect(isRunning(first.process.pid!)).toBe(false);

  const second = await startDevServer({ headless: true, dbFilename });
  try {
    const connection = await Connection.connect({ address: second.address });
    const description = await new Client({ connection }).workflow.getHandle(workflowId).describe();
    await connection.close();
    expect(description.status.name).toBe('COMPLETED');
  } finally {
    await second.stop();
  }
  expect(isRunning(second.process.pid!)).toBe(false);
});

// Helpers for tests on the real dev server: connections, the run's shared workflow bundle, unique names.
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type WorkflowBundlePath } from '@temporalio/worker';
import { sharedWorkflowBundle } from './shared-bundles';

let runtimeInstalled = false;

/** Keeps the worker runtime's logs to errors: failed attempts are expected in these tests and log as warnings. */
export function quietRuntime(): void {
  if (runtimeInstalled) return;
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  runtimeInstalled = true;
}

export function temporalAddress(): string {
  const address = process.env.TEMPORAL_ADDRESS;
  if (!address)
    throw new Error('TEMPORAL_ADDRESS is not set: run this test through the jest `temporal` project');
  return address;
}

export interface TemporalTestContext {
  readonly client: Client;
  readonly nativeConnection: NativeConnection;
  close(): Promise<void>;
}

export async function connectForTest(): Promise<TemporalTestContext> {
  quietRuntime();
  const address = temporalAddress();
  const connection = await Connection.connect({ address });
  const nativeConnection = await NativeConnection.connect({ address });
  return {
    client: new Client({ connection }),
    nativeConnection,
    close: async () => {
      await connection.close();
      await nativeConnection.close();
    },
  };
}

/** `src/workflows` bundled once per Jest run (by the global setup), as a file; call it in `beforeAll`. */
export function bundleSwitchyardWorkflows(): Promise<WorkflowBundlePath> {
  return sharedWorkflowBundle('switchyard');
}

export function uniqueName(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

// The pieces the demo and `npm start` run in one process: dev server, fake provider, worker, client. Script side.
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { createProviderRegistry } from '../../src/activities/provider-registry';
import { dataConverterFromEnvironment } from '../../src/codec/data-converter';
import { SwitchyardClient } from '../../src/client/switchyard-client';
import type { Config } from '../../src/config/config';
import { startDevServer, type DevServer, type DevServerOptions } from '../../src/engine';
import { startFakeProvider, type FakeProvider, type FakeProviderOptions } from '../../src/fake-provider';
import { createSwitchyardWorker, type SwitchyardWorker } from '../../src/worker';
import { withProgress } from './progress';

export function startServerWithProgress(options: DevServerOptions): Promise<DevServer> {
  return withProgress('temporal server start-dev', startDevServer({ ...options, headless: false }));
}

export function startFake(options: FakeProviderOptions = {}): Promise<FakeProvider> {
  return startFakeProvider(options);
}

export interface WorkerAndClient {
  readonly worker: SwitchyardWorker;
  readonly switchyard: SwitchyardClient;
  /** Closes the connections (after the worker has stopped). */
  close(): Promise<void>;
}

/**
 * Connects a worker and a client to `address`. Provider keys come from `environment` (the real ones from the
 * process environment, the fake provider's from the demo).
 */
export async function startWorkerAndClient(
  address: string,
  config: Config,
  environment: NodeJS.ProcessEnv,
): Promise<WorkerAndClient> {
  // Payload encryption when SWITCHYARD_CODEC_KEY is set: the worker and this client must share it.
  const dataConverter = dataConverterFromEnvironment(environment);
  const nativeConnection = await NativeConnection.connect({ address });
  const worker = await withProgress(
    'bundling workflows and starting the worker',
    createSwitchyardWorker({
      config,
      connection: nativeConnection,
      providers: createProviderRegistry(config, environment),
      dataConverter: dataConverter ?? {},
    }),
  );
  const connection = await Connection.connect({ address });
  const client = new Client({ connection, ...(dataConverter ? { dataConverter } : {}) });
  const switchyard = new SwitchyardClient({ client, config });
  return {
    worker,
    switchyard,
    close: async () => {
      await connection.close();
      await nativeConnection.close();
    },
  };
}

/** The Web UI page of a workflow. */
export function workflowLink(uiUrl: string | undefined, workflowId: string, namespace = 'default'): string {
  if (!uiUrl) return '(no Web UI)';
  return `${uiUrl}/namespaces/${namespace}/workflows/${encodeURIComponent(workflowId)}`;
}

/** The Web UI's workflow list filtered by a visibility query. */
export function queryLink(uiUrl: string | undefined, query: string, namespace = 'default'): string {
  if (!uiUrl) return '(no Web UI)';
  return `${uiUrl}/namespaces/${namespace}/workflows?query=${encodeURIComponent(query)}`;
}

// Connects to Temporal by Temporal's own conventions (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, profiles, TLS, API key). Node side.
import { Client, Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { loadClientConnectConfig } from '@temporalio/envconfig';
// The client half only: the package's root also loads its worker and plugin halves (and so the worker SDK).
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry/lib/client';
import type { NativeConnection } from '@temporalio/worker';
import { resolveDataConverter } from '../codec/data-converter';

export interface ConnectionSettings {
  /** `host:port` of the Temporal front end. @default `TEMPORAL_ADDRESS`, else the profile, else 'localhost:7233' */
  readonly address?: string;
  /** @default `TEMPORAL_NAMESPACE`, else the profile, else 'default' */
  readonly namespace?: string;
}

function resolveSettings(settings: ConnectionSettings) {
  const { connectionOptions, namespace } = loadClientConnectConfig();
  return {
    connectionOptions: {
      ...connectionOptions,
      address: settings.address ?? connectionOptions.address ?? 'localhost:7233',
    },
    namespace: settings.namespace ?? namespace ?? 'default',
  };
}

export interface ClientSettings extends ConnectionSettings {
  /**
   * How payloads are converted and encoded; it must match the workers' so both can read each other's payloads.
   * @default from the environment (`dataConverterFromEnvironment`): AES-256-GCM encryption when SWITCHYARD_CODEC_KEY
   * is set, the payload store when SWITCHYARD_PAYLOAD_STORE_DIR is set, and always the payload size limit
   */
  readonly dataConverter?: DataConverter;
}

/**
 * A client for starting and reading workflows. Close it with `client.connection.close()`. Each start, query,
 * update and signal carries the caller's active OpenTelemetry context in its Temporal headers, so a workflow
 * whose worker uses Temporal's OpenTelemetry interceptors continues the caller's trace; with no tracer
 * provider registered the spans are no-ops.
 */
export async function connectClient(settings: ClientSettings = {}): Promise<Client> {
  const { connectionOptions, namespace } = resolveSettings(settings);
  // Read before connecting: a bad codec key is a settings error, not an unreachable server.
  const dataConverter = resolveDataConverter(settings.dataConverter);
  const connection = await Connection.connect(connectionOptions);
  return new Client({
    connection,
    namespace,
    ...(dataConverter ? { dataConverter } : {}),
    interceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] },
  });
}

/** A worker-side connection with the same settings (exported from `switchyard/worker`). */
export async function connectWorker(
  settings: ConnectionSettings = {},
): Promise<{ connection: NativeConnection; namespace: string }> {
  const { connectionOptions, namespace } = resolveSettings(settings);
  // Loaded here, not at the top: a client importing this module must not load the worker SDK (its native
  // bridge, webpack, ~0.4 s and 10 MB).
  const { NativeConnection } = require('@temporalio/worker') as typeof import('@temporalio/worker');
  return { connection: await NativeConnection.connect(connectionOptions), namespace };
}

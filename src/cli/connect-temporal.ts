// Opens the CLI's Temporal connection and recognises an unreachable server. Node side.
import { isGrpcServiceError, type Client } from '@temporalio/client';
import { connectClient } from '../client/connection';
import { CodecSettingsError } from '../codec/codec-settings-error';
import { dataConverterFromEnvironment } from '../codec/data-converter';
import { SwitchyardClient } from '../client/switchyard-client';
import type { Config } from '../config/config';
import { UsageError } from './cli-errors';
import { temporalUnreachable } from './temporal-unreachable';
import type { GlobalOptions } from './global-options';

/** gRPC status UNAVAILABLE; the number is fixed by the gRPC spec, so no need to import grpc-js for it. */
const GRPC_UNAVAILABLE = 14;

export interface CliConnection {
  readonly switchyard: SwitchyardClient;
  /** The Temporal client underneath, e.g. for `withAbortSignal`. */
  readonly temporal: Client;
  close(): Promise<void>;
}

/** True for a server that went away after the connection was made (gRPC UNAVAILABLE, bare or wrapped). */
export function isTemporalUnavailable(error: unknown): boolean {
  const candidates = [error, error instanceof Error ? error.cause : undefined];
  return candidates.some((candidate) => isGrpcServiceError(candidate) && candidate.code === GRPC_UNAVAILABLE);
}

/**
 * Connects with the global options; any failure to connect becomes a {@link TemporalUnreachableError}.
 * @param config given to the client, which then checks calls against it (and shows their targets in the UI)
 */
export async function connectSwitchyard(globals: GlobalOptions, config?: Config): Promise<CliConnection> {
  let dataConverter;
  try {
    // Encrypted payloads (SWITCHYARD_CODEC_KEY) and stored ones (SWITCHYARD_PAYLOAD_STORE_DIR) must be readable by
    // `show` and `call`; a bad setting is a usage error. Without a key or a store, encrypted payloads and
    // references fail with a message naming the variable, not "Unknown encoding".
    dataConverter = dataConverterFromEnvironment();
  } catch (error) {
    if (error instanceof CodecSettingsError) throw new UsageError(error.message);
    throw error;
  }
  let temporal: Client;
  try {
    temporal = await connectClient({ address: globals.address, namespace: globals.namespace, dataConverter });
  } catch (error) {
    throw temporalUnreachable(globals, error);
  }
  return {
    temporal,
    switchyard: new SwitchyardClient({
      client: temporal,
      ...(globals.taskQueue ? { taskQueue: globals.taskQueue } : {}),
      ...(config ? { config } : {}),
    }),
    close: () => temporal.connection.close(),
  };
}

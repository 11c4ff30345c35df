// The payload store and its threshold, read from the environment. Node side.
import { accessSync, constants, mkdirSync } from 'node:fs';
import path from 'node:path';
import { CodecSettingsError } from './codec-settings-error';
import { FilesystemPayloadStore, PAYLOAD_STORE_DIRECTORY_MODE } from './filesystem-payload-store';
import type { PayloadStore } from './payload-store';

/** Environment variables the payload store reads. */
export const PAYLOAD_STORE_VARIABLES = {
  /** An absolute path shared by every worker, client, CLI user and codec server; setting it turns the store on. */
  directory: 'SWITCHYARD_PAYLOAD_STORE_DIR',
  /** Payloads of this many bytes or more go to the store. @default 262144 */
  thresholdBytes: 'SWITCHYARD_PAYLOAD_STORE_THRESHOLD_BYTES',
} as const;

/**
 * 256 KiB: well under Temporal's 2 MiB per-event limit and its 512 KiB warning, so a history stays small, yet
 * above every payload a routed call makes besides long prompts and answers (the SDK's own external storage uses
 * the same default).
 */
export const DEFAULT_PAYLOAD_STORE_THRESHOLD_BYTES = 256 * 1024;
/** A reference takes about 110 bytes; storing anything smaller than this saves nothing worth a file. */
const MIN_THRESHOLD_BYTES = 1024;

export interface PayloadStoreSettings {
  readonly store: PayloadStore;
  /** Payloads of this many bytes or more go to the store. */
  readonly thresholdBytes: number;
}

function readThreshold(raw: string | undefined, limitBytes: number): number {
  const variable = PAYLOAD_STORE_VARIABLES.thresholdBytes;
  const text = raw?.trim();
  if (!text) return Math.min(DEFAULT_PAYLOAD_STORE_THRESHOLD_BYTES, limitBytes);
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < MIN_THRESHOLD_BYTES || value > limitBytes)
    throw new CodecSettingsError(
      variable,
      `must be a whole number of bytes from ${MIN_THRESHOLD_BYTES} to the payload limit, ${limitBytes} (larger payloads would be refused, not stored), got "${text}"`,
    );
  return value;
}

/**
 * The store from {@link PAYLOAD_STORE_VARIABLES}, or undefined when `SWITCHYARD_PAYLOAD_STORE_DIR` is unset. The
 * directory is created if missing and must be readable and writable: a mistake shows at start, naming the
 * variable, not at the first large call. A threshold set without a directory is refused too, as a store that
 * was meant to be on.
 */
export function payloadStoreFromEnvironment(
  limitBytes: number,
  environment: NodeJS.ProcessEnv = process.env,
): PayloadStoreSettings | undefined {
  const directory = environment[PAYLOAD_STORE_VARIABLES.directory]?.trim();
  if (!directory) {
    if (environment[PAYLOAD_STORE_VARIABLES.thresholdBytes]?.trim())
      throw new CodecSettingsError(
        PAYLOAD_STORE_VARIABLES.thresholdBytes,
        `is set but ${PAYLOAD_STORE_VARIABLES.directory} is not: set the directory too`,
      );
    return undefined;
  }
  const variable = PAYLOAD_STORE_VARIABLES.directory;
  // Every process must find the same files: a relative path would depend on each one's working directory.
  if (!path.isAbsolute(directory))
    throw new CodecSettingsError(variable, `must be an absolute path, got "${directory}"`);
  const thresholdBytes = readThreshold(environment[PAYLOAD_STORE_VARIABLES.thresholdBytes], limitBytes);
  try {
    // A directory the operator made keeps its mode (it may be shared by a group on purpose); one made here is
    // the owner's alone, like the store's own folders.
    mkdirSync(directory, { recursive: true, mode: PAYLOAD_STORE_DIRECTORY_MODE });
    accessSync(directory, constants.R_OK | constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new CodecSettingsError(
      variable,
      `names a directory this process cannot read and write: ${directory}: ${code}`,
    );
  }
  return { store: new FilesystemPayloadStore(directory), thresholdBytes };
}

// The data converter workers, clients and the CLI share: encrypting payloads when a codec key is set. Node side.
import type { DataConverter } from '@temporalio/common';
import { AesGcmCodec } from './aes-gcm-codec';
import { readCodecKeyring, type CodecKeyring } from './codec-key';

/** The module exporting the failure converter that encrypts failure messages (see `failure-converter.ts`). */
export const ENCRYPTING_FAILURE_CONVERTER_PATH = require.resolve('./failure-converter');

/**
 * A data converter whose payloads are encrypted with `keyring` (the JSON payload converter underneath), and whose
 * failures keep their message and stack trace in an encrypted payload too.
 */
export function encryptingDataConverter(keyring: CodecKeyring): DataConverter {
  return {
    payloadCodecs: [new AesGcmCodec(keyring)],
    failureConverterPath: ENCRYPTING_FAILURE_CONVERTER_PATH,
  };
}

/**
 * The data converter from the environment: encrypting when `SWITCHYARD_CODEC_KEY` is set, else undefined (the
 * SDK's default). Throws `CodecKeyError` for a key variable that cannot be used, so a typo never silently
 * turns encryption off.
 */
export function dataConverterFromEnvironment(
  environment: NodeJS.ProcessEnv = process.env,
): DataConverter | undefined {
  const keyring = readCodecKeyring(environment);
  return keyring ? encryptingDataConverter(keyring) : undefined;
}

/** An explicit data converter if given, else the one from the environment. */
export function resolveDataConverter(explicit: DataConverter | undefined): DataConverter | undefined {
  return explicit ?? dataConverterFromEnvironment();
}

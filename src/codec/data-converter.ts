// The data converter workers, clients and the CLI share: encryption, the payload store, the size limit. Node side.
import type { DataConverter, PayloadCodec } from '@temporalio/common';
import { AesGcmCodec } from './aes-gcm-codec';
import { readCodecKeyring, type CodecKeyring } from './codec-key';
import { MissingKeyCodec } from './missing-key-codec';
import { PayloadLimitCodec } from './payload-limit-codec';
import { payloadLimitFromEnvironment, TEMPORAL_LIMITS } from './payload-limits';
import { MissingPayloadStoreCodec, PayloadStoreCodec } from './payload-store-codec';
import { payloadStoreFromEnvironment, type PayloadStoreSettings } from './payload-store-settings';

/** The module exporting the failure converter that encrypts failure messages (see `failure-converter.ts`). */
export const ENCRYPTING_FAILURE_CONVERTER_PATH = require.resolve('./failure-converter');

export interface SwitchyardDataConverterOptions {
  /** Encrypt every payload with AES-256-GCM. @default none: payloads are plaintext (encrypted ones fail clearly) */
  readonly keyring?: CodecKeyring;
  /** Keep payloads over a threshold outside history. @default none: references fail clearly */
  readonly payloadStore?: PayloadStoreSettings;
  /** The most one event's payloads may take, in bytes. @default 2097152, Temporal's `limit.blobSize.error` */
  readonly limitBytes?: number;
}

/**
 * The codecs in the order a data converter applies them when encoding (decoding runs them backwards): encrypt,
 * then move large (encrypted) payloads to the store, then refuse what is still too large for the server.
 */
export function switchyardPayloadCodecs(options: SwitchyardDataConverterOptions = {}): PayloadCodec[] {
  const { keyring, payloadStore } = options;
  return [
    keyring ? new AesGcmCodec(keyring) : new MissingKeyCodec(),
    payloadStore
      ? new PayloadStoreCodec(payloadStore.store, payloadStore.thresholdBytes)
      : new MissingPayloadStoreCodec(),
    new PayloadLimitCodec(
      options.limitBytes ?? TEMPORAL_LIMITS.blobSizeErrorBytes,
      payloadStore !== undefined,
    ),
  ];
}

/**
 * Switchyard's data converter: the JSON payload converter underneath, {@link switchyardPayloadCodecs} on top, and
 * with a keyring a failure converter whose messages and stack traces ride in an encrypted payload too.
 */
export function switchyardDataConverter(options: SwitchyardDataConverterOptions = {}): DataConverter {
  return {
    payloadCodecs: switchyardPayloadCodecs(options),
    ...(options.keyring ? { failureConverterPath: ENCRYPTING_FAILURE_CONVERTER_PATH } : {}),
  };
}

/** A data converter whose payloads are encrypted with `keyring`; see {@link switchyardDataConverter}. */
export function encryptingDataConverter(
  keyring: CodecKeyring,
  options: Omit<SwitchyardDataConverterOptions, 'keyring'> = {},
): DataConverter {
  return switchyardDataConverter({ ...options, keyring });
}

/**
 * The data converter from the environment: encrypting when `SWITCHYARD_CODEC_KEY` is set, storing large payloads
 * in `SWITCHYARD_PAYLOAD_STORE_DIR` when it is set, and always refusing payloads over the server's limit
 * (`SWITCHYARD_PAYLOAD_LIMIT_BYTES`, default 2 MiB) before they are sent. Throws `CodecSettingsError` (a
 * `CodecKeyError` for the keys) for a variable that cannot be used, so a typo never silently turns a feature off.
 */
export function dataConverterFromEnvironment(environment: NodeJS.ProcessEnv = process.env): DataConverter {
  const keyring = readCodecKeyring(environment);
  const limitBytes = payloadLimitFromEnvironment(environment);
  const payloadStore = payloadStoreFromEnvironment(limitBytes, environment);
  return switchyardDataConverter({
    limitBytes,
    ...(keyring ? { keyring } : {}),
    ...(payloadStore ? { payloadStore } : {}),
  });
}

/** An explicit data converter if given, else the one from the environment. */
export function resolveDataConverter(explicit: DataConverter | undefined): DataConverter {
  return explicit ?? dataConverterFromEnvironment();
}

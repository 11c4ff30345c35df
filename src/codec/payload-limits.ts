// The Temporal server's payload size limits, measuring payloads against them, and the refusal. Node side.
import { SwitchyardError } from '../config/branded-error';
import type { Payload } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { CodecSettingsError } from './codec-settings-error';

/**
 * Temporal's defaults (temporalio/temporal `common/dynamicconfig/constants.go`, the same in the dev server of
 * `temporal server start-dev`): `limit.blobSize.error`, the most one event's payloads may hold (a workflow input,
 * an activity input or result, a signal's arguments), and `limit.blobSize.warn`, above which the server logs a
 * warning. The front end's gRPC server keeps grpc-go's default of 4 MiB per received message: a request over it
 * is refused with `RESOURCE_EXHAUSTED` (which clients retry for a while) before the blob check even runs. In bytes.
 */
export const TEMPORAL_LIMITS = {
  blobSizeErrorBytes: 2 * 1024 * 1024,
  blobSizeWarnBytes: 512 * 1024,
  grpcMessageBytes: 4 * 1024 * 1024,
  /** `limit.historySize.error`: a run whose history grows past this is terminated. */
  historySizeErrorBytes: 50 * 1024 * 1024,
} as const;

/** Environment variables for the payload limit. */
export const PAYLOAD_LIMIT_VARIABLES = {
  /**
   * The most bytes one event's payloads may hold, as the server is configured (`limit.blobSize.error`).
   * @default 2097152
   */
  limitBytes: 'SWITCHYARD_PAYLOAD_LIMIT_BYTES',
} as const;

/** How to take large payloads out of history: the setting that turns the payload store on. */
export const STORE_SETTING =
  'store large payloads outside history: set SWITCHYARD_PAYLOAD_STORE_DIR to a directory shared by the ' +
  'workers and clients (docs/operations.md, "Large payloads")';

/** What to do about a payload that is too large, when no payload store is configured. */
export const STORE_REMEDY = `Shorten it, or ${STORE_SETTING}`;

/** Payloads that Temporal would refuse, caught before anything is sent. */
export class PayloadTooLargeError extends SwitchyardError {
  static override readonly brand: string = 'switchyard.PayloadTooLargeError';

  override readonly name = 'PayloadTooLargeError';
  constructor(
    /** What was too large, e.g. `the routed call's input`. */
    readonly what: string,
    /** Its size as it would be sent, in bytes. */
    readonly sizeBytes: number,
    /** The most it may be, in bytes. */
    readonly limitBytes: number,
    /** Why the limit is what it is. */
    reason = `Temporal refuses more in one event (limit.blobSize.error; ${PAYLOAD_LIMIT_VARIABLES.limitBytes} if the server sets another)`,
    remedy = STORE_REMEDY,
  ) {
    super(
      `${what} is ${sizeBytes.toLocaleString('en-US')} bytes, over the limit of ` +
        `${limitBytes.toLocaleString('en-US')} bytes: ${reason}. ${remedy}`,
    );
  }
}

const PayloadMessage = temporal.api.common.v1.Payload;

/** Bytes a protobuf varint length prefix takes at most for lengths below 2^35. */
const MAX_LENGTH_PREFIX = 5;

/**
 * An upper bound of the bytes `payload` takes as a `Payload` message, without serializing it: each field is its
 * content plus at most a tag byte and a length prefix.
 */
export function payloadSizeUpperBound(payload: Payload): number {
  let size = 1 + MAX_LENGTH_PREFIX + (payload.data?.length ?? 0);
  for (const [key, value] of Object.entries(payload.metadata ?? {})) {
    // A map entry is a nested message: its own tag and length, then the key and value fields.
    size +=
      2 * (1 + MAX_LENGTH_PREFIX) + Buffer.byteLength(key) + (value?.length ?? 0) + 1 + MAX_LENGTH_PREFIX;
  }
  return size;
}

/** The exact bytes `payload` takes as a `Payload` message. */
export function payloadSize(payload: Payload): number {
  return PayloadMessage.encode(payload).finish().length;
}

/**
 * The exact size of `payloads` as one `Payloads` field, the way the server measures a blob; exact work is done
 * only for a list whose upper bound reaches `atLeast`, so small payloads cost a few additions.
 */
export function payloadsSize(payloads: readonly Payload[], atLeast = 0): number {
  const bound = payloads.reduce(
    (sum, payload) => sum + 1 + MAX_LENGTH_PREFIX + payloadSizeUpperBound(payload),
    0,
  );
  if (bound < atLeast) return bound;
  return payloads.reduce((sum, payload) => {
    const size = payloadSize(payload);
    // Each repeated element: a tag byte and the varint of its length.
    return sum + 1 + varintLength(size) + size;
  }, 0);
}

function varintLength(value: number): number {
  let length = 1;
  for (let rest = value; rest >= 0x80; rest = Math.floor(rest / 0x80)) length += 1;
  return length;
}

/** The limit from {@link PAYLOAD_LIMIT_VARIABLES}, else Temporal's default; a bad value names the variable. */
export function payloadLimitFromEnvironment(environment: NodeJS.ProcessEnv = process.env): number {
  const variable = PAYLOAD_LIMIT_VARIABLES.limitBytes;
  const raw = environment[variable]?.trim();
  if (!raw) return TEMPORAL_LIMITS.blobSizeErrorBytes;
  const value = Number(raw);
  // Above the gRPC message cap the server refuses the whole request, so a larger limit could never be met.
  if (!/^\d+$/.test(raw) || value < 1024 || value > TEMPORAL_LIMITS.grpcMessageBytes)
    throw new CodecSettingsError(
      variable,
      `must be a whole number of bytes from 1024 to ${TEMPORAL_LIMITS.grpcMessageBytes} (the server's gRPC message cap), got "${raw}"`,
    );
  return value;
}

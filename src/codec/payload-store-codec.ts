// The claim-check codec: payloads over a threshold go to a payload store, history keeps a reference. Node side.
import { SwitchyardError } from '../config/branded-error';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { z } from 'zod';
import { payloadSizeUpperBound } from './payload-limits';
import { PayloadStoreError, type PayloadStore } from './payload-store';

/** The `encoding` metadata of a reference payload. */
export const PAYLOAD_REFERENCE_ENCODING = 'json/switchyard-payload-ref';

/** What a reference payload's data holds (JSON): where the payload is, and how large it is. */
export const PayloadReferenceSchema = z.object({
  /** The store's content address of the stored bytes (`sha256-<hex>`). */
  key: z.string(),
  /** Bytes of the stored `Payload` message. */
  sizeBytes: z.number().int().nonnegative(),
});
export type PayloadReference = z.infer<typeof PayloadReferenceSchema>;

const PayloadMessage = temporal.api.common.v1.Payload;
const textEncoder = new TextEncoder();
const textDecoder = new TextDecoder();

export function isReferencePayload(payload: Payload): boolean {
  const encoding = payload.metadata?.encoding;
  return (
    encoding !== undefined && encoding !== null && textDecoder.decode(encoding) === PAYLOAD_REFERENCE_ENCODING
  );
}

export function referencePayload(reference: PayloadReference): Payload {
  return {
    metadata: { encoding: textEncoder.encode(PAYLOAD_REFERENCE_ENCODING) },
    data: textEncoder.encode(JSON.stringify(reference)),
  };
}

/** The reference a reference payload holds; a malformed one is a {@link PayloadStoreError}. */
export function readReference(payload: Payload): PayloadReference {
  let json: unknown;
  try {
    json = JSON.parse(textDecoder.decode(payload.data ?? new Uint8Array()));
  } catch {
    json = undefined;
  }
  const parsed = PayloadReferenceSchema.safeParse(json);
  if (!parsed.success)
    throw new PayloadStoreError('(unreadable reference)', 'the reference payload is malformed');
  return parsed.data;
}

/**
 * Moves every payload of at least `thresholdBytes` (as encoded so far: after encryption, when the codec before
 * this one encrypts) into `store`, and leaves in its place a small reference payload naming its content address
 * and size. Decoding reads the bytes back, checks them against the address and size, and restores the payload
 * exactly, so the codecs before it (decryption) see what they wrote. With encryption on, the stored bytes are
 * the encrypted payload: the store only ever holds ciphertext, and the reference reveals nothing of the content.
 */
export class PayloadStoreCodec implements PayloadCodec {
  constructor(
    readonly store: PayloadStore,
    /** Payloads of this many bytes or more are stored outside history. */
    readonly thresholdBytes: number,
  ) {}

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return Promise.all(
      payloads.map(async (payload) => {
        if (payloadSizeUpperBound(payload) < this.thresholdBytes) return payload;
        const bytes = PayloadMessage.encode(payload).finish();
        if (bytes.length < this.thresholdBytes) return payload;
        const key = await this.store.put(bytes);
        return referencePayload({ key, sizeBytes: bytes.length });
      }),
    );
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return Promise.all(
      payloads.map(async (payload) => {
        if (!isReferencePayload(payload)) return payload;
        const reference = readReference(payload);
        const bytes = await this.store.get(reference.key);
        if (bytes.length !== reference.sizeBytes)
          throw new PayloadStoreError(
            reference.key,
            `holds ${bytes.length} bytes, the reference says ${reference.sizeBytes}`,
          );
        return PayloadMessage.decode(bytes);
      }),
    );
  }
}

/** A reference met by a process that has no payload store configured. */
export class PayloadStoreMissingError extends SwitchyardError {
  static override readonly brand: string = 'switchyard.PayloadStoreMissingError';

  override readonly name = 'PayloadStoreMissingError';
  constructor(readonly key: string) {
    super(
      `payload ${key} is stored outside history and SWITCHYARD_PAYLOAD_STORE_DIR is not set: set it to the ` +
        'directory the workers store payloads in',
    );
  }
}

/**
 * For processes without a payload store: payloads pass as they are, and a reference fails with an error that
 * names the missing setting, rather than an "Unknown encoding" from the payload converter.
 */
export class MissingPayloadStoreCodec implements PayloadCodec {
  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads;
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    for (const payload of payloads)
      if (isReferencePayload(payload)) throw new PayloadStoreMissingError(readReference(payload).key);
    return payloads;
  }
}

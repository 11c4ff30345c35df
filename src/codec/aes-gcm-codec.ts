// A PayloadCodec that encrypts each whole payload with AES-256-GCM, with key ids for rotation. Node side.
import { SwitchyardError } from '../config/branded-error';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { CODEC_KEY_VARIABLES, type CodecKeyring } from './codec-key';

/** The `encoding` metadata of an encrypted payload. */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
/** The metadata key naming the key a payload was encrypted with. */
export const KEY_ID_METADATA = 'encryption-key-id';

const CIPHER = 'aes-256-gcm';
/** 96-bit IVs are GCM's native size; a fresh random one per payload (safe for far more than 2^32 payloads per key). */
const IV_BYTES = 12;
const TAG_BYTES = 16;

const textEncoder = new TextEncoder();
const textDecoder = new TextDecoder();

/** A payload names a key this process does not hold. */
export class UnknownCodecKeyError extends SwitchyardError {
  static override readonly brand: string = 'switchyard.UnknownCodecKeyError';

  override readonly name = 'UnknownCodecKeyError';
  constructor(readonly keyId: string) {
    super(
      `payload is encrypted with key id "${keyId}", which this process does not have: set ` +
        `${CODEC_KEY_VARIABLES.key} to that key, or add it to ${CODEC_KEY_VARIABLES.oldKeys} as ${keyId}:<base64>`,
    );
  }
}

/** An encrypted payload that cannot be read: malformed, altered, or encrypted with another key under this id. */
export class PayloadDecryptionError extends SwitchyardError {
  static override readonly brand: string = 'switchyard.PayloadDecryptionError';

  override readonly name = 'PayloadDecryptionError';
  constructor(
    readonly keyId: string | undefined,
    readonly reason: string,
  ) {
    super(`cannot decrypt payload${keyId !== undefined ? ` (key id "${keyId}")` : ''}: ${reason}`);
  }
}

function metadataText(payload: Payload, key: string): string | undefined {
  const value = payload.metadata?.[key];
  return value ? textDecoder.decode(value) : undefined;
}

/** The key id as additional authenticated data: moving ciphertext under another id's label fails to decrypt. */
function associatedData(keyId: string): Buffer {
  return Buffer.from(`switchyard/aes-256-gcm/${keyId}`, 'utf8');
}

/**
 * Encrypts every payload (the whole `Payload` message: data and metadata, so not even the encoding shows) with
 * the keyring's current key; decrypts payloads marked {@link ENCRYPTED_ENCODING} with the key their
 * {@link KEY_ID_METADATA} names and passes others through unchanged, so history written before encryption was
 * turned on stays readable. Wire format of `data`: 12-byte IV, ciphertext, 16-byte GCM tag.
 */
export class AesGcmCodec implements PayloadCodec {
  constructor(private readonly keyring: CodecKeyring) {}

  /** The id of the key new payloads are encrypted with. */
  get currentKeyId(): string {
    return this.keyring.current.id;
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.encrypt(payload));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.decrypt(payload));
  }

  private encrypt(payload: Payload): Payload {
    const { id, material } = this.keyring.current;
    const plaintext = temporal.api.common.v1.Payload.encode(payload).finish();
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(CIPHER, material, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(associatedData(id));
    const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return {
      metadata: {
        encoding: textEncoder.encode(ENCRYPTED_ENCODING),
        [KEY_ID_METADATA]: textEncoder.encode(id),
      },
      data: Buffer.concat([iv, ciphertext, cipher.getAuthTag()]),
    };
  }

  private decrypt(payload: Payload): Payload {
    if (metadataText(payload, 'encoding') !== ENCRYPTED_ENCODING) return payload;
    const keyId = metadataText(payload, KEY_ID_METADATA);
    if (keyId === undefined) throw new PayloadDecryptionError(undefined, `no ${KEY_ID_METADATA} metadata`);
    const material = this.keyring.decodeKeys.get(keyId);
    if (!material) throw new UnknownCodecKeyError(keyId);
    const data = payload.data ?? new Uint8Array();
    if (data.length < IV_BYTES + TAG_BYTES)
      throw new PayloadDecryptionError(keyId, `${data.length} bytes is too short to be encrypted data`);
    const iv = data.subarray(0, IV_BYTES);
    const tag = data.subarray(data.length - TAG_BYTES);
    const ciphertext = data.subarray(IV_BYTES, data.length - TAG_BYTES);
    const decipher = createDecipheriv(CIPHER, material, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(associatedData(keyId));
    decipher.setAuthTag(tag);
    let plaintext: Buffer;
    try {
      plaintext = Buffer.concat([decipher.update(ciphertext), decipher.final()]);
    } catch {
      // node:crypto says only "Unsupported state or unable to authenticate data"; say what it means here.
      throw new PayloadDecryptionError(
        keyId,
        'authentication failed (the data was altered, or was encrypted with a different key under this id)',
      );
    }
    return temporal.api.common.v1.Payload.decode(plaintext);
  }
}

// A codec for processes without a codec key: plaintext passes, encrypted payloads fail naming the key. Node side.
import { SwitchyardError } from '../config/branded-error';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { ENCRYPTED_ENCODING, KEY_ID_METADATA } from './aes-gcm-codec';
import { CODEC_KEY_VARIABLES } from './codec-key';

const textDecoder = new TextDecoder();

/** An encrypted payload met by a process that has no codec key at all. */
export class CodecKeyMissingError extends SwitchyardError {
  static override readonly brand: string = 'switchyard.CodecKeyMissingError';

  override readonly name = 'CodecKeyMissingError';
  constructor(readonly keyId: string | undefined) {
    super(
      `payload is encrypted${keyId !== undefined ? ` with key id "${keyId}"` : ''} and ` +
        `${CODEC_KEY_VARIABLES.key} is not set: set it to the key the workers use`,
    );
  }
}

/**
 * Leaves payloads as they are, and turns the SDK's bare "Unknown encoding: binary/encrypted" into an error that
 * says which key is missing and where it goes. For readers such as the CLI when no key is configured.
 */
export class MissingKeyCodec implements PayloadCodec {
  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads;
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    for (const payload of payloads) {
      const encoding = payload.metadata?.encoding;
      if (encoding && textDecoder.decode(encoding) === ENCRYPTED_ENCODING) {
        const keyId = payload.metadata?.[KEY_ID_METADATA];
        throw new CodecKeyMissingError(keyId ? textDecoder.decode(keyId) : undefined);
      }
    }
    return payloads;
  }
}

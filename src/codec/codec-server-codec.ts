// The codec the codec server serves: decodes like the workers, encodes without ever writing to the payload store. Node side.
import type { Payload, PayloadCodec, SerializationContext } from '@temporalio/common';
import { PayloadCodecChain } from './codec-chain';
import { switchyardPayloadCodecs, type SwitchyardDataConverterOptions } from './data-converter';
import { payloadsSize, PayloadTooLargeError, TEMPORAL_LIMITS } from './payload-limits';

/** Why an over-limit `/encode` is refused rather than stored. */
const NO_STORE_REMEDY =
  'The codec server never writes to the payload store (its callers could otherwise fill the shared ' +
  'directory with bytes of their choosing); send a smaller payload';

/**
 * Refuses payloads over `limitBytes` with a message that says the store is not used, in place of the limit
 * codec's advice to turn the store on.
 */
class EncodeLimitCodec implements PayloadCodec {
  constructor(private readonly limitBytes: number) {}

  async encode(payloads: Payload[]): Promise<Payload[]> {
    const size = payloadsSize(payloads, this.limitBytes + 1);
    if (size > this.limitBytes)
      throw new PayloadTooLargeError(
        'the payloads to encode',
        size,
        this.limitBytes,
        undefined,
        NO_STORE_REMEDY,
      );
    return payloads;
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads;
  }
}

/**
 * Decodes with the workers' whole chain (stored references are read back, then decrypted), so the Web UI shows
 * what they wrote; encodes with encryption alone and refuses payloads over the limit. `/encode` is reachable by
 * anyone the server lets in (the UI's signal and query inputs go through it): writing its bytes into the shared
 * store would let a caller fill the directory, or plant content that workers then trust as their own.
 */
export class CodecServerCodec implements PayloadCodec {
  private readonly decoding: PayloadCodec;
  private readonly encoding: PayloadCodec;

  constructor(options: SwitchyardDataConverterOptions = {}) {
    this.decoding = new PayloadCodecChain(switchyardPayloadCodecs(options));
    const { keyring } = options;
    const [encryption] = switchyardPayloadCodecs(keyring ? { keyring } : {});
    this.encoding = new PayloadCodecChain([
      encryption!,
      new EncodeLimitCodec(options.limitBytes ?? TEMPORAL_LIMITS.blobSizeErrorBytes),
    ]);
  }

  encode(payloads: Payload[], context?: SerializationContext): Promise<Payload[]> {
    return this.encoding.encode(payloads, context);
  }

  decode(payloads: Payload[], context?: SerializationContext): Promise<Payload[]> {
    return this.decoding.decode(payloads, context);
  }
}

// Several payload codecs as one, in the data converter's order: for the codec server. Node side.
import type { Payload, PayloadCodec, SerializationContext } from '@temporalio/common';

/**
 * Encodes with each codec in order and decodes in reverse order, exactly as a `DataConverter` applies its
 * `payloadCodecs`, so the codec server (which takes one codec) decodes what workers and clients encoded.
 */
export class PayloadCodecChain implements PayloadCodec {
  constructor(readonly codecs: readonly PayloadCodec[]) {}

  async encode(payloads: Payload[], context?: SerializationContext): Promise<Payload[]> {
    let current = payloads;
    for (const codec of this.codecs) current = await codec.encode(current, context);
    return current;
  }

  async decode(payloads: Payload[], context?: SerializationContext): Promise<Payload[]> {
    let current = payloads;
    for (const codec of [...this.codecs].reverse()) current = await codec.decode(current, context);
    return current;
  }
}

// The last codec of the chain: refuses payloads the server would refuse, before anything is sent. Node side.
import type { Payload, PayloadCodec, SerializationContext } from '@temporalio/common';
import { payloadsSize, PayloadTooLargeError, STORE_REMEDY } from './payload-limits';

function describe(context: SerializationContext | undefined): string {
  if (context?.type === 'activity') {
    const kind = context.isLocal ? 'local activity' : 'activity';
    const id = context.activityId !== undefined ? ` ${context.activityId}` : '';
    const of = context.workflowId !== undefined ? ` of workflow ${context.workflowId}` : '';
    return `a payload of ${kind}${id}${of}`;
  }
  if (context?.type === 'workflow') return `a payload of workflow ${context.workflowId}`;
  return 'a payload';
}

/**
 * Measures each encoded `Payloads` field as the server will (after encryption and the payload store) and throws
 * {@link PayloadTooLargeError} for one over `limitBytes`: a client learns it before the request leaves, with the
 * size and the limit, instead of the server's bare "Blob data size exceeds limit" or a gRPC `RESOURCE_EXHAUSTED`
 * after a long retry. In a worker, an oversized activity result fails its attempt with this message, and an
 * oversized workflow command fails the workflow task (retried, so configuring a store lets it go on) rather than
 * the server terminating the workflow. Decoding passes everything through.
 */
export class PayloadLimitCodec implements PayloadCodec {
  constructor(
    /** The most one field's payloads may take, in bytes. */
    readonly limitBytes: number,
    /** A payload store is in front of this codec: payloads over its threshold are already references. */
    private readonly storeInFront = false,
  ) {}

  async encode(payloads: Payload[], context?: SerializationContext): Promise<Payload[]> {
    const size = payloadsSize(payloads, this.limitBytes + 1);
    if (size > this.limitBytes) {
      const remedy = this.storeInFront
        ? 'These payloads are each below SWITCHYARD_PAYLOAD_STORE_THRESHOLD_BYTES; lower it so they go to the store'
        : STORE_REMEDY;
      throw new PayloadTooLargeError(describe(context), size, this.limitBytes, undefined, remedy);
    }
    return payloads;
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads;
  }
}

// Where a streamed call's attempts push their output, and the wire format of a push. Workflow-safe (zod only).
import { z } from 'zod';
import { ProviderKindSchema } from './request';

/**
 * The gateway's relay for one streamed request, carried in the routed-call input. Whichever worker runs an
 * attempt pushes the answer's pieces there as they arrive. The token is a capability for this one request
 * only: the gateway accepts it while the request is open and forgets it when it ends, so its presence in
 * history grants nothing afterwards. No gateway key and no provider key ever goes here.
 */
export const RelayTargetSchema = z.object({
  /**
   * The gateway's own URL for this request (`http(s)://host[:port]/path`), reachable from the workers. No
   * credentials, query or fragment: the token travels in a header.
   */
  url: z
    .string()
    .max(2_000)
    .regex(
      /^https?:\/\/[^\s/?#@]+(\/[^\s?#]*)?$/,
      'a relay url is http(s)://host[:port]/path, without credentials, query or fragment',
    ),
  /** Random per-request token (URL-safe base64), sent back as `Authorization: Bearer <token>`. */
  token: z.string().regex(/^[A-Za-z0-9_-]{22,128}$/, 'a relay token is 22-128 URL-safe base64 characters'),
});
export type RelayTarget = z.infer<typeof RelayTargetSchema>;

export const OutputDeltaSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({
    type: z.literal('tool_call'),
    index: z.number().int().min(0).max(1_000),
    id: z.string().max(200).optional(),
    name: z.string().max(200).optional(),
    arguments: z.string(),
  }),
  z.object({
    type: z.literal('reasoning'),
    index: z.number().int().min(0).max(1_000),
    text: z.string(),
    origin: ProviderKindSchema.optional(),
    id: z.string().max(200).optional(),
    signature: z.string().optional(),
    redactedData: z.string().optional(),
  }),
]);

/** One push from an attempt to the gateway: the next pieces of its answer, in order. */
export const RelayBatchSchema = z.object({
  /** The attempt's activity id: unique within the call, so the gateway can tell one attempt from the next. */
  attemptId: z.string().min(1).max(100),
  /** The target the attempt calls, for the stream's `served-by` header. */
  target: z.object({ provider: z.string().min(1).max(200), model: z.string().min(1).max(200) }),
  /** 0, 1, 2 … per attempt; pushes are sent one at a time, so a repeat is recognised and ignored. */
  sequence: z.number().int().min(0),
  deltas: z.array(OutputDeltaSchema).min(1).max(100_000),
});
export type RelayBatch = z.infer<typeof RelayBatchSchema>;

/** What the gateway answers a push with (as HTTP status), and what the attempt makes of it. */
export const RelayReply = {
  /** Taken: the pieces went to the caller. */
  accepted: 200,
  /** Another attempt's output already reached the caller: this attempt must stop, and the call with it. */
  superseded: 409,
  /** The request is over (answered, or its caller left): stop pushing, finish the attempt as usual. */
  gone: 410,
  /**
   * The caller left and the gateway cancelled the call: stop the provider request now rather than on the
   * heartbeat that will bring the cancellation (every token until then is paid for nothing).
   */
  cancelled: 499,
} as const;

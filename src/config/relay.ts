// Where a streamed call's attempts push their output, and the wire format of a push. Workflow-safe (zod only).
import { z } from 'zod';
import { ProviderKindSchema, ReasoningPartSchema } from './request';

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
  /**
   * The gateway takes the whole answer from the attempt that got it, as soon as the call's history holds it, and
   * answers its caller before the call has written its record. Set for surfaces whose response needs nothing of
   * the record but the served target, the request count and the cost. @default false (the answer comes with the
   * call's result)
   */
  answer: z.literal(true).optional(),
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

const UsageSchema = z.object({
  inputTokens: z.number().int().min(0),
  cachedInputTokens: z.number().int().min(0),
  cacheWriteInputTokens: z.number().int().min(0).optional(),
  cacheWrite1hInputTokens: z.number().int().min(0).optional(),
  outputTokens: z.number().int().min(0),
  reasoningTokens: z.number().int().min(0).optional(),
  raw: z.record(z.string(), z.unknown()),
});

/** A whole answer as an attempt hands it to the gateway: the provider's result, as the call's result holds it. */
export const HandedAnswerSchema = z.object({
  text: z.string(),
  toolCalls: z.array(z.object({ id: z.string(), name: z.string(), arguments: z.string() })).max(1_000),
  reasoning: z.array(ReasoningPartSchema).max(1_000).optional(),
  finishReason: z.object({
    unified: z.enum(['stop', 'length', 'tool_calls', 'content_filter', 'refusal', 'other']),
    raw: z.string().nullable(),
  }),
  usage: UsageSchema,
  provider: z.string(),
  model: z.string(),
  requestId: z.string().nullable(),
});

/**
 * The push of a whole answer (a relay with `answer`): sent once the attempt's history holds the answer, so a call
 * whose worker dies after this push still ends with this answer. It carries what the response says of the call
 * besides the answer; the call's record follows when the call ends.
 */
export const RelayAnswerSchema = z.object({
  attemptId: z.string().min(1).max(100),
  target: z.object({ provider: z.string().min(1).max(200), model: z.string().min(1).max(200) }),
  answer: HandedAnswerSchema,
  /** The route's name, as the record will hold it. */
  route: z.string().max(1_000),
  /** Requests of this call before this attempt's: the record's `fallbacks`. */
  fallbacks: z.number().int().min(0),
  /** The call's cost with this attempt's, in nano-USD: the record's `totalCostNanoUsd`. */
  totalCostNanoUsd: z.number().int().min(0),
  /** When the call's first attempt started, epoch milliseconds: the response's creation time, as the record's. */
  createdAtMs: z.number().int().min(0),
});
export type RelayAnswer = z.infer<typeof RelayAnswerSchema>;

/** Anything an attempt pushes: the next pieces of its answer, or its whole answer. */
export const RelayPushSchema = z.union([RelayBatchSchema, RelayAnswerSchema]);
export type RelayPush = z.infer<typeof RelayPushSchema>;

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

// Fake provider scenarios: what one scripted request gets back. Plain JSON (zod schema), test/bench side.
import { z } from 'zod';

/**
 * Provider errors the fake can answer with, each rendered in the real status and body shape of the
 * provider that was called (see `error-catalog.ts`).
 */
export const FakeErrorName = {
  rateLimited: 'rate_limited',
  insufficientQuota: 'insufficient_quota',
  paymentRequired: 'payment_required',
  serverError: 'server_error',
  badGateway: 'bad_gateway',
  serviceUnavailable: 'service_unavailable',
  overloaded: 'overloaded',
  requestTimeout: 'request_timeout',
  gatewayTimeout: 'gateway_timeout',
  authentication: 'authentication',
  permission: 'permission',
  notFound: 'not_found',
  badRequest: 'bad_request',
  unprocessable: 'unprocessable',
  contextOverflow: 'context_overflow',
} as const;
export type FakeErrorName = (typeof FakeErrorName)[keyof typeof FakeErrorName];

const FAKE_ERROR_NAMES = Object.values(FakeErrorName) as [FakeErrorName, ...FakeErrorName[]];

const milliseconds = z.number().int().nonnegative();

/** The Responses wire's two ways of failing a stream it has started: an `error` event, or `response.failed`. */
export const FakeStreamErrorEvent = { error: 'error', failed: 'response.failed' } as const;
export type FakeStreamErrorEvent = (typeof FakeStreamErrorEvent)[keyof typeof FakeStreamErrorEvent];

/**
 * Where a response may echo the API key the request carried, as a misbehaving provider or gateway might:
 * `code` is the error's code (OpenAI `error.code`, Anthropic `error.details.error_code`), `request_id` the
 * request-id header (and Anthropic's body `request_id`), `body` the error message or the answer text.
 */
export const FakeKeyEcho = { code: 'code', requestId: 'request_id', body: 'body' } as const;
export type FakeKeyEcho = (typeof FakeKeyEcho)[keyof typeof FakeKeyEcho];

/** Fields every scenario accepts. */
const commonFields = {
  /** Wait this long before sending the status line, in milliseconds. @default the server's `latencyMs` */
  delayMs: milliseconds.optional(),
  /** Extra response headers. */
  headers: z.record(z.string(), z.string()).optional(),
  /** Echo the caller's API key in these places, to test that it is scrubbed. @default nowhere */
  echoApiKey: z.array(z.enum([FakeKeyEcho.code, FakeKeyEcho.requestId, FakeKeyEcho.body])).optional(),
};

export const FakeUsageSchema = z.object({
  /** Prompt tokens billed at the full input price (cached ones excluded). @default estimated from the prompt */
  inputTokens: z.number().int().nonnegative().optional(),
  /** Prompt tokens read from the provider's cache. @default 0 */
  cachedInputTokens: z.number().int().nonnegative().optional(),
  /** Prompt tokens written to a 5-minute cache (Anthropic `cache_creation.ephemeral_5m_input_tokens`). @default 0 */
  cacheWriteInputTokens: z.number().int().nonnegative().optional(),
  /** Prompt tokens written to a 1-hour cache (Anthropic `cache_creation.ephemeral_1h_input_tokens`). @default 0 */
  cacheWrite1hInputTokens: z.number().int().nonnegative().optional(),
  /** Of the output, reasoning tokens (OpenAI `completion_tokens_details.reasoning_tokens`). @default 0 */
  reasoningTokens: z.number().int().nonnegative().optional(),
  /** Generated tokens. @default estimated from the answer */
  outputTokens: z.number().int().nonnegative().optional(),
});
export type FakeUsage = z.infer<typeof FakeUsageSchema>;

export const FakeToolCallSchema = z.object({
  name: z.string(),
  /** The arguments object; sent as JSON text (OpenAI) or as an `input` object (Anthropic). */
  arguments: z.record(z.string(), z.unknown()),
});
export type FakeToolCall = z.infer<typeof FakeToolCallSchema>;

export const FakeScenarioSchema = z.discriminatedUnion('kind', [
  /** A successful answer. Without `text` and `toolCalls` the fake echoes the last user message. */
  z.object({
    kind: z.literal('answer'),
    text: z.string().optional(),
    toolCalls: z.array(FakeToolCallSchema).optional(),
    /**
     * The model's reasoning before its answer: Anthropic a signed `thinking` block (and `thinking_delta` /
     * `signature_delta` when streamed); OpenAI-compatible servers `reasoning_content`; Responses a `reasoning`
     * item, its summary (split at blank lines) only when `reasoning.summary` asks for one, its encrypted content
     * only when `include` asks for it. @default none
     */
    reasoning: z.string().optional(),
    /** Also send an Anthropic `redacted_thinking` block with this opaque data. @default none */
    redactedReasoning: z.string().optional(),
    usage: FakeUsageSchema.optional(),
    /** @default `tool_calls` when there are tool calls, `length` when the echo hit max tokens, else `stop` */
    finishReason: z.enum(['stop', 'length', 'tool_calls']).optional(),
    /** Pause between stream events, in milliseconds. @default 0 */
    chunkDelayMs: milliseconds.optional(),
    ...commonFields,
  }),
  /** A provider error in its real shape; `retryAfter*` become `retry-after` / `retry-after-ms` headers. */
  z.object({
    kind: z.literal('error'),
    error: z.enum(FAKE_ERROR_NAMES),
    /** `retry-after` header in seconds. */
    retryAfterSeconds: z.number().nonnegative().optional(),
    /** `retry-after` header as an HTTP date (RFC 9110 IMF-fixdate). */
    retryAfterDate: z.string().optional(),
    /** `retry-after-ms` header in milliseconds. */
    retryAfterMs: z.number().nonnegative().optional(),
    ...commonFields,
  }),
  /** Any status and body, sent as given (a string body is sent verbatim). */
  z.object({
    kind: z.literal('raw'),
    status: z.number().int().min(100).max(599),
    body: z.union([z.string(), z.record(z.string(), z.unknown())]),
    ...commonFields,
  }),
  /** Never send anything until the client gives up (or the server closes). */
  z.object({ kind: z.literal('hang'), ...commonFields }),
  /** Destroy the socket without a response (the client sees a connection reset). */
  z.object({ kind: z.literal('reset'), ...commonFields }),
  /** 200 with a JSON content type and a body that does not parse. */
  z.object({ kind: z.literal('invalid_json'), ...commonFields }),
  /** The model refuses: OpenAI `message.refusal`; Responses a `refusal` part; Anthropic `stop_reason: "refusal"`. */
  z.object({ kind: z.literal('refusal'), text: z.string().optional(), ...commonFields }),
  /**
   * The content filter stops the answer: OpenAI `finish_reason: "content_filter"`; Responses an `incomplete`
   * response whose reason is `content_filter`. Anthropic has no content filter stop reason, so there it renders
   * like `refusal`.
   */
  z.object({ kind: z.literal('content_filter'), ...commonFields }),
  /** 200 with no answer: OpenAI `choices: []`; Responses `output: []`; Anthropic `content: []`, `stop_reason: null`. */
  z.object({ kind: z.literal('empty_choices'), ...commonFields }),
  /**
   * Destroy the socket after `afterEvents` stream events. A JSON (non-stream) request gets half its
   * body and then the reset.
   */
  z.object({
    kind: z.literal('stream_cut'),
    afterEvents: z.number().int().nonnegative().optional(),
    ...commonFields,
  }),
  /**
   * A stream that ends cleanly but without its final events (OpenAI: no `finish_reason`, usage or
   * `[DONE]`; Responses: no `response.completed`; Anthropic: no `message_delta` / `message_stop`). A JSON request
   * gets a normal answer.
   */
  z.object({ kind: z.literal('stream_no_final_event'), ...commonFields }),
  /**
   * An error event inside a 200 stream after `afterEvents` events, in the provider's stream error shape.
   * A JSON request gets the error as an HTTP error instead.
   */
  z.object({
    kind: z.literal('stream_error'),
    error: z.enum(FAKE_ERROR_NAMES),
    afterEvents: z.number().int().nonnegative().optional(),
    /** Responses wire only: the event that carries the error. @default 'response.failed' */
    responsesEvent: z.enum([FakeStreamErrorEvent.error, FakeStreamErrorEvent.failed]).optional(),
    ...commonFields,
  }),
]);

/** One scripted response. Plain JSON, so it can also travel in the `x-fake-scenario` request header. */
export type FakeScenario = z.infer<typeof FakeScenarioSchema>;
export type FakeScenarioKind = FakeScenario['kind'];

// The provider-neutral contract every adapter implements. Worker side (adapters do I/O); types only here.
import { SwitchyardError } from '../config/branded-error';
import type { GenerationRequest, ProviderKind, ReasoningPart } from '../config/request';
import type { FailureClass } from '../config/failure-class';

export type { ProviderKind } from '../config/request';

/** Why generation stopped, normalized; `raw` keeps the provider's own value. */
export type UnifiedFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'refusal' | 'other';

export interface FinishReason {
  readonly unified: UnifiedFinishReason;
  readonly raw: string | null;
}

export interface Usage {
  /** Prompt tokens billed at the full input price (cache reads and cache writes excluded). */
  readonly inputTokens: number;
  /** Prompt tokens served from the provider's cache. */
  readonly cachedInputTokens: number;
  /** Prompt tokens written to a 5-minute cache (Anthropic), at the cache-write price. @default 0 */
  readonly cacheWriteInputTokens?: number;
  /** Prompt tokens written to a 1-hour cache (Anthropic), at the 1-hour cache-write price. @default 0 */
  readonly cacheWrite1hInputTokens?: number;
  /** Generated tokens, reasoning included. */
  readonly outputTokens: number;
  /** Of `outputTokens`, how many were reasoning, where the provider says. @default unknown */
  readonly reasoningTokens?: number;
  /** The provider's usage object as it came. */
  readonly raw: Record<string, unknown>;
}

export interface ToolCall {
  readonly id: string;
  readonly name: string;
  /** Arguments as the JSON text the model produced. */
  readonly arguments: string;
}

export interface GenerationResult {
  readonly text: string;
  readonly toolCalls: ToolCall[];
  /**
   * The model's reasoning, in the order it came, each part stamped with the kind that produced it (its
   * `origin`). Absent when there was none (and in answers recorded before reasoning was carried).
   */
  readonly reasoning?: ReasoningPart[];
  readonly finishReason: FinishReason;
  readonly usage: Usage;
  readonly provider: string;
  readonly model: string;
  /** The provider's request id (`x-request-id` / `request-id`), for support tickets. */
  readonly requestId: string | null;
}

/**
 * A piece of the answer as the provider streamed it: text, a piece of one tool call, or a piece of one reasoning
 * part. Tool calls are numbered by `index`, 0-based in the order they appear in the answer's `toolCalls`; `id`
 * and `name` come with a call's first piece, `arguments` is the next piece of its JSON text. Reasoning parts are
 * numbered likewise in the answer's `reasoning`: `text` is the next piece of its text; `signature` and
 * `redactedData` come whole, once.
 */
export type OutputDelta =
  | { readonly type: 'text'; readonly text: string }
  | {
      readonly type: 'tool_call';
      readonly index: number;
      readonly id?: string;
      readonly name?: string;
      readonly arguments: string;
    }
  | {
      readonly type: 'reasoning';
      readonly index: number;
      readonly text: string;
      /** The provider kind that produced the part (on every piece, so any piece can open its block). */
      readonly origin?: ProviderKind;
      readonly signature?: string;
      readonly redactedData?: string;
      /** The provider's own id of the part (an OpenAI Responses `rs_…` item), whole, once. */
      readonly id?: string;
    };

export interface CallOptions {
  /** Per-attempt deadline in milliseconds, passed to the SDK as its `timeout`. */
  readonly timeoutMs: number;
  /** Aborts the HTTP request (activity cancellation or the attempt's own deadline). */
  readonly signal?: AbortSignal;
  /** Stream the answer; `onProgress` is then called per received chunk (used to heartbeat). @default false */
  readonly stream?: boolean;
  readonly onProgress?: () => void;
  /** With `stream`, called with each piece of text or tool call as it arrives (not refusal text). */
  readonly onDelta?: (delta: OutputDelta) => void;
}

/** One configured provider endpoint (an API key and base URL) able to call any of its models. */
export interface LanguageModelProvider {
  /** The provider's name in the config (e.g. `openai`, `groq`). */
  readonly name: string;
  readonly kind: ProviderKind;
  /** Resolves with a normalized result, or rejects with a {@link ProviderError}. */
  generate(model: string, request: GenerationRequest, options: CallOptions): Promise<GenerationResult>;
}

/** A classified provider failure. Carries no message body from the provider beyond its code. */
export class ProviderError extends SwitchyardError {
  static override readonly brand: string = 'switchyard.ProviderError';

  override readonly name = 'ProviderError';
  constructor(
    message: string,
    readonly failureClass: FailureClass,
    readonly details: {
      /** HTTP status, when a response arrived. */
      readonly status?: number;
      /** Provider error `code` / `type` (e.g. `insufficient_quota`, `overloaded_error`). */
      readonly providerCode?: string;
      /** Parsed `retry-after-ms` / `retry-after`, in milliseconds. */
      readonly retryAfterMs?: number;
      readonly requestId?: string;
      /**
       * Whether the request may have reached the provider (and so may be billed). False only when it
       * certainly did not leave: connection refused, DNS failure, aborted before sending.
       */
      readonly requestSent: boolean;
      /**
       * Usage the provider reported although the attempt failed (a refusal or content-filter stop is a
       * billed 200), so the ledger can settle the real cost instead of the full reservation.
       */
      readonly usage?: Usage;
    },
  ) {
    super(message);
  }
}

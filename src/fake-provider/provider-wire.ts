// The contract between the fake provider's HTTP plumbing and one provider's wire format. Types only.
import type { FakeAnswer, FakeParsedRequest } from './answer';
import type { FakeErrorContext, FakeErrorResponse } from './error-catalog';
import type { FakeErrorName } from './scenario';

/** Which wire format a request used (chosen by its path). */
export type FakeProviderKind = 'openai' | 'anthropic';

/** Identifiers the server hands to a wire for one response. */
export interface FakeResponseIds {
  /** The response object's own id (`chatcmpl-...` / `msg_...`). */
  readonly responseId: string;
  /** Unix seconds, for OpenAI's `created`. */
  readonly created: number;
}

/** A stream split where "no final event" scenarios cut it: `finalEvents` carry the finish and usage. */
export interface FakeStreamEvents {
  readonly events: readonly string[];
  readonly finalEvents: readonly string[];
}

export interface ProviderWire {
  readonly provider: FakeProviderKind;
  /** The header the provider's SDK reads the request id from. */
  readonly requestIdHeader: string;
  /** A prefix for tool call ids (`call_` / `toolu_`). */
  readonly toolCallIdPrefix: string;
  /** Reads a request body; a string result is the message of a 400 the provider would send. */
  parseRequest(body: unknown): FakeParsedRequest | string;
  errorResponse(name: FakeErrorName, context: FakeErrorContext): FakeErrorResponse;
  /** The provider's 400 for a malformed request. */
  invalidRequestResponse(message: string, context: FakeErrorContext): FakeErrorResponse;
  jsonBody(answer: FakeAnswer, request: FakeParsedRequest, ids: FakeResponseIds): Record<string, unknown>;
  /** Server-sent events, each a complete `event:`/`data:` block ending in a blank line. */
  streamEvents(answer: FakeAnswer, request: FakeParsedRequest, ids: FakeResponseIds): FakeStreamEvents;
  /** An error delivered inside a 200 stream. */
  streamErrorEvent(name: FakeErrorName, context: FakeErrorContext): string;
}

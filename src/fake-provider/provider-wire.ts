// The contract between the fake provider's HTTP plumbing and one provider's wire format. Types only.
import type { FakeAnswer, FakeParsedRequest } from './answer';
import type { FakeErrorContext, FakeErrorResponse } from './error-catalog';
import type { FakeErrorName, FakeStreamErrorEvent } from './scenario';

/** Which wire format a request used (chosen by its path). */
export type FakeProviderKind = 'openai' | 'anthropic' | 'openai-responses';

/** Identifiers the server hands to a wire for one response. */
export interface FakeResponseIds {
  /** The response object's own id (`chatcmpl-...` / `msg_...` / `resp_...`). */
  readonly responseId: string;
  /** Unix seconds, for OpenAI's `created`. */
  readonly created: number;
}

/** A stream split where "no final event" scenarios cut it: `finalEvents` carry the finish and usage. */
export interface FakeStreamEvents {
  readonly events: readonly string[];
  readonly finalEvents: readonly string[];
}

/** Where a stream stands when a scripted error interrupts it. */
export interface FakeStreamPosition {
  /** How many answer events were sent before the error (the Responses wire numbers its events from 0). */
  readonly sent: number;
  readonly request: FakeParsedRequest;
  readonly ids: FakeResponseIds;
  /** Which event carries the error, on a wire that has more than one. */
  readonly event: FakeStreamErrorEvent | undefined;
}

export interface ProviderWire {
  readonly provider: FakeProviderKind;
  /** The header the provider's SDK reads the request id from. */
  readonly requestIdHeader: string;
  /** The prefix of the response object's id, before the request's serial (`chatcmpl-fake` / `msg_fake`). */
  readonly responseIdPrefix: string;
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
  streamErrorEvent(name: FakeErrorName, context: FakeErrorContext, position: FakeStreamPosition): string;
}

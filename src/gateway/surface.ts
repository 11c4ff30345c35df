// The shape of one HTTP surface (OpenAI Chat Completions, Anthropic Messages, OpenAI Responses): parse, answer, stream, fail. Node side.
import type { GenerationRequestInput } from '../config/request';
import type { RoutedCallInput } from '../config/routed-call-input';
import type { OutputDelta } from '../providers/types';
import type { RoutedCallResult } from '../routing/routing-record';
import type { GatewayError } from './gateway-error';
import type { RoutingSummary } from './routing-summary';

export type Answer = RoutedCallResult['answer'];

/** A surface request made neutral. */
export interface SurfaceRequest {
  /** The route the caller named in `model`; undefined for the default route. */
  readonly route?: string;
  readonly request: GenerationRequestInput;
  readonly stream: boolean;
  /** Whether the stream's last chunk carries usage (OpenAI asks with `stream_options.include_usage`). */
  readonly includeUsage: boolean;
  /**
   * Responses only: the response this one continues (`previous_response_id`). The gateway reads that call's
   * conversation back from Temporal and puts it before `request.messages`. @default none
   */
  readonly previousResponseId?: string;
  /** Responses only: whether the response may be read back or continued later (`store`). @default true */
  readonly store?: boolean;
  /**
   * Responses only: whether reasoning items carry their `encrypted_content`
   * (`include: ["reasoning.encrypted_content"]`). @default false
   */
  readonly encryptedReasoning?: boolean;
  /**
   * Labels the surface keeps with the call beside the gateway's own, for what its answer echoes and the neutral
   * request cannot hold (the Responses surface's metadata, say). Small values only: labels are shown with the
   * call. @default none
   */
  readonly labels?: Readonly<Record<string, string>>;
}

/** What every response of one call shares. */
export interface ResponseIdentity {
  /** The response's own id (`chatcmpl-…`, `msg_…`), derived from the workflow id. */
  readonly id: string;
  /** The served model id. */
  readonly model: string;
  /** Unix seconds. */
  readonly created: number;
  /** Unix seconds the call completed, when its record tells (a whole answer; not a stream). @default none */
  readonly completed?: number;
}

/** Renders one streamed response as SSE text, piece by piece. */
export interface StreamRenderer {
  /** The events before the first piece (OpenAI: the role chunk; Anthropic: `message_start`). */
  start(identity: ResponseIdentity): string;
  delta(delta: OutputDelta): string;
  /** The closing events: finish reason, usage, the routing metadata, the end marker. */
  finish(answer: Answer, routing: RoutingSummary): string;
  /** The surface's own error event, which ends the stream. */
  error(error: GatewayError, routing: RoutingSummary): string;
}

export interface Surface {
  readonly name: 'openai' | 'anthropic' | 'responses';
  /** The request field that bounds the answer's length, as errors about it name it (`max_tokens`). */
  readonly outputLimitField: string;
  /**
   * Whether a response needs nothing of the call's record beyond the served target, the request count and the
   * cost, so that the answer may go out as soon as its attempt hands it over, before the call has ended. A
   * surface whose responses are read back or continued from the record (Responses) waits for the call.
   */
  readonly answersBeforeRecord: boolean;
  /** Throws a {@link GatewayError} naming the field for anything the routed call cannot carry. */
  parse(body: unknown): SurfaceRequest;
  /**
   * The whole answer's body. `request` is the request as parsed; `input` the routed call's input as it started
   * (validated: the whole conversation, defaults applied, the labels).
   */
  answer(
    answer: Answer,
    identity: ResponseIdentity,
    routing: RoutingSummary,
    request: SurfaceRequest,
    input: RoutedCallInput,
  ): unknown;
  errorBody(error: GatewayError, routing?: RoutingSummary): unknown;
  streamRenderer(request: SurfaceRequest, input: RoutedCallInput): StreamRenderer;
}

/** One SSE event: an optional `event:` line, one `data:` line (JSON has no raw newlines), a blank line. */
export function sseEvent(data: unknown, event?: string): string {
  const text = typeof data === 'string' ? data : JSON.stringify(data);
  return `${event !== undefined ? `event: ${event}\n` : ''}data: ${text}\n\n`;
}

/** The routing metadata as it appears in bodies and final events. */
export function routingBody(routing: RoutingSummary | undefined): Record<string, unknown> | undefined {
  if (!routing) return undefined;
  return {
    workflow_id: routing.workflowId,
    ...(routing.route !== undefined ? { route: routing.route } : {}),
    ...(routing.servedBy !== undefined ? { served_by: routing.servedBy } : {}),
    ...(routing.fallbacks !== undefined ? { fallbacks: routing.fallbacks } : {}),
    ...(routing.costUsd !== undefined ? { cost_usd: routing.costUsd } : {}),
    ...(routing.cache !== undefined ? { cache: routing.cache } : {}),
  };
}

// One streamed gateway response: relayed pieces from one attempt only, then the answer's rest, or the error event. Node side.
import type { ServerResponse } from 'node:http';
import { RelayReply, type RelayAnswer, type RelayPush } from '../config/relay';
import type { ReasoningPart } from '../config/request';
import type { OutputDelta } from '../providers/types';
import type { RoutedCallResult } from '../routing/routing-record';
import { GatewayError, GatewayErrorKind } from './gateway-error';
import { answerOf } from './handed-answer';
import {
  ROUTING_HEADERS,
  routingHeaders,
  summaryOf,
  summaryOfHandedAnswer,
  type RoutingSummary,
} from './routing-summary';
import type { Answer, ResponseIdentity, StreamRenderer, Surface } from './surface';

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  // Proxies such as nginx would otherwise hold the pieces back.
  'x-accel-buffering': 'no',
} as const;

interface DeliveredTool {
  id?: string;
  name?: string;
  arguments: string;
}

interface DeliveredReasoning {
  text: string;
  signature?: string;
  redactedData?: string;
}

export interface StreamedResponseOptions {
  readonly surface: Surface;
  readonly renderer: StreamRenderer;
  readonly response: ServerResponse;
  readonly workflowId: string;
  /** The route the caller asked for (or the default route's name). */
  readonly route: string | undefined;
  /** Builds the response's id and model once the serving model is known. */
  readonly identity: (model: string) => ResponseIdentity;
}

/**
 * The caller sees nothing (not even the status line) until the first piece of output, so that any failure
 * before it — every failover included — can still be a plain HTTP error in the surface's shape. The first
 * attempt to push output owns the stream: pushes from any other attempt are answered `superseded`, which stops
 * that attempt and the call, so a second model's text never follows the first.
 */
export class StreamedResponse {
  private owner: string | undefined;
  private lastSequence = -1;
  private deliveredText = '';
  private readonly deliveredTools: DeliveredTool[] = [];
  private readonly deliveredReasoning: DeliveredReasoning[] = [];
  private servedBy: string | undefined;
  private ended = false;

  constructor(private readonly options: StreamedResponseOptions) {}

  /** Whether the status line and the first events went out. */
  get started(): boolean {
    return this.options.response.headersSent;
  }

  /** Whether the caller has gone, or the response ended. */
  get closed(): boolean {
    return this.ended || this.options.response.destroyed;
  }

  /** A push from an attempt; the answer is the relay status it gets. */
  accept(push: RelayPush): number {
    if ('answer' in push) return this.acceptAnswer(push);
    const batch = push;
    if (this.closed) return RelayReply.gone;
    if (this.owner === undefined) {
      this.owner = batch.attemptId;
      this.servedBy = `${batch.target.provider}/${batch.target.model}`;
      this.begin(batch.target.model);
    } else if (this.owner !== batch.attemptId) {
      return RelayReply.superseded;
    }
    // Pushes are sent one at a time: a sequence seen before is a retried push, already written.
    if (batch.sequence <= this.lastSequence) return RelayReply.accepted;
    this.lastSequence = batch.sequence;
    this.write(batch.deltas);
    return RelayReply.accepted;
  }

  /** The call answered: write whatever of it the relay did not carry, then the closing events. */
  finish(result: RoutedCallResult): void {
    if (this.closed) return;
    const routing = summaryOf(this.options.workflowId, this.options.route, result.record);
    this.complete(result.answer, routing, result.record.servedBy?.model ?? 'unknown', result);
  }

  /**
   * An attempt handed over its whole answer, recorded in history, before the call ended: the stream ends now
   * rather than after the call's record (which follows, and says the same).
   */
  private acceptAnswer(push: RelayAnswer): number {
    if (this.closed) return RelayReply.gone;
    if (this.owner !== undefined && this.owner !== push.attemptId) return RelayReply.superseded;
    this.complete(answerOf(push), summaryOfHandedAnswer(this.options.workflowId, push), push.target.model);
    return RelayReply.accepted;
  }

  private complete(answer: Answer, routing: RoutingSummary, model: string, result?: RoutedCallResult): void {
    if (this.owner !== undefined && routing.servedBy !== this.servedBy) {
      return this.fail(interrupted('the call was answered by another target than the one streamed'), result);
    }
    const rest = this.rest(answer);
    if (rest === undefined) {
      return this.fail(interrupted('the answer does not continue the output already streamed'), result);
    }
    if (!this.started) this.begin(model, routing);
    this.write(rest);
    this.end(this.options.renderer.finish(answer, routing));
  }

  /**
   * The call failed (or the gateway gave up waiting). Before any output it is a plain HTTP error in the
   * surface's shape; after, the surface's error event ends the stream.
   */
  fail(error: GatewayError, result?: RoutedCallResult): void {
    if (this.closed) return;
    const record = result?.record ?? error.context.record;
    const routing = summaryOf(this.options.workflowId, this.options.route, record);
    if (!this.started) {
      const { response, surface } = this.options;
      const body = JSON.stringify(surface.errorBody(error, routing));
      response.writeHead(error.status, {
        'content-type': 'application/json; charset=utf-8',
        ...routingHeaders(routing),
        [ROUTING_HEADERS.errorType]: error.code,
        ...(error.context.retryAfterSeconds !== undefined
          ? { 'retry-after': String(error.context.retryAfterSeconds) }
          : {}),
        ...(error.kind === GatewayErrorKind.unavailable ? {} : { 'x-should-retry': 'false' }),
      });
      this.ended = true;
      response.end(body);
      return;
    }
    this.end(this.options.renderer.error(error, routing));
  }

  private begin(model: string, routing?: RoutingSummary): void {
    const { response, workflowId, route } = this.options;
    response.writeHead(200, {
      ...SSE_HEADERS,
      ...routingHeaders(
        routing ?? {
          workflowId,
          ...(route !== undefined ? { route } : {}),
          ...(this.servedBy !== undefined ? { servedBy: this.servedBy } : {}),
        },
      ),
    });
    response.write(this.options.renderer.start(this.options.identity(model)));
  }

  private write(deltas: readonly OutputDelta[]): void {
    let text = '';
    for (const delta of deltas) {
      this.record(delta);
      text += this.options.renderer.delta(delta);
    }
    // One write per push: the pieces of a push arrived together, so they leave together.
    if (text !== '') this.options.response.write(text);
  }

  /** Keeps what a piece delivered, for {@link rest}. */
  private record(delta: OutputDelta): void {
    switch (delta.type) {
      case 'text':
        this.deliveredText += delta.text;
        return;
      case 'tool_call': {
        const tool = (this.deliveredTools[delta.index] ??= { arguments: '' });
        if (delta.id !== undefined) tool.id = delta.id;
        if (delta.name !== undefined) tool.name = delta.name;
        tool.arguments += delta.arguments;
        return;
      }
      case 'reasoning': {
        const part = (this.deliveredReasoning[delta.index] ??= { text: '' });
        part.text += delta.text;
        if (delta.signature !== undefined) part.signature = delta.signature;
        if (delta.redactedData !== undefined) part.redactedData = delta.redactedData;
        return;
      }
      default: {
        const unknown: never = delta;
        throw new Error(`unknown output delta ${(unknown as { type: string }).type}`);
      }
    }
  }

  /**
   * What the answer holds beyond what was streamed, in the answer's order (its reasoning, then its text, then
   * its tool calls); undefined when it does not continue what was streamed.
   */
  private rest(answer: Answer): OutputDelta[] | undefined {
    const rest = this.restOfReasoning(answer.reasoning ?? []);
    if (rest === undefined || !answer.text.startsWith(this.deliveredText)) return undefined;
    const text = answer.text.slice(this.deliveredText.length);
    if (text !== '') rest.push({ type: 'text', text });
    if (this.deliveredTools.length > answer.toolCalls.length) return undefined;
    for (const [index, call] of answer.toolCalls.entries()) {
      const delivered = this.deliveredTools[index];
      if (!delivered) {
        rest.push({ type: 'tool_call', index, id: call.id, name: call.name, arguments: call.arguments });
        continue;
      }
      if (!call.arguments.startsWith(delivered.arguments)) return undefined;
      const more = call.arguments.slice(delivered.arguments.length);
      if (more !== '') rest.push({ type: 'tool_call', index, arguments: more });
    }
    return rest;
  }

  /**
   * The reasoning parts' pieces not yet streamed: whole parts never started, and the rest of started ones (more
   * text; a signature or redacted data not yet sent). Undefined when a streamed part is not the start of the
   * answer's part, or the stream had parts the answer does not.
   */
  private restOfReasoning(reasoning: readonly ReasoningPart[]): OutputDelta[] | undefined {
    if (this.deliveredReasoning.length > reasoning.length) return undefined;
    const rest: OutputDelta[] = [];
    for (const [index, part] of reasoning.entries()) {
      const started = this.deliveredReasoning[index];
      const delivered = started ?? { text: '' };
      if (!part.text.startsWith(delivered.text)) return undefined;
      const signature = newWhole(delivered.signature, part.signature);
      const redactedData = newWhole(delivered.redactedData, part.redactedData);
      if (signature === false || redactedData === false) return undefined;
      const text = part.text.slice(delivered.text.length);
      // A part never streamed goes out even when empty: the caller learns it was there.
      if (started !== undefined && text === '' && signature === undefined && redactedData === undefined)
        continue;
      rest.push({
        type: 'reasoning',
        index,
        ...(part.origin !== undefined ? { origin: part.origin } : {}),
        // A part never streamed starts here, with the provider's id of it (as its first piece would carry it).
        ...(started === undefined && part.id !== undefined ? { id: part.id } : {}),
        text,
        ...(signature !== undefined ? { signature } : {}),
        ...(redactedData !== undefined ? { redactedData } : {}),
      });
    }
    return rest;
  }

  private end(text: string): void {
    this.ended = true;
    this.options.response.end(text);
  }
}

/**
 * A whole value (a signature, redacted data) the answer holds and the stream did not send yet: undefined when
 * there is nothing new, false when the stream sent a different one.
 */
function newWhole(delivered: string | undefined, answer: string | undefined): string | undefined | false {
  if (delivered === undefined) return answer;
  return delivered === answer ? undefined : false;
}

function interrupted(message: string): GatewayError {
  return new GatewayError(message, GatewayErrorKind.upstream, 'StreamInterrupted');
}

// A streamed routed call as OpenAI Responses events, numbered from 0, ending with the whole response. Node side.
import type { ProviderKind } from '../config/request';
import type { OutputDelta } from '../providers/types';
import type { GatewayError } from './gateway-error';
import { outputItemId } from './response-id';
import type { ResponseEcho } from './responses-echo';
import {
  functionCallItem,
  messageItem,
  outputTextPart,
  reasoningItem,
  reasoningItemId,
  responseBody,
  statusOf,
  usageOf,
  type ResponseState,
} from './responses-render';
import type { RoutingSummary } from './routing-summary';
import { sseEvent, type Answer, type ResponseIdentity, type StreamRenderer } from './surface';

/** One output item as the stream built it: its output index is its place in the list. */
type StreamItem =
  | { readonly kind: 'message'; readonly id: string; text: string; closed: boolean }
  | {
      readonly kind: 'function_call';
      readonly id: string;
      readonly of: number;
      readonly callId: string;
      readonly name: string;
      arguments: string;
      closed: boolean;
    }
  | {
      readonly kind: 'reasoning';
      readonly id: string;
      readonly of: number;
      text: string;
      signature?: string;
      redactedData?: string;
      origin?: ProviderKind;
      summaryStarted: boolean;
      closed: boolean;
    };

/**
 * The stream's events: `response.created` and `response.in_progress`, then each output item opened
 * (`output_item.added`, its part), its pieces, and closed (`.done` events, `output_item.done`) before the next
 * opens, as OpenAI streams them; then `response.completed` (or `response.incomplete`) with the whole response and
 * the routing metadata. A failure after the first piece ends it with `response.failed`. The response the stream
 * ends with is built from the items it streamed, so its ids and order are the events' own.
 */
export class ResponsesStreamRenderer implements StreamRenderer {
  private identity: ResponseIdentity | undefined;
  private sequence = 0;
  private readonly items: StreamItem[] = [];
  private open: StreamItem | undefined;

  constructor(
    private readonly echo: ResponseEcho,
    private readonly encryptedReasoning: boolean,
  ) {}

  private event(type: string, data: Record<string, unknown>): string {
    const text = sseEvent({ type, sequence_number: this.sequence, ...data }, type);
    this.sequence += 1;
    return text;
  }

  private get responseId(): string {
    return this.identity?.id ?? '';
  }

  private body(state: Omit<ResponseState, 'identity' | 'echo' | 'output'>): Record<string, unknown> {
    return responseBody({
      identity: this.identity ?? { id: '', model: 'unknown', created: 0 },
      echo: this.echo,
      output: this.items.map((item) => this.rendered(item, state.status === 'incomplete')),
      ...state,
    });
  }

  private rendered(item: StreamItem, cutShort = false) {
    switch (item.kind) {
      case 'message':
        return messageItem(
          item.id,
          item.closed ? (cutShort ? 'incomplete' : 'completed') : 'in_progress',
          item.text,
        );
      case 'function_call':
        return functionCallItem(
          { id: item.callId, name: item.name, arguments: item.arguments },
          item.id,
          item.closed ? 'completed' : 'in_progress',
        );
      case 'reasoning':
        return reasoningItem(item, item.id, this.encryptedReasoning);
      default:
        return item satisfies never;
    }
  }

  private indexOf(item: StreamItem): number {
    return this.items.indexOf(item);
  }

  private add(item: StreamItem, added: unknown): string {
    const closed = this.close();
    this.items.push(item);
    this.open = item;
    return (
      closed + this.event('response.output_item.added', { output_index: this.indexOf(item), item: added })
    );
  }

  /** Closes the open item; `cutShort` when the answer stopped at its length bound. */
  private close(cutShort = false): string {
    const item = this.open;
    if (!item) return '';
    this.open = undefined;
    item.closed = true;
    const at = { item_id: item.id, output_index: this.indexOf(item) };
    let text = '';
    switch (item.kind) {
      case 'message':
        text +=
          this.event('response.output_text.done', {
            ...at,
            content_index: 0,
            text: item.text,
            logprobs: [],
          }) +
          this.event('response.content_part.done', {
            ...at,
            content_index: 0,
            part: outputTextPart(item.text),
          });
        break;
      case 'function_call':
        text += this.event('response.function_call_arguments.done', {
          ...at,
          name: item.name,
          arguments: item.arguments,
        });
        break;
      case 'reasoning':
        if (item.summaryStarted) {
          const part = { type: 'summary_text', text: item.text };
          text +=
            this.event('response.reasoning_summary_text.done', { ...at, summary_index: 0, text: item.text }) +
            this.event('response.reasoning_summary_part.done', { ...at, summary_index: 0, part });
        }
        break;
      default:
        item satisfies never;
    }
    return (
      text +
      this.event('response.output_item.done', {
        output_index: at.output_index,
        item: this.rendered(item, cutShort),
      })
    );
  }

  start(identity: ResponseIdentity): string {
    this.identity = identity;
    const response = this.body({ status: 'in_progress', usage: null });
    return this.event('response.created', { response }) + this.event('response.in_progress', { response });
  }

  delta(delta: OutputDelta): string {
    switch (delta.type) {
      case 'text':
        return this.textDelta(delta.text);
      case 'tool_call':
        return this.toolCallDelta(delta);
      case 'reasoning':
        return this.reasoningDelta(delta);
      default:
        return delta satisfies never;
    }
  }

  private textDelta(piece: string): string {
    // One message holds the answer's text, as the whole response has it: text after a tool call goes on in it.
    let message = this.items.find((item) => item.kind === 'message');
    let text = '';
    if (!message) {
      message = { kind: 'message', id: outputItemId(this.responseId, 'msg', 0), text: '', closed: false };
      text += this.add(message, messageItem(message.id, 'in_progress'));
      text += this.event('response.content_part.added', {
        item_id: message.id,
        output_index: this.indexOf(message),
        content_index: 0,
        part: outputTextPart(''),
      });
    }
    if (piece === '') return text;
    message.text += piece;
    return (
      text +
      this.event('response.output_text.delta', {
        item_id: message.id,
        output_index: this.indexOf(message),
        content_index: 0,
        delta: piece,
        logprobs: [],
      })
    );
  }

  private toolCallDelta(delta: Extract<OutputDelta, { type: 'tool_call' }>): string {
    let call = this.items.find((item) => item.kind === 'function_call' && item.of === delta.index);
    let text = '';
    if (!call) {
      const opened: StreamItem = {
        kind: 'function_call',
        id: outputItemId(this.responseId, 'fc', delta.index),
        of: delta.index,
        callId: delta.id ?? `call_${delta.index}`,
        name: delta.name ?? '',
        arguments: '',
        closed: false,
      };
      call = opened;
      text += this.add(opened, this.rendered(opened));
    }
    if (call.kind !== 'function_call' || delta.arguments === '') return text;
    call.arguments += delta.arguments;
    return (
      text +
      this.event('response.function_call_arguments.delta', {
        item_id: call.id,
        output_index: this.indexOf(call),
        delta: delta.arguments,
      })
    );
  }

  private reasoningDelta(delta: Extract<OutputDelta, { type: 'reasoning' }>): string {
    let part = this.items.find((item) => item.kind === 'reasoning' && item.of === delta.index);
    let text = '';
    if (!part) {
      const opened: StreamItem = {
        kind: 'reasoning',
        id: reasoningItemId(this.responseId, delta.index, delta),
        of: delta.index,
        text: '',
        summaryStarted: false,
        closed: false,
        ...(delta.origin !== undefined ? { origin: delta.origin } : {}),
      };
      part = opened;
      text += this.add(opened, reasoningItem({ text: '' }, opened.id, false));
    }
    if (part.kind !== 'reasoning') return text;
    if (delta.origin !== undefined) part.origin = delta.origin;
    if (delta.signature !== undefined) part.signature = delta.signature;
    if (delta.redactedData !== undefined) part.redactedData = delta.redactedData;
    if (delta.text === '') return text;
    const at = { item_id: part.id, output_index: this.indexOf(part), summary_index: 0 };
    if (!part.summaryStarted) {
      part.summaryStarted = true;
      text += this.event('response.reasoning_summary_part.added', {
        ...at,
        part: { type: 'summary_text', text: '' },
      });
    }
    part.text += delta.text;
    return text + this.event('response.reasoning_summary_text.delta', { ...at, delta: delta.text });
  }

  finish(answer: Answer, routing: RoutingSummary): string {
    const { status, incomplete_details } = statusOf(answer.finishReason.unified);
    // An answer that said nothing still has its (empty) message, as the whole answer renders it.
    const opened = this.items.length === 0 ? this.textDelta('') : '';
    const closed = opened + this.close(status === 'incomplete');
    const response = this.body({
      status,
      usage: usageOf(answer),
      incompleteDetails: incomplete_details,
      ...(status === 'completed' ? { completedAt: Math.floor(Date.now() / 1000) } : {}),
      routing,
    });
    return (
      closed + this.event(status === 'completed' ? 'response.completed' : 'response.incomplete', { response })
    );
  }

  error(error: GatewayError, routing: RoutingSummary): string {
    // OpenAI's own end of a failed stream: the response, failed, with what it had produced so far.
    const response = this.body({
      status: 'failed',
      usage: null,
      error: { code: error.code, message: error.message },
      routing,
    });
    return this.event('response.failed', { response });
  }
}

// Gathers Responses API stream events into one response, relays its pieces, and checks the stream was complete.
// Worker side.
import { FailureClass } from '../../config/failure-class';
import { isRecord } from '../json-value';
import { providerFailure } from '../provider-failure';
import type { GenerationResult, OutputDelta } from '../types';
import {
  convertResponsesResponse,
  convertResponsesUsage,
  reasoningPartOf,
  responseFailure,
  type ResponseContext,
} from './convert-response';

/** One output item as the stream has shown it so far, keyed by its `output_index`. */
interface StreamedItem {
  readonly kind: 'message' | 'function_call' | 'reasoning' | 'other';
  /** The text, arguments or summary text relayed so far (summary parts joined by a blank line). */
  relayed: string;
  /** For a reasoning item: the summary part whose text was relayed last, or -1 before any. */
  summaryIndex: number;
  /** The item as `response.output_item.done` gave it. */
  done?: Record<string, unknown>;
}

function kindOf(item: Record<string, unknown>): StreamedItem['kind'] {
  return item.type === 'message' || item.type === 'function_call' || item.type === 'reasoning'
    ? item.type
    : 'other';
}

/** The text of a finished item that its pieces should join to. */
function finishedText(item: StreamedItem): string | undefined {
  const done = item.done;
  if (done === undefined) return undefined;
  switch (item.kind) {
    case 'message':
      return Array.isArray(done.content)
        ? done.content
            .flatMap((part: unknown) =>
              isRecord(part) && part.type === 'output_text' && typeof part.text === 'string'
                ? [part.text]
                : [],
            )
            .join('')
        : undefined;
    case 'function_call':
      return typeof done.arguments === 'string' ? done.arguments : undefined;
    case 'reasoning':
      return reasoningPartOf(done).text;
    case 'other':
      return undefined;
    default:
      return item.kind satisfies never;
  }
}

export class ResponsesStreamAccumulator {
  private readonly items = new Map<number, StreamedItem>();
  /** The response of the final `response.completed` or `response.incomplete` event. */
  private final: Record<string, unknown> | undefined;
  /** The failed response, or the `error` event, that ended the stream. */
  private failure: { readonly error: unknown; readonly usage: unknown } | undefined;

  /** @param onDelta receives each piece of text, tool call and reasoning as it arrives (the gateway's relay). */
  constructor(private readonly onDelta?: (delta: OutputDelta) => void) {}

  add(event: unknown): void {
    if (!isRecord(event) || this.final !== undefined || this.failure !== undefined) return;
    const outputIndex = typeof event.output_index === 'number' ? event.output_index : undefined;
    switch (event.type) {
      case 'response.completed':
      case 'response.incomplete':
        if (isRecord(event.response)) this.final = event.response;
        return;
      case 'response.failed': {
        const response = isRecord(event.response) ? event.response : {};
        this.failure = { error: response.error, usage: response.usage };
        return;
      }
      case 'error':
        // The event itself holds the code (its `type` is the event's, not an error type). An event with an
        // `error` object never gets here: the SDK throws it as an APIError.
        this.failure = { error: { code: event.code }, usage: undefined };
        return;
      case 'response.output_item.added':
        if (outputIndex !== undefined && isRecord(event.item)) this.open(outputIndex, event.item);
        return;
      case 'response.output_item.done':
        if (outputIndex !== undefined && isRecord(event.item)) this.close(outputIndex, event.item);
        return;
      case 'response.output_text.delta':
      case 'response.function_call_arguments.delta':
        if (outputIndex !== undefined && typeof event.delta === 'string')
          this.relay(outputIndex, event.delta);
        return;
      case 'response.reasoning_summary_text.delta':
        if (outputIndex !== undefined && typeof event.delta === 'string')
          this.relaySummary(outputIndex, event.summary_index, event.delta);
        return;
      default:
        // Lifecycle events, `.done` events whose text the deltas already carried, refusal text (never relayed).
        return;
    }
  }

  /** The whole answer, normalized like a JSON response; throws if the stream failed or never finished. */
  finish(context: ResponseContext): GenerationResult {
    if (this.failure !== undefined) {
      const usage = isRecord(this.failure.usage) ? convertResponsesUsage(this.failure.usage) : undefined;
      throw responseFailure(this.failure.error, context, usage);
    }
    if (this.final === undefined) {
      throw providerFailure(
        context.label,
        FailureClass.invalidResponse,
        { status: 200, requestSent: true, ...(context.requestId ? { requestId: context.requestId } : {}) },
        'stream ended without response.completed',
      );
    }
    const output = Array.isArray(this.final.output) ? this.final.output : [];
    // The final event repeats the whole output; should it come without, the finished items make it up.
    const gathered = [...this.items.entries()]
      .sort(([left], [right]) => left - right)
      .flatMap(([, item]) => (item.done !== undefined ? [item.done] : []));
    return convertResponsesResponse(
      { ...this.final, output: output.length > 0 ? output : gathered },
      context,
    );
  }

  /** Tool calls and reasoning parts are numbered by their place in the answer: among items of their kind. */
  private indexOf(outputIndex: number, kind: StreamedItem['kind']): number {
    return [...this.items.entries()].filter(([index, item]) => item.kind === kind && index < outputIndex)
      .length;
  }

  private open(outputIndex: number, added: Record<string, unknown>): StreamedItem {
    const existing = this.items.get(outputIndex);
    if (existing !== undefined) return existing;
    const item: StreamedItem = { kind: kindOf(added), relayed: '', summaryIndex: -1 };
    this.items.set(outputIndex, item);
    const index = this.indexOf(outputIndex, item.kind);
    if (item.kind === 'function_call') {
      // A call's first piece carries its id (the `call_id` its output names) and its name.
      this.onDelta?.({
        type: 'tool_call',
        index,
        id: typeof added.call_id === 'string' ? added.call_id : '',
        name: typeof added.name === 'string' ? added.name : '',
        arguments: '',
      });
    }
    if (item.kind === 'reasoning' && typeof added.id === 'string') {
      // Its `rs_…` id opens the part, so a surface can name the item before its text.
      this.onDelta?.({ type: 'reasoning', index, origin: 'openai-responses', text: '', id: added.id });
    }
    return item;
  }

  private relay(outputIndex: number, piece: string): void {
    const item = this.items.get(outputIndex);
    if (item === undefined || piece === '') return;
    item.relayed += piece;
    const index = this.indexOf(outputIndex, item.kind);
    switch (item.kind) {
      case 'message':
        return this.onDelta?.({ type: 'text', text: piece });
      case 'function_call':
        return this.onDelta?.({ type: 'tool_call', index, arguments: piece });
      case 'reasoning':
        return this.onDelta?.({ type: 'reasoning', index, origin: 'openai-responses', text: piece });
      case 'other':
        return;
      default:
        return item.kind satisfies never;
    }
  }

  /**
   * A piece of a summary part's text. The answer's reasoning text joins the parts with a blank line, so the first
   * piece of a later part brings the blank lines before it (one per part begun since the last text, empty ones
   * included).
   */
  private relaySummary(outputIndex: number, summaryIndex: unknown, piece: string): void {
    const item = this.items.get(outputIndex);
    if (item === undefined || piece === '') return;
    const part = typeof summaryIndex === 'number' ? summaryIndex : Math.max(item.summaryIndex, 0);
    const separators = item.summaryIndex < 0 ? part : part - item.summaryIndex;
    item.summaryIndex = part;
    this.relay(outputIndex, '\n\n'.repeat(Math.max(separators, 0)) + piece);
  }

  /**
   * A finished item. Whatever of its text no delta carried goes out now, so the pieces join to the answer; a
   * reasoning item's encrypted content comes whole, once, and closes the part.
   */
  private close(outputIndex: number, done: Record<string, unknown>): void {
    const item = this.open(outputIndex, done);
    item.done = done;
    const text = finishedText(item);
    if (text !== undefined && text.startsWith(item.relayed))
      this.relay(outputIndex, text.slice(item.relayed.length));
    if (item.kind === 'reasoning' && typeof done.encrypted_content === 'string') {
      this.onDelta?.({
        type: 'reasoning',
        index: this.indexOf(outputIndex, 'reasoning'),
        origin: 'openai-responses',
        text: '',
        signature: done.encrypted_content,
      });
    }
  }
}

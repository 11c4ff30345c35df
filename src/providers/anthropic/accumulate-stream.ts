// Gathers Anthropic stream events into one message and checks the stream was complete. Worker side.
import { FailureClass } from '../../config/failure-class';
import { isRecord } from '../json-value';
import { providerFailure } from '../provider-failure';
import type { GenerationResult, OutputDelta } from '../types';
import { convertAnthropicResponse, type ResponseContext } from './convert-response';

interface ContentBlock {
  type: string;
  text: string;
  id: string;
  name: string;
  /** Tool input as the JSON text streamed in `input_json_delta` pieces. */
  inputJson: string;
  /** For a `tool_use` block: its place among the answer's tool calls. */
  toolIndex?: number;
  /** For a `thinking` or `redacted_thinking` block: its place among the answer's reasoning parts. */
  reasoningIndex?: number;
  /** A `thinking` block's signature (from `signature_delta`). */
  signature?: string;
  /** A `redacted_thinking` block's opaque data. */
  data?: string;
}

export class AnthropicStreamAccumulator {
  private model: string | undefined;
  private usage: Record<string, unknown> = {};
  private stopReason: string | null = null;
  private started = false;
  private stopped = false;
  private readonly blocks = new Map<number, ContentBlock>();
  private toolBlocks = 0;
  private reasoningBlocks = 0;

  /** @param onDelta receives each piece of text, tool call and reasoning as it arrives (the gateway's relay). */
  constructor(private readonly onDelta?: (delta: OutputDelta) => void) {}

  add(event: unknown): void {
    if (!isRecord(event)) return;
    switch (event.type) {
      case 'message_start': {
        this.started = true;
        const message = isRecord(event.message) ? event.message : {};
        if (typeof message.model === 'string') this.model = message.model;
        if (isRecord(message.usage)) this.mergeUsage(message.usage);
        return;
      }
      case 'content_block_start':
        return this.startBlock(event);
      case 'content_block_delta':
        return this.addDelta(event);
      case 'message_delta': {
        const delta = isRecord(event.delta) ? event.delta : {};
        if (typeof delta.stop_reason === 'string') this.stopReason = delta.stop_reason;
        if (isRecord(event.usage)) this.mergeUsage(event.usage);
        return;
      }
      case 'message_stop':
        this.stopped = true;
        return;
    }
  }

  /** The whole answer, normalized like a JSON response; throws if the stream never finished. */
  finish(context: ResponseContext): GenerationResult {
    if (!this.started || !this.stopped) {
      throw providerFailure(
        context.label,
        FailureClass.invalidResponse,
        { status: 200, requestSent: true, ...(context.requestId ? { requestId: context.requestId } : {}) },
        'stream ended without message_stop',
      );
    }
    const content = [...this.blocks.entries()]
      .sort(([left], [right]) => left - right)
      .map(([, block]) => finishedBlock(block));
    return convertAnthropicResponse(
      { model: this.model, content, stop_reason: this.stopReason, usage: this.usage },
      context,
    );
  }

  /** `message_delta` usage is cumulative; later non-null counts replace earlier ones. */
  private mergeUsage(usage: Record<string, unknown>): void {
    for (const [field, value] of Object.entries(usage)) {
      if (value !== null && value !== undefined) this.usage[field] = value;
    }
  }

  private startBlock(event: Record<string, unknown>): void {
    if (typeof event.index !== 'number' || !isRecord(event.content_block)) return;
    const block = event.content_block;
    const started: ContentBlock = {
      type: typeof block.type === 'string' ? block.type : 'unknown',
      text: typeof block.text === 'string' ? block.text : '',
      id: typeof block.id === 'string' ? block.id : '',
      name: typeof block.name === 'string' ? block.name : '',
      inputJson: '',
    };
    this.blocks.set(event.index, started);
    if (started.type === 'text' && started.text !== '') this.onDelta?.({ type: 'text', text: started.text });
    if (started.type === 'thinking' || started.type === 'redacted_thinking') {
      started.reasoningIndex = this.reasoningBlocks;
      this.reasoningBlocks += 1;
      const thinking = typeof block.thinking === 'string' ? block.thinking : '';
      const signature =
        typeof block.signature === 'string' && block.signature !== '' ? block.signature : undefined;
      const data = typeof block.data === 'string' ? block.data : undefined;
      started.text = thinking;
      if (signature !== undefined) started.signature = signature;
      if (data !== undefined) started.data = data;
      // A redacted block arrives whole at its start; a thinking block usually starts empty.
      if (thinking !== '' || signature !== undefined || data !== undefined) {
        this.onDelta?.({
          type: 'reasoning',
          index: started.reasoningIndex,
          origin: 'anthropic',
          text: thinking,
          ...(signature !== undefined ? { signature } : {}),
          ...(data !== undefined ? { redactedData: data } : {}),
        });
      }
    }
    if (started.type === 'tool_use') {
      started.toolIndex = this.toolBlocks;
      this.toolBlocks += 1;
      this.onDelta?.({
        type: 'tool_call',
        index: started.toolIndex,
        id: started.id,
        name: started.name,
        arguments: '',
      });
    }
  }

  private addDelta(event: Record<string, unknown>): void {
    const block = typeof event.index === 'number' ? this.blocks.get(event.index) : undefined;
    if (!block || !isRecord(event.delta)) return;
    if (event.delta.type === 'text_delta' && typeof event.delta.text === 'string') {
      block.text += event.delta.text;
      if (block.type === 'text' && event.delta.text !== '')
        this.onDelta?.({ type: 'text', text: event.delta.text });
    }
    if (event.delta.type === 'thinking_delta' && typeof event.delta.thinking === 'string') {
      block.text += event.delta.thinking;
      if (block.reasoningIndex !== undefined && event.delta.thinking !== '')
        this.onDelta?.({
          type: 'reasoning',
          index: block.reasoningIndex,
          origin: 'anthropic',
          text: event.delta.thinking,
        });
    }
    if (event.delta.type === 'signature_delta' && typeof event.delta.signature === 'string') {
      // The signature comes whole, in one delta, after the block's text.
      block.signature = event.delta.signature;
      if (block.reasoningIndex !== undefined)
        this.onDelta?.({
          type: 'reasoning',
          index: block.reasoningIndex,
          origin: 'anthropic',
          text: '',
          signature: event.delta.signature,
        });
    }
    if (event.delta.type === 'input_json_delta' && typeof event.delta.partial_json === 'string') {
      block.inputJson += event.delta.partial_json;
      if (block.toolIndex !== undefined && event.delta.partial_json !== '')
        this.onDelta?.({ type: 'tool_call', index: block.toolIndex, arguments: event.delta.partial_json });
    }
  }
}

/** A gathered block in the shape of a JSON message's content block. */
function finishedBlock(block: ContentBlock): Record<string, unknown> {
  switch (block.type) {
    case 'tool_use':
      return {
        type: 'tool_use',
        id: block.id,
        name: block.name,
        input: block.inputJson === '' ? '{}' : block.inputJson,
      };
    case 'thinking':
      return {
        type: 'thinking',
        thinking: block.text,
        ...(block.signature !== undefined ? { signature: block.signature } : {}),
      };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: block.data ?? '' };
    default:
      return { type: block.type, text: block.text };
  }
}

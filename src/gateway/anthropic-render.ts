// A routed call's answer in Anthropic Messages shapes: content blocks, usage, stop reason, and the stream's events. Node side.
import type { ProviderKind, ReasoningPart } from '../config/request';
import type { OutputDelta, UnifiedFinishReason } from '../providers/types';
import { thinkingOrigin } from './anthropic-thinking-origin';
import type { GatewayError } from './gateway-error';
import type { RoutingSummary } from './routing-summary';
import { routingBody, sseEvent, type Answer, type ResponseIdentity, type StreamRenderer } from './surface';

export const STOP_REASONS: Readonly<Record<UnifiedFinishReason, string>> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  content_filter: 'refusal',
  refusal: 'refusal',
  other: 'end_turn',
};

/** Anthropic's usage: `input_tokens` is the uncached input, cache reads and writes are counted beside it. */
export function usageOf(answer: Answer) {
  const write5m = answer.usage.cacheWriteInputTokens ?? 0;
  const write1h = answer.usage.cacheWrite1hInputTokens ?? 0;
  return {
    input_tokens: answer.usage.inputTokens,
    cache_read_input_tokens: answer.usage.cachedInputTokens,
    cache_creation_input_tokens: write5m + write1h,
    cache_creation: { ephemeral_5m_input_tokens: write5m, ephemeral_1h_input_tokens: write1h },
    output_tokens: answer.usage.outputTokens,
  };
}

function parsedInput(argumentsText: string): unknown {
  try {
    return JSON.parse(argumentsText === '' ? '{}' : argumentsText);
  } catch {
    return {};
  }
}

function reasoningBlock(part: ReasoningPart): Record<string, unknown> {
  // Redacted data is Anthropic's alone (only its adapter produces it); anything else is marked foreign.
  if (part.redactedData !== undefined && part.origin === 'anthropic') {
    return { type: 'redacted_thinking', data: part.redactedData };
  }
  return { type: 'thinking', thinking: part.text, signature: thinkingOrigin.signatureOf(part) };
}

/** The answer's content blocks in Anthropic's order: thinking, then text, then tool calls. */
export function answerContent(answer: Answer): Record<string, unknown>[] {
  return [
    ...(answer.reasoning ?? []).map(reasoningBlock),
    ...(answer.text !== '' ? [{ type: 'text', text: answer.text }] : []),
    ...answer.toolCalls.map((call) => ({
      type: 'tool_use',
      id: call.id,
      name: call.name,
      input: parsedInput(call.arguments),
    })),
  ];
}

/** The open content block: its index, and what it holds (a tool call or reasoning part by its index). */
type OpenBlock =
  | { readonly index: number; readonly kind: 'text' }
  | { readonly index: number; readonly kind: 'tool'; readonly of: number }
  | {
      readonly index: number;
      readonly kind: 'thinking';
      readonly of: number;
      readonly origin?: ProviderKind;
      signature?: string;
    }
  | { readonly index: number; readonly kind: 'redacted'; readonly of: number };

/**
 * The stream's events. One content block is open at a time; a piece of another kind (or another tool call or
 * reasoning part) closes it and opens the next. A thinking block's signature goes out as one `signature_delta`
 * just before the block closes.
 */
export class AnthropicStreamRenderer implements StreamRenderer {
  private block: OpenBlock | undefined;
  private blocks = 0;

  constructor(private readonly errorBody: (error: GatewayError, routing: RoutingSummary) => unknown) {}

  private event(type: string, data: Record<string, unknown>): string {
    return sseEvent({ type, ...data }, type);
  }

  private closeBlock(): string {
    const block = this.block;
    if (!block) return '';
    this.block = undefined;
    let text = '';
    if (block.kind === 'thinking') {
      // Anthropic's thinking keeps its signature; any other kind's is marked with its origin, so that a client
      // sending it back is never taken to hold Anthropic's signed thinking.
      // A piece without its origin (a relay from an older worker) that carries a signature is Anthropic's: no
      // other kind signs its thinking.
      const origin = block.origin ?? (block.signature !== undefined ? 'anthropic' : undefined);
      const signature = thinkingOrigin.signatureOf({
        ...(block.signature !== undefined ? { signature: block.signature } : {}),
        ...(origin !== undefined ? { origin } : {}),
      });
      text += this.event('content_block_delta', {
        index: block.index,
        delta: { type: 'signature_delta', signature },
      });
    }
    return text + this.event('content_block_stop', { index: block.index });
  }

  private openBlock(contentBlock: Record<string, unknown>, block: OpenBlock): string {
    const closed = this.closeBlock();
    this.block = block;
    this.blocks += 1;
    return closed + this.event('content_block_start', { index: block.index, content_block: contentBlock });
  }

  private blockDelta(delta: Record<string, unknown>): string {
    return this.event('content_block_delta', { index: this.block!.index, delta });
  }

  start(identity: ResponseIdentity): string {
    return this.event('message_start', {
      message: {
        id: identity.id,
        type: 'message',
        role: 'assistant',
        model: identity.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        // The input count is known only when the answer is complete: message_delta carries it.
        usage: { input_tokens: 0, output_tokens: 0 },
      },
    });
  }

  delta(delta: OutputDelta): string {
    switch (delta.type) {
      case 'text': {
        const opened =
          this.block?.kind === 'text'
            ? ''
            : this.openBlock({ type: 'text', text: '' }, { index: this.blocks, kind: 'text' });
        return opened + this.blockDelta({ type: 'text_delta', text: delta.text });
      }
      case 'tool_call': {
        const open = this.block?.kind === 'tool' && this.block.of === delta.index;
        const opened = open
          ? ''
          : this.openBlock(
              { type: 'tool_use', id: delta.id ?? `toolu_${delta.index}`, name: delta.name ?? '', input: {} },
              { index: this.blocks, kind: 'tool', of: delta.index },
            );
        if (delta.arguments === '') return opened;
        return opened + this.blockDelta({ type: 'input_json_delta', partial_json: delta.arguments });
      }
      case 'reasoning':
        return this.reasoningDelta(delta);
      default:
        return delta satisfies never;
    }
  }

  private reasoningDelta(delta: Extract<OutputDelta, { type: 'reasoning' }>): string {
    if (delta.redactedData !== undefined) {
      // A redacted block comes whole: its start carries the data.
      return this.openBlock(
        { type: 'redacted_thinking', data: delta.redactedData },
        { index: this.blocks, kind: 'redacted', of: delta.index },
      );
    }
    let text = '';
    if (this.block?.kind !== 'thinking' || this.block.of !== delta.index) {
      text += this.openBlock(
        { type: 'thinking', thinking: '', signature: '' },
        {
          index: this.blocks,
          kind: 'thinking',
          of: delta.index,
          ...(delta.origin !== undefined ? { origin: delta.origin } : {}),
        },
      );
    }
    if (delta.text !== '') text += this.blockDelta({ type: 'thinking_delta', thinking: delta.text });
    if (delta.signature !== undefined && this.block?.kind === 'thinking')
      this.block.signature = delta.signature;
    return text;
  }

  finish(answer: Answer, routing: RoutingSummary): string {
    return (
      this.closeBlock() +
      this.event('message_delta', {
        delta: { stop_reason: STOP_REASONS[answer.finishReason.unified], stop_sequence: null },
        usage: usageOf(answer),
        switchyard: routingBody(routing),
      }) +
      this.event('message_stop', {})
    );
  }

  error(error: GatewayError, routing: RoutingSummary): string {
    return sseEvent(this.errorBody(error, routing), 'error');
  }
}

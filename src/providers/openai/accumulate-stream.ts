// Gathers OpenAI chat completion chunks into one completion and checks the stream was complete. Worker side.
import { FailureClass } from '../../config/failure-class';
import { isRecord } from '../json-value';
import { providerFailure } from '../provider-failure';
import type { GenerationResult, OutputDelta } from '../types';
import { convertOpenAIResponse, reasoningTextOf, type ResponseContext } from './convert-response';

interface PartialToolCall {
  id: string;
  name: string;
  arguments: string;
}

export class OpenAIStreamAccumulator {
  private text = '';
  /** Reasoning text from a compatible server; one reasoning part (index 0) in the answer. */
  private reasoning = '';
  private refusal = '';
  private finishReason: string | null = null;
  private usage: unknown = undefined;
  private model: string | undefined;
  /** Tool calls arrive in pieces keyed by their `index`. */
  private readonly toolCalls = new Map<number, PartialToolCall>();

  /**
   * @param kind the endpoint's kind: OpenAI itself always honours `stream_options.include_usage`, so its stream
   *   must end with usage; compatible servers may ignore it. Reasoning pieces are stamped with it as their origin.
   * @param onDelta receives each piece of text and tool call as it arrives (the gateway's relay).
   */
  constructor(
    private readonly kind: 'openai' | 'openai-compatible',
    private readonly onDelta?: (delta: OutputDelta) => void,
  ) {}

  private get requireUsage(): boolean {
    return this.kind === 'openai';
  }

  add(chunk: unknown): void {
    if (!isRecord(chunk)) return;
    if (typeof chunk.model === 'string') this.model = chunk.model;
    if (isRecord(chunk.usage)) this.usage = chunk.usage;
    const choice: unknown = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
    if (!isRecord(choice)) return;
    if (typeof choice.finish_reason === 'string') this.finishReason = choice.finish_reason;
    const delta = choice.delta;
    if (!isRecord(delta)) return;
    const reasoning = reasoningTextOf(delta);
    if (reasoning !== undefined && reasoning !== '') {
      this.reasoning += reasoning;
      // Chat Completions streams at most one reasoning text, so it is always the answer's part 0.
      this.onDelta?.({ type: 'reasoning', index: 0, origin: this.kind, text: reasoning });
    }
    if (typeof delta.content === 'string') {
      this.text += delta.content;
      if (delta.content !== '') this.onDelta?.({ type: 'text', text: delta.content });
    }
    if (typeof delta.refusal === 'string') this.refusal += delta.refusal;
    if (Array.isArray(delta.tool_calls)) {
      for (const piece of delta.tool_calls as unknown[]) this.addToolCallPiece(piece);
    }
  }

  /** The whole answer, normalized like a JSON response; throws if the stream never finished. */
  finish(context: ResponseContext): GenerationResult {
    if (this.finishReason === null || (this.requireUsage && this.usage === undefined)) {
      throw providerFailure(
        context.label,
        FailureClass.invalidResponse,
        { status: 200, requestSent: true, ...(context.requestId ? { requestId: context.requestId } : {}) },
        this.finishReason === null ? 'stream ended without a finish reason' : 'stream ended without usage',
      );
    }
    const toolCalls = [...this.toolCalls.entries()]
      .sort(([left], [right]) => left - right)
      .map(([, call]) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: call.arguments },
      }));
    return convertOpenAIResponse(
      {
        model: this.model,
        choices: [
          {
            message: {
              content: this.text,
              refusal: this.refusal === '' ? null : this.refusal,
              ...(this.reasoning !== '' ? { reasoning_content: this.reasoning } : {}),
              ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
            },
            finish_reason: this.finishReason,
          },
        ],
        usage: this.usage,
      },
      context,
    );
  }

  private addToolCallPiece(piece: unknown): void {
    if (!isRecord(piece) || typeof piece.index !== 'number') return;
    const position = piece.index;
    const call = this.toolCalls.get(piece.index) ?? { id: '', name: '', arguments: '' };
    if (typeof piece.id === 'string') call.id = piece.id;
    const functionPart = isRecord(piece.function) ? piece.function : {};
    if (typeof functionPart.name === 'string') call.name += functionPart.name;
    if (typeof functionPart.arguments === 'string') call.arguments += functionPart.arguments;
    this.toolCalls.set(piece.index, call);
    if (this.onDelta) {
      this.onDelta({
        type: 'tool_call',
        // Tool calls are numbered by their place in the answer, which sorts them by the provider's index.
        index: [...this.toolCalls.keys()].filter((index) => index < position).length,
        ...(typeof piece.id === 'string' ? { id: piece.id } : {}),
        ...(typeof functionPart.name === 'string' ? { name: functionPart.name } : {}),
        arguments: typeof functionPart.arguments === 'string' ? functionPart.arguments : '',
      });
    }
  }
}

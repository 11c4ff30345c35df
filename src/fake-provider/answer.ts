// The provider-neutral answer the fake sends, built from a request and its scenario. Pure; test/bench side.
import type { FakeScenario } from './scenario';

/** What the fake read from a request, whichever wire format it came in. */
export interface FakeParsedRequest {
  readonly model: string;
  readonly stream: boolean;
  /** `max_tokens` / `max_completion_tokens` as sent, if any. */
  readonly maxTokens: number | undefined;
  /** OpenAI `stream_options.include_usage`; Anthropic streams always carry usage. */
  readonly includeUsage: boolean;
  /** Every prompt text (system and messages) joined, for the input token estimate. */
  readonly promptText: string;
  /** The last user message's text, which the default answer echoes. */
  readonly lastUserText: string;
  /** The body as received, for a wire whose answers repeat request fields (Responses). @default absent */
  readonly body?: Readonly<Record<string, unknown>>;
}

export type FakeFinish = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'refusal';

export interface FakeAnswerToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: Record<string, unknown>;
}

export interface FakeAnswerUsage {
  /** Uncached prompt tokens (cache writes excluded). */
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  readonly cacheWriteInputTokens: number;
  readonly cacheWrite1hInputTokens: number;
  readonly outputTokens: number;
  readonly reasoningTokens: number;
}

export interface FakeAnswer {
  readonly text: string;
  /** Reasoning text sent before the answer, if any. */
  readonly reasoning: string | undefined;
  /** Opaque data of a redacted reasoning block, if any. */
  readonly redactedReasoning: string | undefined;
  readonly toolCalls: readonly FakeAnswerToolCall[];
  readonly finish: FakeFinish;
  /** The refusal explanation when `finish` is `refusal`. */
  readonly refusal: string | undefined;
  /** Send no choice / content at all (an invalid response). */
  readonly empty: boolean;
  readonly usage: FakeAnswerUsage;
}

/** Scenarios that end in a 200 answer body (possibly a broken one). */
export type AnsweringScenario = Extract<
  FakeScenario,
  { kind: 'answer' | 'refusal' | 'content_filter' | 'empty_choices' | 'stream_cut' | 'stream_no_final_event' }
>;

const DEFAULT_REFUSAL = "I'm sorry, but I can't help with that request.";

/** A rough tokenizer: about four characters per token, at least one token for any text. */
export function estimateTokens(text: string): number {
  return text.length === 0 ? 0 : Math.max(1, Math.ceil(text.length / 4));
}

/**
 * Builds the answer. The default echoes the last user message and is cut to `maxTokens` (finish
 * `length`), so tests can see that the bound they sent was honoured.
 */
export function buildAnswer(
  request: FakeParsedRequest,
  scenario: AnsweringScenario | undefined,
  toolCallId: (index: number) => string,
): FakeAnswer {
  const answerScenario = scenario?.kind === 'answer' ? scenario : undefined;
  const toolCalls = (answerScenario?.toolCalls ?? []).map((call, index) => ({
    id: toolCallId(index),
    name: call.name,
    arguments: call.arguments,
  }));
  let text = answerScenario?.text ?? (toolCalls.length > 0 ? '' : `Echo: ${request.lastUserText}`);
  let finish: FakeFinish = toolCalls.length > 0 ? 'tool_calls' : 'stop';
  if (request.maxTokens !== undefined && estimateTokens(text) > request.maxTokens) {
    text = text.slice(0, request.maxTokens * 4);
    finish = 'length';
  }
  let refusal: string | undefined;
  if (scenario?.kind === 'refusal') {
    text = '';
    finish = 'refusal';
    refusal = scenario.text ?? DEFAULT_REFUSAL;
  } else if (scenario?.kind === 'content_filter') {
    text = '';
    finish = 'content_filter';
  }
  finish = answerScenario?.finishReason ?? finish;

  const toolText = toolCalls.map((call) => call.name + JSON.stringify(call.arguments)).join('');
  const usage: FakeAnswerUsage = {
    inputTokens: answerScenario?.usage?.inputTokens ?? Math.max(1, estimateTokens(request.promptText)),
    cachedInputTokens: answerScenario?.usage?.cachedInputTokens ?? 0,
    cacheWriteInputTokens: answerScenario?.usage?.cacheWriteInputTokens ?? 0,
    cacheWrite1hInputTokens: answerScenario?.usage?.cacheWrite1hInputTokens ?? 0,
    outputTokens:
      answerScenario?.usage?.outputTokens ??
      Math.max(1, estimateTokens(text + (refusal ?? '') + toolText + (answerScenario?.reasoning ?? ''))),
    reasoningTokens:
      answerScenario?.usage?.reasoningTokens ?? estimateTokens(answerScenario?.reasoning ?? ''),
  };
  return {
    text,
    reasoning: answerScenario?.reasoning,
    redactedReasoning: answerScenario?.redactedReasoning,
    toolCalls,
    finish,
    refusal,
    empty: scenario?.kind === 'empty_choices',
    usage,
  };
}

/** Splits text into stream deltas of a few words each (deterministic). */
export function splitIntoDeltas(text: string): string[] {
  const pieces = text.match(/\S+\s*/g) ?? [];
  const deltas: string[] = [];
  for (let index = 0; index < pieces.length; index += 3) deltas.push(pieces.slice(index, index + 3).join(''));
  // Leading whitespace is not matched above; keep it so the deltas always join back to the text.
  const leading = text.length - text.trimStart().length;
  if (leading > 0) deltas.unshift(text.slice(0, leading));
  return deltas;
}

// Unit tests: Anthropic's own published Messages examples (the API reference's answer, the tool-use, extended-thinking
// and prompt-caching guides, the streaming guide's event streams and error event, the SDK's refusal stream) read by
// the Messages adapter.
import { AnthropicStreamAccumulator } from '../../../src/providers/anthropic/accumulate-stream';
import { classifyAnthropicError } from '../../../src/providers/anthropic/classify-error';
import {
  convertAnthropicResponse,
  convertAnthropicUsage,
} from '../../../src/providers/anthropic/convert-response';
import { ProviderError, type GenerationResult, type OutputDelta } from '../../../src/providers/types';
import { replayAnthropic, type RecordedEvent } from '../../support/replay-sse';
import textAnswer from '../../fixtures/wire/anthropic-message-text.json';
import toolUseAnswer from '../../fixtures/wire/anthropic-message-tool-use.json';
import thinkingToolUseAnswer from '../../fixtures/wire/anthropic-message-thinking-tool-use.json';
import redactedThinkingAnswer from '../../fixtures/wire/anthropic-message-redacted-thinking.json';
import cacheTtlUsage from '../../fixtures/wire/anthropic-usage-cache-ttl.json';
import textStream from '../../fixtures/wire/anthropic-stream-text.json';
import toolUseStream from '../../fixtures/wire/anthropic-stream-tool-use.json';
import thinkingStream from '../../fixtures/wire/anthropic-stream-thinking.json';
import webSearchStream from '../../fixtures/wire/anthropic-stream-web-search.json';
import errorEvent from '../../fixtures/wire/anthropic-stream-error.json';
import refusalStream from '../../fixtures/wire/anthropic-stream-refusal.json';

const CONTEXT = {
  label: 'anthropic claude-sonnet-4-5',
  provider: 'anthropic',
  model: 'claude-sonnet-4-5',
  requestId: 'req_wire',
};

function failureOf(run: () => unknown): ProviderError {
  try {
    run();
  } catch (error) {
    if (error instanceof ProviderError) return error;
    throw error;
  }
  throw new Error('expected a ProviderError');
}

/** The recorded events through the SDK's stream parser into the adapter's accumulator, as the adapter reads them. */
async function streamed(events: readonly RecordedEvent[]) {
  const replay = await replayAnthropic(events);
  const pieces: OutputDelta[] = [];
  const accumulator = new AnthropicStreamAccumulator((piece) => pieces.push(piece));
  for (const item of replay.items) accumulator.add(item);
  return { accumulator, pieces, error: replay.error };
}

/** The answer the relayed pieces make, joined the way a surface joins them. */
function joinPieces(pieces: readonly OutputDelta[]) {
  let text = '';
  const calls: { id: string; name: string; arguments: string }[] = [];
  const reasoning: { text: string; signature?: string; redactedData?: string }[] = [];
  for (const piece of pieces) {
    switch (piece.type) {
      case 'text':
        text += piece.text;
        break;
      case 'tool_call': {
        const call = (calls[piece.index] ??= { id: '', name: '', arguments: '' });
        if (piece.id !== undefined) call.id = piece.id;
        if (piece.name !== undefined) call.name = piece.name;
        call.arguments += piece.arguments;
        break;
      }
      case 'reasoning': {
        expect(piece.origin).toBe('anthropic');
        const part = (reasoning[piece.index] ??= { text: '' });
        part.text += piece.text;
        if (piece.signature !== undefined) part.signature = piece.signature;
        if (piece.redactedData !== undefined) part.redactedData = piece.redactedData;
        break;
      }
      default:
        piece satisfies never;
    }
  }
  return { text, calls, reasoning };
}

function parsedArguments(result: GenerationResult): unknown[] {
  return result.toolCalls.map((call) => JSON.parse(call.arguments) as unknown);
}

describe('Anthropic Messages: published answers', () => {
  it('the API reference example: text, finish stop, usage split into input, cache read, cache write, output, thinking', () => {
    const { response } = textAnswer;
    expect(convertAnthropicResponse(response, CONTEXT)).toEqual({
      text: 'Hi! My name is Claude.',
      toolCalls: [],
      finishReason: { unified: 'stop', raw: 'end_turn' },
      usage: {
        inputTokens: 2095,
        cachedInputTokens: 2051,
        // cache_creation_input_tokens says 2051 were written while its breakdown by lifetime says none: the total
        // is what was billed, and what the breakdown leaves unplaced is taken as the default 5-minute write.
        cacheWriteInputTokens: 2051,
        outputTokens: 503,
        reasoningTokens: 0,
        raw: response.usage,
      },
      provider: 'anthropic',
      model: 'claude-opus-4-6',
      requestId: 'req_wire',
    });
  });

  it('the tool-use guide: text before the call, the call by its toolu_ id, input as JSON text, finish tool_calls', () => {
    const result = convertAnthropicResponse(toolUseAnswer.response, CONTEXT);
    expect(result).toMatchObject({
      text: "I'll check the current weather in San Francisco for you.",
      toolCalls: [{ id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_weather' }],
      finishReason: { unified: 'tool_calls', raw: 'tool_use' },
      // The example shows no usage: nothing is counted rather than anything made up.
      usage: { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, raw: {} },
      model: 'claude-opus-4-7',
    });
    expect(parsedArguments(result)).toEqual([{ location: 'San Francisco, CA', unit: 'celsius' }]);
    expect(result).not.toHaveProperty('reasoning');
  });

  it('the extended-thinking guide with a tool: the thinking part with its signature, the text, the call', () => {
    // The guide shows the content only; the stop reason is the one a tool call ends its turn with.
    const result = convertAnthropicResponse(
      { ...thinkingToolUseAnswer.response, stop_reason: 'tool_use' },
      CONTEXT,
    );
    const [thinking] = thinkingToolUseAnswer.response.content;
    expect(result).toMatchObject({
      text: 'I can help you get the current weather information for Paris. Let me check that for you',
      toolCalls: [{ id: 'toolu_01CswdEQBMshySk6Y9DFKrfq', name: 'get_weather' }],
      reasoning: [
        { type: 'reasoning', text: thinking!.thinking, signature: thinking!.signature, origin: 'anthropic' },
      ],
      finishReason: { unified: 'tool_calls', raw: 'tool_use' },
    });
    expect(parsedArguments(result)).toEqual([{ location: 'Paris' }]);
  });

  it('the thinking-redaction example: a thinking part, then a redacted one keeping its data whole', () => {
    const result = convertAnthropicResponse(
      { ...redactedThinkingAnswer.response, stop_reason: 'end_turn' },
      CONTEXT,
    );
    const [thinking, redacted] = redactedThinkingAnswer.response.content;
    expect(result.text).toBe('Based on my analysis...');
    expect(result.reasoning).toEqual([
      { type: 'reasoning', text: thinking!.thinking, signature: thinking!.signature, origin: 'anthropic' },
      { type: 'reasoning', text: '', redactedData: redacted!.data, origin: 'anthropic' },
    ]);
  });

  it('the prompt-caching guide: writes split by lifetime, reads and uncached input apart', () => {
    const { usage } = cacheTtlUsage.response;
    expect(convertAnthropicUsage(usage)).toEqual({
      inputTokens: 2048,
      cachedInputTokens: 1800,
      cacheWriteInputTokens: 148,
      cacheWrite1hInputTokens: 100,
      outputTokens: 503,
      raw: usage,
    });
  });
});

describe('Anthropic Messages: the streaming guide', () => {
  it('the basic stream: text from its deltas, ping skipped, output tokens from the cumulative message_delta', async () => {
    const { accumulator, pieces, error } = await streamed(textStream.events);
    expect(error).toBeUndefined();
    const result = accumulator.finish(CONTEXT);
    expect(result).toEqual({
      text: 'Hello!',
      toolCalls: [],
      finishReason: { unified: 'stop', raw: 'end_turn' },
      usage: {
        inputTokens: 25,
        cachedInputTokens: 0,
        outputTokens: 15,
        raw: { input_tokens: 25, output_tokens: 15 },
      },
      provider: 'anthropic',
      model: 'claude-sonnet-4-5-20250929',
      requestId: 'req_wire',
    });
    expect(pieces).toEqual([
      { type: 'text', text: 'Hello' },
      { type: 'text', text: '!' },
    ]);
  });

  it('the tool-use stream: text, then the call from its input_json_delta pieces, finish tool_calls', async () => {
    const { accumulator, pieces } = await streamed(toolUseStream.events);
    const result = accumulator.finish(CONTEXT);
    expect(result).toMatchObject({
      text: "Okay, let's check the weather for San Francisco, CA:",
      toolCalls: [{ id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', name: 'get_weather' }],
      finishReason: { unified: 'tool_calls', raw: 'tool_use' },
      usage: { inputTokens: 472, cachedInputTokens: 0, outputTokens: 89 },
    });
    expect(parsedArguments(result)).toEqual([{ location: 'San Francisco, CA', unit: 'fahrenheit' }]);
    // The call's first piece names it before any arguments; the empty partial_json is not a piece.
    const callPieces = pieces.filter((piece) => piece.type === 'tool_call');
    expect(callPieces[0]).toEqual({
      type: 'tool_call',
      index: 0,
      id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
      name: 'get_weather',
      arguments: '',
    });
    expect(callPieces.slice(1).every((piece) => piece.arguments !== '')).toBe(true);
    expect(joinPieces(pieces)).toEqual({ text: result.text, calls: result.toolCalls, reasoning: [] });
  });

  it('the extended-thinking stream: thinking_delta text, the signature_delta whole and last, then the answer', async () => {
    const { accumulator, pieces } = await streamed(thinkingStream.events);
    const result = accumulator.finish(CONTEXT);
    expect(result).toMatchObject({
      text: '27 * 453 = 12,231',
      toolCalls: [],
      reasoning: [
        {
          type: 'reasoning',
          text: 'Let me solve this step by step:\n\n1. First break down 27 * 453\n2. 453 = 400 + 50 + 3\n3. 27 * 400 = 10,800\n4. 27 * 50 = 1,350\n5. 27 * 3 = 81\n6. 10,800 + 1,350 + 81 = 12,231',
          signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds...',
          origin: 'anthropic',
        },
      ],
      finishReason: { unified: 'stop', raw: 'end_turn' },
      // This example's message_start and message_delta carry no usage at all.
      usage: { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, raw: {} },
    });
    const reasoningPieces = pieces.filter((piece) => piece.type === 'reasoning');
    expect(reasoningPieces.at(-1)).toEqual({
      type: 'reasoning',
      index: 0,
      origin: 'anthropic',
      text: '',
      signature: result.reasoning![0]!.signature,
    });
    expect(joinPieces(pieces)).toEqual({
      text: result.text,
      calls: [],
      reasoning: [{ text: result.reasoning![0]!.text, signature: result.reasoning![0]!.signature }],
    });
  });

  it('the web-search stream: a server tool is no tool call; input tokens from the cumulative message_delta', async () => {
    const { accumulator, pieces } = await streamed(webSearchStream.events);
    const result = accumulator.finish(CONTEXT);
    expect(result).toMatchObject({
      text:
        "I'll check the current weather in New York City for you." +
        "Here's the current weather information for New York City:\n\n# Weather in New York City\n\n",
      toolCalls: [],
      finishReason: { unified: 'stop', raw: 'end_turn' },
      usage: { inputTokens: 10682, cachedInputTokens: 0, outputTokens: 510 },
    });
    expect(result.usage).not.toHaveProperty('cacheWriteInputTokens');
    expect(pieces.filter((piece) => piece.type !== 'text')).toEqual([]);
  });

  it('the error event mid-stream: the SDK throws it, classified unavailable by its type, with no status', async () => {
    // The basic stream up to its first text delta, then the guide's error event in place of the rest.
    const { accumulator, pieces, error } = await streamed([
      ...textStream.events.slice(0, 4),
      ...(errorEvent.events as RecordedEvent[]),
    ]);
    expect(pieces).toEqual([{ type: 'text', text: 'Hello' }]);
    expect(error).toBeDefined();
    const failure = classifyAnthropicError(error, { label: CONTEXT.label, requestId: 'req_wire' });
    expect(failure.failureClass).toBe('unavailable');
    expect(failure.details).toEqual({
      requestSent: true,
      providerCode: 'overloaded_error',
      requestId: 'req_wire',
    });
    // Had the stream just stopped there instead, it would still not be an answer.
    expect(failureOf(() => accumulator.finish(CONTEXT)).failureClass).toBe('invalid_response');
  });
});

describe("Anthropic Messages: the SDK's refusal stream", () => {
  it('stop_reason refusal is a refused failure with the billed usage', async () => {
    const { accumulator } = await streamed(refusalStream.events);
    const failure = failureOf(() => accumulator.finish(CONTEXT));
    expect(failure).toMatchObject({
      failureClass: 'refused',
      details: { status: 200, requestSent: true, providerCode: 'refusal', requestId: 'req_wire' },
    });
    expect(failure.details.usage).toMatchObject({ inputTokens: 20, outputTokens: 0 });
  });
});

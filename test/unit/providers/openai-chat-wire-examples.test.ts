// Unit tests: OpenAI's own published Chat Completions examples (the API reference's answers and stream chunks, the
// prompt-caching guide's usage, streams the openai-python tests recorded from the API) read by the chat adapter.
import { OpenAIStreamAccumulator } from '../../../src/providers/openai/accumulate-stream';
import { convertOpenAIResponse, convertOpenAIUsage } from '../../../src/providers/openai/convert-response';
import { mapOpenAIFinishReason } from '../../../src/providers/openai/map-finish-reason';
import { ProviderError, type GenerationResult, type OutputDelta } from '../../../src/providers/types';
import { replayOpenAI } from '../../support/replay-sse';
import parallelToolCallsStream from '../../fixtures/wire/openai-chat-stream-parallel-tool-calls.json';
import lengthStream from '../../fixtures/wire/openai-chat-stream-length.json';
import refusalStream from '../../fixtures/wire/openai-chat-stream-refusal.json';
import referenceStream from '../../fixtures/wire/openai-chat-stream-text.json';
import textAnswer from '../../fixtures/wire/openai-chat-text.json';
import toolCallAnswer from '../../fixtures/wire/openai-chat-tool-call.json';
import cachedUsage from '../../fixtures/wire/openai-chat-usage-cached.json';

const CONTEXT = { label: 'openai gpt-4o', provider: 'openai', model: 'gpt-4o', requestId: 'req_wire' };

function failureOf(run: () => unknown): ProviderError {
  try {
    run();
  } catch (error) {
    if (error instanceof ProviderError) return error;
    throw error;
  }
  throw new Error('expected a ProviderError');
}

/** The recorded chunks through the SDK's stream parser into the adapter's accumulator, as the adapter reads them. */
async function streamed(
  chunks: readonly unknown[],
  kind: 'openai' | 'openai-compatible' = 'openai',
): Promise<{ accumulator: OpenAIStreamAccumulator; pieces: OutputDelta[] }> {
  const replay = await replayOpenAI(chunks);
  expect(replay.error).toBeUndefined();
  const pieces: OutputDelta[] = [];
  const accumulator = new OpenAIStreamAccumulator(kind, (piece) => pieces.push(piece));
  for (const item of replay.items) accumulator.add(item);
  return { accumulator, pieces };
}

/** The answer the relayed pieces make, joined the way a surface joins them. */
function joinPieces(pieces: readonly OutputDelta[]) {
  let text = '';
  const calls: { id: string; name: string; arguments: string }[] = [];
  for (const piece of pieces) {
    switch (piece.type) {
      case 'text':
        text += piece.text;
        break;
      case 'tool_call': {
        const call = (calls[piece.index] ??= { id: '', name: '', arguments: '' });
        if (piece.id !== undefined) call.id = piece.id;
        if (piece.name !== undefined) call.name += piece.name;
        call.arguments += piece.arguments;
        break;
      }
      case 'reasoning':
        throw new Error('OpenAI Chat Completions streams no reasoning');
      default:
        piece satisfies never;
    }
  }
  return { text, calls };
}

function parsedArguments(result: GenerationResult): unknown[] {
  return result.toolCalls.map((call) => JSON.parse(call.arguments) as unknown);
}

describe('OpenAI Chat Completions: the API reference examples', () => {
  it('"Default": the text, finish stop, prompt and completion tokens with zero cached and reasoning', () => {
    const { response } = textAnswer;
    expect(convertOpenAIResponse(response, CONTEXT)).toEqual({
      text: 'Hello! How can I assist you today?',
      toolCalls: [],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: {
        inputTokens: 19,
        cachedInputTokens: 0,
        outputTokens: 10,
        reasoningTokens: 0,
        raw: response.usage,
      },
      provider: 'openai',
      model: 'gpt-5.4',
      requestId: 'req_wire',
    });
  });

  it('"Functions": a tool call by its id with its JSON arguments as sent, null content read as no text', () => {
    const { response } = toolCallAnswer;
    const result = convertOpenAIResponse(response, CONTEXT);
    expect(result).toEqual({
      text: '',
      toolCalls: [
        { id: 'call_abc123', name: 'get_current_weather', arguments: '{\n"location": "Boston, MA"\n}' },
      ],
      finishReason: { unified: 'tool_calls', raw: 'tool_calls' },
      usage: {
        inputTokens: 82,
        cachedInputTokens: 0,
        outputTokens: 17,
        reasoningTokens: 0,
        raw: response.usage,
      },
      provider: 'openai',
      model: 'gpt-4o-mini',
      requestId: 'req_wire',
    });
    expect(parsedArguments(result)).toEqual([{ location: 'Boston, MA' }]);
  });

  it('"Streaming" without a usage chunk: refused from OpenAI itself, which the adapter always asks for usage', async () => {
    const { accumulator, pieces } = await streamed(referenceStream.chunks);
    const failure = failureOf(() => accumulator.finish(CONTEXT));
    expect(failure).toMatchObject({
      failureClass: 'invalid_response',
      details: { status: 200, requestSent: true, requestId: 'req_wire' },
    });
    expect(failure.message).toContain('stream ended without usage');
    // The text was relayed as it came; the empty first content is not a piece.
    expect(pieces).toEqual([{ type: 'text', text: 'Hello' }]);
  });

  it('"Streaming" from a compatible server, which may ignore include_usage: the text and finish stop', async () => {
    const { accumulator } = await streamed(referenceStream.chunks, 'openai-compatible');
    const result = accumulator.finish(CONTEXT);
    expect(result).toMatchObject({
      text: 'Hello',
      toolCalls: [],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 },
      model: 'gpt-4o-mini',
    });
    expect(result).not.toHaveProperty('reasoning');
  });

  it.each([
    ['stop', 'stop'],
    ['length', 'length'],
    ['tool_calls', 'tool_calls'],
    ['content_filter', 'content_filter'],
    ['function_call', 'tool_calls'],
  ])('the documented finish_reason %p maps to %p, keeping the raw word', (raw, unified) => {
    expect(mapOpenAIFinishReason(raw)).toEqual({ unified, raw });
  });
});

describe('OpenAI Chat Completions: the prompt-caching guide', () => {
  it('cached prompt tokens are split out of the prompt tokens; no cache write and no reasoning', () => {
    const { usage } = cachedUsage.response;
    const converted = convertOpenAIUsage(usage);
    expect(converted).toEqual({
      inputTokens: 2006 - 1920,
      cachedInputTokens: 1920,
      outputTokens: 300,
      reasoningTokens: 0,
      raw: usage,
    });
    expect(converted).not.toHaveProperty('cacheWriteInputTokens');
  });
});

describe('OpenAI Chat Completions: streams recorded from the API by the openai-python tests', () => {
  it('two parallel tool calls: ids, names and arguments gathered by index, usage from the choice-less last chunk', async () => {
    const { accumulator, pieces } = await streamed(parallelToolCallsStream.chunks);
    const result = accumulator.finish(CONTEXT);
    expect(result).toMatchObject({
      text: '',
      toolCalls: [
        { id: 'call_JMW1whyEaYG438VE1OIflxA2', name: 'GetWeatherArgs' },
        { id: 'call_DNYTawLBoN8fj3KN6qU9N1Ou', name: 'get_stock_price' },
      ],
      finishReason: { unified: 'tool_calls', raw: 'tool_calls' },
      usage: { inputTokens: 149, cachedInputTokens: 0, outputTokens: 60, reasoningTokens: 0 },
      model: 'gpt-4o-2024-08-06',
    });
    expect(parsedArguments(result)).toEqual([
      { city: 'Edinburgh', country: 'GB', units: 'c' },
      { ticker: 'AAPL', exchange: 'NASDAQ' },
    ]);
    // Each call's first piece names it before any of its arguments; the pieces join to the answer.
    const firsts = pieces.filter((piece) => piece.type === 'tool_call' && piece.id !== undefined);
    expect(firsts).toEqual([
      {
        type: 'tool_call',
        index: 0,
        id: 'call_JMW1whyEaYG438VE1OIflxA2',
        name: 'GetWeatherArgs',
        arguments: '',
      },
      {
        type: 'tool_call',
        index: 1,
        id: 'call_DNYTawLBoN8fj3KN6qU9N1Ou',
        name: 'get_stock_price',
        arguments: '',
      },
    ]);
    expect(joinPieces(pieces)).toEqual({ text: '', calls: result.toolCalls });
  });

  it('a refusal streamed in refusal deltas: a refused failure with the billed usage, never quoting it', async () => {
    const { accumulator, pieces } = await streamed(refusalStream.chunks);
    const failure = failureOf(() => accumulator.finish(CONTEXT));
    expect(failure).toMatchObject({
      failureClass: 'refused',
      details: { status: 200, requestSent: true, providerCode: 'refusal', requestId: 'req_wire' },
    });
    expect(failure.details.usage).toMatchObject({ inputTokens: 79, cachedInputTokens: 0, outputTokens: 11 });
    expect(failure.message).not.toContain('assist');
    // A refusal is not answer text: nothing of it was relayed.
    expect(pieces).toEqual([]);
  });

  it('cut at max_tokens: finish length with the partial text and its usage', async () => {
    const { accumulator } = await streamed(lengthStream.chunks);
    expect(accumulator.finish(CONTEXT)).toMatchObject({
      text: '{"',
      toolCalls: [],
      finishReason: { unified: 'length', raw: 'length' },
      usage: { inputTokens: 79, cachedInputTokens: 0, outputTokens: 1, reasoningTokens: 0 },
    });
  });
});

// Unit tests: recorded Responses API answers and event streams turned into GenerationResults, pieces and failures.
import { ResponsesStreamAccumulator } from '../../../src/providers/openai-responses/accumulate-stream';
import { convertResponsesResponse } from '../../../src/providers/openai-responses/convert-response';
import { mapResponsesFinishReason } from '../../../src/providers/openai-responses/map-finish-reason';
import { ProviderError, type GenerationResult, type OutputDelta } from '../../../src/providers/types';
import reasoningToolCall from '../../fixtures/wire/responses-reasoning-tool-call.json';
import reasoningToolCallStream from '../../fixtures/wire/responses-reasoning-tool-call-stream.json';
import textResponse from '../../fixtures/wire/responses-text.json';

const CONTEXT = { label: 'openai o4-mini', provider: 'openai', model: 'o4-mini', requestId: 'req_abc' };

function failureOf(run: () => unknown): ProviderError {
  try {
    run();
  } catch (error) {
    if (error instanceof ProviderError) return error;
    throw error;
  }
  throw new Error('expected a ProviderError');
}

/** The answer the pieces make, joined the way a surface joins them. */
function joinPieces(pieces: readonly OutputDelta[]) {
  let text = '';
  const calls: { id: string; name: string; arguments: string }[] = [];
  const reasoning: { text: string; id?: string; signature?: string }[] = [];
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
        expect(piece.origin).toBe('openai-responses');
        const part = (reasoning[piece.index] ??= { text: '' });
        part.text += piece.text;
        if (piece.id !== undefined) part.id = piece.id;
        if (piece.signature !== undefined) part.signature = piece.signature;
        break;
      }
      default:
        piece satisfies never;
    }
  }
  return { text, calls, reasoning };
}

function streamed(events: readonly unknown[]): { result: GenerationResult; pieces: OutputDelta[] } {
  const pieces: OutputDelta[] = [];
  const accumulator = new ResponsesStreamAccumulator((piece) => pieces.push(piece));
  for (const event of events) accumulator.add(event);
  return { result: accumulator.finish(CONTEXT), pieces };
}

describe('Responses convertResponsesResponse', () => {
  it('reads a recorded answer: reasoning part, tool call by call id, usage split, finish tool_calls', () => {
    const [reasoning, call] = reasoningToolCall.output as unknown as [
      Record<string, unknown>,
      Record<string, unknown>,
    ];
    const result = convertResponsesResponse(reasoningToolCall, CONTEXT);
    expect(result).toEqual({
      text: '',
      toolCalls: [{ id: call.call_id, name: 'lookup', arguments: '{"city":"Oslo"}' }],
      reasoning: [
        {
          type: 'reasoning',
          text: '**Checking the weather**\n\nThe user wants the weather in Oslo; the lookup tool gives it.\n\n**Calling lookup**\n\nOne call with the city is enough.',
          signature: reasoning.encrypted_content,
          id: reasoning.id,
          origin: 'openai-responses',
        },
      ],
      finishReason: { unified: 'tool_calls', raw: 'completed' },
      usage: {
        inputTokens: 152,
        cachedInputTokens: 1280,
        outputTokens: 214,
        reasoningTokens: 192,
        raw: reasoningToolCall.usage,
      },
      provider: 'openai',
      model: 'o4-mini-2025-04-16',
      requestId: 'req_abc',
    });
  });

  it('reads a recorded text answer: the output_text of message items, finish stop, no reasoning', () => {
    const result = convertResponsesResponse(textResponse, CONTEXT);
    expect(result).toMatchObject({
      text: 'Hello, switchyard.',
      toolCalls: [],
      finishReason: { unified: 'stop', raw: 'completed' },
      usage: { inputTokens: 19, cachedInputTokens: 0, outputTokens: 6, reasoningTokens: 0 },
      model: 'gpt-4.1-mini-2025-04-14',
    });
    expect(result).not.toHaveProperty('reasoning');
  });

  it('an incomplete answer cut at max_output_tokens finishes with length', () => {
    const result = convertResponsesResponse(
      { ...textResponse, status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } },
      CONTEXT,
    );
    expect(result.finishReason).toEqual({ unified: 'length', raw: 'max_output_tokens' });
    expect(result.text).toBe('Hello, switchyard.');
  });

  it('a content-filter stop is a content_policy failure with the billed usage', () => {
    const failure = failureOf(() =>
      convertResponsesResponse(
        { ...textResponse, status: 'incomplete', incomplete_details: { reason: 'content_filter' } },
        CONTEXT,
      ),
    );
    expect(failure).toMatchObject({
      failureClass: 'content_policy',
      details: { status: 200, requestSent: true, providerCode: 'content_filter', requestId: 'req_abc' },
    });
    expect(failure.details.usage?.outputTokens).toBe(6);
  });

  it('a refusal is a refused failure that never quotes the refusal', () => {
    const refusal = {
      ...textResponse,
      output: [
        {
          id: 'msg_1',
          type: 'message',
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'refusal', refusal: 'I cannot help with that secret plan.' }],
        },
      ],
    };
    const failure = failureOf(() => convertResponsesResponse(refusal, CONTEXT));
    expect(failure).toMatchObject({ failureClass: 'refused', details: { providerCode: 'refusal' } });
    expect(failure.details.usage?.inputTokens).toBe(19);
    expect(failure.message).not.toContain('secret plan');
  });

  it.each([
    ['server_error', 'unavailable'],
    ['rate_limit_exceeded', 'rate_limited'],
    ['invalid_prompt', 'content_policy'],
    ['invalid_image_url', 'invalid_request'],
  ])('a failed response with code %p is %p, its message never kept', (code, failureClass) => {
    const failed = {
      ...textResponse,
      status: 'failed',
      output: [],
      error: { code, message: 'Something about sk-secret-in-text went wrong.' },
    };
    const failure = failureOf(() => convertResponsesResponse(failed, CONTEXT));
    expect(failure).toMatchObject({ failureClass, details: { status: 200, providerCode: code } });
    expect(failure.message).not.toContain('sk-secret');
  });

  it('a body without an output array, or a response not finished, is invalid_response', () => {
    expect(failureOf(() => convertResponsesResponse({ id: 'resp_1' }, CONTEXT)).failureClass).toBe(
      'invalid_response',
    );
    expect(
      failureOf(() => convertResponsesResponse({ ...textResponse, status: 'in_progress' }, CONTEXT))
        .failureClass,
    ).toBe('invalid_response');
  });

  it('maps statuses to finish reasons, keeping the raw word', () => {
    expect(mapResponsesFinishReason('completed', null, false)).toEqual({ unified: 'stop', raw: 'completed' });
    expect(mapResponsesFinishReason('completed', null, true)).toEqual({
      unified: 'tool_calls',
      raw: 'completed',
    });
    expect(mapResponsesFinishReason('incomplete', 'max_output_tokens', true)).toEqual({
      unified: 'length',
      raw: 'max_output_tokens',
    });
    expect(mapResponsesFinishReason('incomplete', undefined, false)).toEqual({
      unified: 'other',
      raw: 'incomplete',
    });
  });
});

describe('Responses stream accumulation', () => {
  it('gathers a recorded stream into the answer the final response holds', () => {
    const { result } = streamed(reasoningToolCallStream);
    const final = reasoningToolCallStream.at(-1) as { response: unknown };
    expect(result).toEqual(convertResponsesResponse(final.response, CONTEXT));
    expect(result).toMatchObject({ text: 'Checking Oslo.', finishReason: { unified: 'tool_calls' } });
  });

  it('relays pieces that join to the answer: the id first, summary parts a blank line apart, the signature last', () => {
    const { result, pieces } = streamed(reasoningToolCallStream);
    const joined = joinPieces(pieces);
    expect(joined.text).toBe(result.text);
    expect(joined.calls).toEqual(result.toolCalls);
    expect(joined.reasoning).toEqual([
      {
        text: result.reasoning![0]!.text,
        id: result.reasoning![0]!.id,
        signature: result.reasoning![0]!.signature,
      },
    ]);
    const reasoningPieces = pieces.filter((piece) => piece.type === 'reasoning');
    expect(reasoningPieces[0]).toEqual({
      type: 'reasoning',
      index: 0,
      origin: 'openai-responses',
      text: '',
      id: result.reasoning![0]!.id,
    });
    expect(reasoningPieces.at(-1)).toMatchObject({ text: '', signature: result.reasoning![0]!.signature });
    expect(reasoningPieces.filter((piece) => piece.text.startsWith('\n\n**Calling'))).toHaveLength(1);
    // The call's first piece names it before any of its arguments.
    const callPieces = pieces.filter((piece) => piece.type === 'tool_call');
    expect(callPieces[0]).toEqual({
      type: 'tool_call',
      index: 0,
      id: result.toolCalls[0]!.id,
      name: 'lookup',
      arguments: '',
    });
  });

  it('relays what no delta carried when an item finishes, so the pieces still join to the answer', () => {
    const withoutDeltas = reasoningToolCallStream.filter((event) => !event.type.endsWith('.delta'));
    const { result, pieces } = streamed(withoutDeltas);
    const joined = joinPieces(pieces);
    expect(joined.text).toBe('Checking Oslo.');
    expect(joined.calls).toEqual(result.toolCalls);
    expect(joined.reasoning[0]?.text).toBe(result.reasoning![0]!.text);
  });

  it('a stream that ends without response.completed is invalid_response', () => {
    const accumulator = new ResponsesStreamAccumulator();
    for (const event of reasoningToolCallStream.slice(0, -1)) accumulator.add(event);
    const failure = failureOf(() => accumulator.finish(CONTEXT));
    expect(failure).toMatchObject({
      failureClass: 'invalid_response',
      details: { status: 200, requestSent: true, requestId: 'req_abc' },
    });
    expect(failure.message).toContain('stream ended without response.completed');
  });

  it('response.failed is classified by its code, with the usage it reports', () => {
    const accumulator = new ResponsesStreamAccumulator();
    for (const event of reasoningToolCallStream.slice(0, 4)) accumulator.add(event);
    const start = reasoningToolCallStream[0] as { response: Record<string, unknown> };
    accumulator.add({
      type: 'response.failed',
      sequence_number: 4,
      response: {
        ...start.response,
        status: 'failed',
        error: { code: 'server_error', message: 'The model failed.' },
        usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 3 },
      },
    });
    const failure = failureOf(() => accumulator.finish(CONTEXT));
    expect(failure).toMatchObject({
      failureClass: 'unavailable',
      details: { status: 200, providerCode: 'server_error', usage: { inputTokens: 10, outputTokens: 3 } },
    });
  });

  it('an error event is classified by its code', () => {
    const accumulator = new ResponsesStreamAccumulator();
    accumulator.add(reasoningToolCallStream[0]);
    accumulator.add({
      type: 'error',
      sequence_number: 1,
      code: 'rate_limit_exceeded',
      message: 'Slow down.',
      param: null,
    });
    expect(failureOf(() => accumulator.finish(CONTEXT))).toMatchObject({
      failureClass: 'rate_limited',
      details: { providerCode: 'rate_limit_exceeded' },
    });
  });
});

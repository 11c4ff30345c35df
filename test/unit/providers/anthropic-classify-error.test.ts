// Unit tests: Anthropic SDK errors and 200 non-answers classified into failure classes, no HTTP.
import Anthropic from '@anthropic-ai/sdk';
import { classifyAnthropicError } from '../../../src/providers/anthropic/classify-error';
import { convertAnthropicResponse } from '../../../src/providers/anthropic/convert-response';
import { ProviderError } from '../../../src/providers/types';

const REQUEST_ID = 'req_unit_2';

/** An HTTP error exactly as the SDK builds it from a response: status, Anthropic error body, headers. */
function httpError(
  status: number,
  type: string,
  message: string,
  options: { headers?: Record<string, string>; errorCode?: string } = {},
) {
  const details = options.errorCode ? { details: { error_code: options.errorCode } } : {};
  return Anthropic.APIError.generate(
    status,
    { type: 'error', error: { type, message, ...details } },
    undefined,
    new Headers({ 'request-id': REQUEST_ID, ...options.headers }),
  );
}

function networkFailure(code: string): Error {
  return new TypeError('fetch failed', { cause: Object.assign(new Error(`connect ${code}`), { code }) });
}

function classify(error: unknown, abort = { callerAborted: false, deadlineExceeded: false }) {
  return classifyAnthropicError(error, { abort, nowMs: Date.parse('2025-01-01T00:00:00Z') });
}

describe('classifyAnthropicError', () => {
  it('rate_limited: a 429 rate_limit_error, keeping retry-after and the request id', () => {
    const failure = classify(
      httpError(429, 'rate_limit_error', 'Number of requests has exceeded your rate limit', {
        headers: { 'retry-after': 'Wed, 01 Jan 2025 00:00:05 GMT' },
      }),
    );
    expect(failure.failureClass).toBe('rate_limited');
    expect(failure.details).toEqual({
      status: 429,
      providerCode: 'rate_limit_error',
      retryAfterMs: 5_000,
      requestId: REQUEST_ID,
      requestSent: true,
    });
  });

  it('quota_exhausted: a 429 whose details.error_code is a spend limit', () => {
    const failure = classify(
      httpError(429, 'rate_limit_error', 'You have reached your specified API usage limits.', {
        errorCode: 'enforced_spend_limit_reached',
      }),
    );
    expect(failure.failureClass).toBe('quota_exhausted');
    expect(failure.details.providerCode).toBe('enforced_spend_limit_reached');
  });

  it('quota_exhausted: a 402 billing_error', () => {
    expect(classify(httpError(402, 'billing_error', 'Your credit balance is too low')).failureClass).toBe(
      'quota_exhausted',
    );
  });

  it.each([
    [500, 'api_error'],
    [503, 'api_error'],
    [529, 'overloaded_error'],
  ])('unavailable: HTTP %p %s', (status, type) => {
    const failure = classify(httpError(status, type, 'Overloaded'));
    expect(failure.failureClass).toBe('unavailable');
    expect(failure.details.status).toBe(status);
  });

  it('unavailable: an overloaded_error event inside a 200 stream (no status)', () => {
    const streamError = new Anthropic.APIError(
      undefined,
      { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
      undefined,
      new Headers({ 'request-id': REQUEST_ID }),
      'overloaded_error',
    );
    const failure = classify(streamError);
    expect(failure.failureClass).toBe('unavailable');
    expect(failure.details.requestId).toBe(REQUEST_ID);
  });

  it('unavailable: a connection reset may have reached the provider', () => {
    const failure = classify(new Anthropic.APIConnectionError({ cause: networkFailure('ECONNRESET') }));
    expect(failure.failureClass).toBe('unavailable');
    expect(failure.details.requestSent).toBe(true);
  });

  it('unavailable: connection refused proves the request never left', () => {
    const failure = classify(new Anthropic.APIConnectionError({ cause: networkFailure('ECONNREFUSED') }));
    expect(failure.failureClass).toBe('unavailable');
    expect(failure.details.requestSent).toBe(false);
  });

  it('unavailable: a stream cut mid-way (undici "terminated" with a socket error cause)', () => {
    const cut = new TypeError('terminated', {
      cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
    });
    expect(classify(cut).failureClass).toBe('unavailable');
  });

  it('timeout: APIConnectionTimeoutError (checked before its parent APIConnectionError)', () => {
    expect(classify(new Anthropic.APIConnectionTimeoutError()).failureClass).toBe('timeout');
  });

  it.each([
    [408, 'timeout_error'],
    [504, 'timeout_error'],
  ])('timeout: HTTP %p', (status, type) => {
    expect(classify(httpError(status, type, 'Request timeout')).failureClass).toBe('timeout');
  });

  it('timeout: an abort caused by our own deadline', () => {
    const failure = classify(new Anthropic.APIUserAbortError(), {
      callerAborted: false,
      deadlineExceeded: true,
    });
    expect(failure.failureClass).toBe('timeout');
  });

  it.each([
    [401, 'authentication_error'],
    [403, 'permission_error'],
  ])('authentication: HTTP %p', (status, type) => {
    expect(classify(httpError(status, type, 'invalid x-api-key')).failureClass).toBe('authentication');
  });

  it('invalid_response: a body that is not JSON', () => {
    expect(classify(new SyntaxError('Unexpected token <')).failureClass).toBe('invalid_response');
  });

  it.each([
    [400, 'invalid_request_error', 'messages: at least one message is required'],
    [404, 'not_found_error', 'model: claude-nope'],
    [413, 'request_too_large', 'Request exceeds the maximum allowed number of bytes.'],
    [422, 'invalid_request_error', 'Unprocessable'],
  ])('invalid_request: HTTP %p', (status, type, message) => {
    expect(classify(httpError(status, type, message)).failureClass).toBe('invalid_request');
  });

  it('context_overflow: a 400 invalid_request_error "prompt is too long"', () => {
    const failure = classify(
      httpError(400, 'invalid_request_error', 'prompt is too long: 215000 tokens > 200000 maximum'),
    );
    expect(failure.failureClass).toBe('context_overflow');
  });

  it('does not trust message text alone: the same words on a 500 or a 429 keep their class', () => {
    expect(classify(httpError(500, 'api_error', 'prompt is too long')).failureClass).toBe('unavailable');
    expect(classify(httpError(429, 'rate_limit_error', 'prompt is too long')).failureClass).toBe(
      'rate_limited',
    );
  });

  it('cancelled: an abort from the caller, even if the deadline fired too', () => {
    expect(
      classify(new Anthropic.APIUserAbortError(), { callerAborted: true, deadlineExceeded: true })
        .failureClass,
    ).toBe('cancelled');
  });

  it('keeps provider message text out of the error message and details', () => {
    const failure = classify(httpError(401, 'authentication_error', 'invalid x-api-key sk-ant-SECRET'));
    const serialized = `${failure.message} ${JSON.stringify(failure)}`;
    expect(serialized).not.toContain('SECRET');
    expect(failure.message).toBe(
      `anthropic: 401 authentication (authentication_error, request ${REQUEST_ID})`,
    );
  });
});

describe('convertAnthropicResponse: a 200 that is not an answer', () => {
  const context = { label: 'anthropic', provider: 'anthropic', model: 'claude-test', requestId: REQUEST_ID };
  const usage = {
    input_tokens: 10,
    cache_read_input_tokens: 4,
    cache_creation_input_tokens: 2,
    output_tokens: 3,
  };

  function thrown(message: unknown): ProviderError {
    try {
      convertAnthropicResponse(message, context);
    } catch (error) {
      if (error instanceof ProviderError) return error;
      throw error;
    }
    throw new Error('expected a ProviderError');
  }

  it('refused: stop_reason refusal, keeping the request id and billed usage', () => {
    const failure = thrown({ type: 'message', content: [], stop_reason: 'refusal', usage });
    expect(failure.failureClass).toBe('refused');
    expect(failure.details).toMatchObject({ status: 200, requestId: REQUEST_ID, providerCode: 'refusal' });
    expect(failure.details.usage).toMatchObject({
      inputTokens: 10,
      cachedInputTokens: 4,
      cacheWriteInputTokens: 2,
      outputTokens: 3,
    });
  });

  it('invalid_response: no stop reason', () => {
    expect(thrown({ type: 'message', content: [], stop_reason: null, usage }).failureClass).toBe(
      'invalid_response',
    );
  });

  it('invalid_response: no content array', () => {
    expect(thrown({ type: 'message', stop_reason: 'end_turn' }).failureClass).toBe('invalid_response');
  });

  it('reports cache writes apart from input and cache reads as cached input on a normal answer', () => {
    const result = convertAnthropicResponse(
      {
        type: 'message',
        model: 'claude-test-2025',
        content: [
          { type: 'text', text: 'Let me check.' },
          { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { city: 'Oslo' } },
        ],
        stop_reason: 'tool_use',
        usage,
      },
      context,
    );
    // input_tokens excludes both cache reads and writes; without a breakdown, writes are 5-minute ones.
    expect(result.usage).toEqual({
      inputTokens: 10,
      cachedInputTokens: 4,
      cacheWriteInputTokens: 2,
      outputTokens: 3,
      raw: usage,
    });
    expect(result.text).toBe('Let me check.');
    expect(result.toolCalls).toEqual([{ id: 'toolu_1', name: 'lookup', arguments: '{"city":"Oslo"}' }]);
    expect(result.finishReason).toEqual({ unified: 'tool_calls', raw: 'tool_use' });
  });
});

// Unit tests: OpenAI SDK errors and 200 non-answers classified into failure classes, no HTTP.
import OpenAI from 'openai';
import { classifyOpenAIError } from '../../../src/providers/openai/classify-error';
import { convertOpenAIResponse } from '../../../src/providers/openai/convert-response';
import { ProviderError } from '../../../src/providers/types';

const REQUEST_ID = 'req_unit_1';

/** An HTTP error exactly as the SDK builds it from a response: status, OpenAI error body, headers. */
function httpError(
  status: number,
  error: { message: string; type: string; code: string | null; param?: string | null },
  headers: Record<string, string> = {},
) {
  return OpenAI.APIError.generate(
    status,
    { error: { param: null, ...error } },
    undefined,
    new Headers({ 'x-request-id': REQUEST_ID, ...headers }),
  );
}

/** What undici throws when a connection fails: TypeError('fetch failed') caused by a coded error. */
function networkFailure(code: string): Error {
  return new TypeError('fetch failed', { cause: Object.assign(new Error(`connect ${code}`), { code }) });
}

function classify(error: unknown, abort = { callerAborted: false, deadlineExceeded: false }) {
  return classifyOpenAIError(error, { abort, nowMs: 0 });
}

describe('classifyOpenAIError', () => {
  it('rate_limited: a 429 that is not about quota, keeping retry-after and the request id', () => {
    const failure = classify(
      httpError(
        429,
        { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' },
        { 'retry-after': '7' },
      ),
    );
    expect(failure.failureClass).toBe('rate_limited');
    expect(failure.details).toEqual({
      status: 429,
      providerCode: 'rate_limit_exceeded',
      retryAfterMs: 7_000,
      requestId: REQUEST_ID,
      requestSent: true,
    });
  });

  it('quota_exhausted: a 429 with code insufficient_quota', () => {
    const failure = classify(
      httpError(429, {
        message: 'You exceeded your current quota',
        type: 'insufficient_quota',
        code: 'insufficient_quota',
      }),
    );
    expect(failure.failureClass).toBe('quota_exhausted');
    expect(failure.details.providerCode).toBe('insufficient_quota');
  });

  it('quota_exhausted: a 402', () => {
    expect(
      classify(httpError(402, { message: 'Payment required', type: 'billing', code: null })).failureClass,
    ).toBe('quota_exhausted');
  });

  it('quota_exhausted: a 400 billing_hard_limit_reached is about the account, not the request', () => {
    const error = httpError(400, {
      message: 'Billing hard limit',
      type: 'invalid_request_error',
      code: 'billing_hard_limit_reached',
    });
    expect(classify(error).failureClass).toBe('quota_exhausted');
  });

  it.each([500, 502, 503])('unavailable: HTTP %p', (status) => {
    const failure = classify(
      httpError(status, { message: 'server error', type: 'server_error', code: null }),
    );
    expect(failure.failureClass).toBe('unavailable');
    expect(failure.details.status).toBe(status);
  });

  it('unavailable: a connection reset may have reached the provider', () => {
    const failure = classify(new OpenAI.APIConnectionError({ cause: networkFailure('ECONNRESET') }));
    expect(failure.failureClass).toBe('unavailable');
    expect(failure.details.requestSent).toBe(true);
  });

  it.each(['ECONNREFUSED', 'ENOTFOUND'])('unavailable: %p proves the request never left', (code) => {
    const failure = classify(new OpenAI.APIConnectionError({ cause: networkFailure(code) }));
    expect(failure.failureClass).toBe('unavailable');
    expect(failure.details.requestSent).toBe(false);
  });

  it('unavailable: a body or stream cut mid-way (undici "terminated" with a socket error cause)', () => {
    const cut = new TypeError('terminated', {
      cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
    });
    expect(classify(cut).failureClass).toBe('unavailable');
  });

  it('unavailable: an error chunk inside a 200 stream (no status) with a server_error type', () => {
    const streamError = new OpenAI.APIError(
      undefined,
      { message: 'boom', type: 'server_error', code: null },
      undefined,
      new Headers(),
    );
    expect(classify(streamError).failureClass).toBe('unavailable');
  });

  it('rate_limited: an error chunk inside a stream with code rate_limit_exceeded', () => {
    const streamError = new OpenAI.APIError(
      undefined,
      { message: 'slow down', type: 'requests', code: 'rate_limit_exceeded' },
      undefined,
      new Headers(),
    );
    expect(classify(streamError).failureClass).toBe('rate_limited');
  });

  it('timeout: the SDK timed out waiting for headers (APIConnectionTimeoutError before APIConnectionError)', () => {
    const failure = classify(new OpenAI.APIConnectionTimeoutError());
    expect(failure.failureClass).toBe('timeout');
    expect(failure.details.requestSent).toBe(true);
  });

  it.each([408, 504])('timeout: HTTP %p', (status) => {
    expect(
      classify(httpError(status, { message: 'timed out', type: 'timeout', code: null })).failureClass,
    ).toBe('timeout');
  });

  it('timeout: an abort caused by our own deadline', () => {
    const failure = classify(new OpenAI.APIUserAbortError(), {
      callerAborted: false,
      deadlineExceeded: true,
    });
    expect(failure.failureClass).toBe('timeout');
  });

  it('timeout: a fetch AbortError while reading the body after our deadline fired', () => {
    const abortError = new DOMException('This operation was aborted', 'AbortError');
    expect(classify(abortError, { callerAborted: false, deadlineExceeded: true }).failureClass).toBe(
      'timeout',
    );
  });

  it.each([401, 403])('authentication: HTTP %p', (status) => {
    const failure = classify(
      httpError(status, {
        message: 'Incorrect API key',
        type: 'invalid_request_error',
        code: 'invalid_api_key',
      }),
    );
    expect(failure.failureClass).toBe('authentication');
  });

  it('invalid_response: a body that is not JSON', () => {
    expect(classify(new SyntaxError('Unexpected end of JSON input')).failureClass).toBe('invalid_response');
  });

  it.each([
    [400, 'invalid_value'],
    [404, 'model_not_found'],
    [409, null],
    [422, null],
  ])('invalid_request: HTTP %p', (status, code) => {
    const failure = classify(httpError(status, { message: 'bad', type: 'invalid_request_error', code }));
    expect(failure.failureClass).toBe('invalid_request');
  });

  it('context_overflow: a 400 with code context_length_exceeded', () => {
    const error = httpError(400, {
      message: "This model's maximum context length is 128000 tokens.",
      type: 'invalid_request_error',
      code: 'context_length_exceeded',
      param: 'messages',
    });
    expect(classify(error).failureClass).toBe('context_overflow');
  });

  it('does not read message text: the same message without the code is an invalid_request', () => {
    const error = httpError(400, {
      message: "This model's maximum context length is 128000 tokens.",
      type: 'invalid_request_error',
      code: null,
    });
    expect(classify(error).failureClass).toBe('invalid_request');
  });

  it('cancelled: an abort from the caller, even if the deadline fired too', () => {
    expect(
      classify(new OpenAI.APIUserAbortError(), { callerAborted: true, deadlineExceeded: false }).failureClass,
    ).toBe('cancelled');
    expect(
      classify(new OpenAI.APIUserAbortError(), { callerAborted: true, deadlineExceeded: true }).failureClass,
    ).toBe('cancelled');
  });

  it('passes a ProviderError raised by the adapter through unchanged', () => {
    const own = new ProviderError('openai: refused', 'refused', { requestSent: true });
    expect(classify(own)).toBe(own);
  });

  it('keeps provider message text, and with it any echoed key, out of the error', () => {
    const error = httpError(401, {
      message: 'Incorrect API key provided: sk-...WXYZ. You can find your API key at platform.openai.com.',
      type: 'invalid_request_error',
      code: 'invalid_api_key',
    });
    const failure = classify(error);
    const serialized = `${failure.message} ${JSON.stringify(failure)}`;
    expect(serialized).not.toContain('WXYZ');
    expect(serialized).not.toContain('Incorrect API key');
    expect(failure.message).toBe(`openai: 401 authentication (invalid_api_key, request ${REQUEST_ID})`);
  });

  it('uses the request id from already received headers for errors raised after them', () => {
    const failure = classifyOpenAIError(new SyntaxError('bad json'), { requestId: 'req_from_headers' });
    expect(failure.details.requestId).toBe('req_from_headers');
  });
});

describe('convertOpenAIResponse: a 200 that is not an answer', () => {
  const context = { label: 'openai', provider: 'openai', model: 'gpt-test', requestId: REQUEST_ID };
  const usage = { prompt_tokens: 10, completion_tokens: 3, prompt_tokens_details: { cached_tokens: 4 } };

  function thrown(completion: unknown): ProviderError {
    try {
      convertOpenAIResponse(completion, context);
    } catch (error) {
      if (error instanceof ProviderError) return error;
      throw error;
    }
    throw new Error('expected a ProviderError');
  }

  it('content_policy: finish_reason content_filter, keeping the request id and billed usage', () => {
    const failure = thrown({
      choices: [{ index: 0, message: { role: 'assistant', content: null }, finish_reason: 'content_filter' }],
      usage,
    });
    expect(failure.failureClass).toBe('content_policy');
    expect(failure.details).toMatchObject({
      status: 200,
      requestId: REQUEST_ID,
      providerCode: 'content_filter',
    });
    expect(failure.details.usage).toMatchObject({ inputTokens: 6, cachedInputTokens: 4, outputTokens: 3 });
  });

  it('refused: message.refusal set', () => {
    const failure = thrown({
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: null, refusal: 'I cannot help.' },
          finish_reason: 'stop',
        },
      ],
      usage,
    });
    expect(failure.failureClass).toBe('refused');
    expect(failure.details.requestId).toBe(REQUEST_ID);
    expect(failure.message).not.toContain('I cannot help');
  });

  it('invalid_response: empty choices', () => {
    expect(thrown({ choices: [], usage }).failureClass).toBe('invalid_response');
  });

  it('invalid_response: a body without choices (e.g. a text body)', () => {
    expect(thrown('<html>oops</html>').failureClass).toBe('invalid_response');
  });

  it('splits cached prompt tokens out of prompt_tokens on a normal answer', () => {
    const result = convertOpenAIResponse(
      { model: 'gpt-test-2025', choices: [{ message: { content: 'hi' }, finish_reason: 'stop' }], usage },
      context,
    );
    expect(result.usage).toEqual({ inputTokens: 6, cachedInputTokens: 4, outputTokens: 3, raw: usage });
    expect(result.model).toBe('gpt-test-2025');
    expect(result.finishReason).toEqual({ unified: 'stop', raw: 'stop' });
  });
});

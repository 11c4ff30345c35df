// Unit tests: a provider failure is reduced to class, status, code, request id and our own message; no body text.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { classifyAnthropicError } from '../../../src/providers/anthropic/classify-error';
import { convertAnthropicResponse } from '../../../src/providers/anthropic/convert-response';
import { classifyOpenAIError } from '../../../src/providers/openai/classify-error';
import { convertOpenAIResponse } from '../../../src/providers/openai/convert-response';
import { providerFailure, safeIdentifier } from '../../../src/providers/provider-failure';
import { messageOnlyLogger, type SdkLogLevel } from '../../../src/providers/sdk-logger';
import { ProviderError } from '../../../src/providers/types';

const API_KEY = 'sk-proj-unit-7b1e0c95-privacy-key';
const PROMPT = 'My account number is 4417-1234-5678-9113, please summarize it';
/** A body that echoes everything a real provider has been seen to echo: part of the key, the prompt, the org. */
const ECHO = `Incorrect API key provided: ${API_KEY.slice(0, 12)}***${API_KEY.slice(-4)}. You said: "${PROMPT}" (org-hidden-42)`;
const NEEDLES = [
  API_KEY,
  API_KEY.slice(0, 12),
  API_KEY.slice(-8),
  PROMPT,
  '4417-1234',
  'You said',
  'org-hidden-42',
];

/** Everything a ProviderError could carry into history, a log line or the caller's error. */
function everything(failure: ProviderError): string {
  return [
    failure.message,
    JSON.stringify(failure),
    JSON.stringify(failure.details),
    String(failure.stack),
  ].join('\n');
}

function expectNoEcho(failure: ProviderError): void {
  const text = everything(failure);
  for (const needle of NEEDLES) expect(text).not.toContain(needle);
}

function openAIError(
  status: number,
  code: string | null,
  type: string,
  headers: Record<string, string> = {},
) {
  return OpenAI.APIError.generate(
    status,
    { error: { message: ECHO, type, param: PROMPT, code } },
    undefined,
    new Headers({ 'x-request-id': 'req_privacy_1', ...headers }),
  );
}

function anthropicError(status: number, type: string, headers: Record<string, string> = {}) {
  return Anthropic.APIError.generate(
    status,
    { type: 'error', error: { type, message: ECHO }, request_id: 'req_privacy_2' },
    undefined,
    new Headers({ 'request-id': 'req_privacy_2', ...headers }),
  );
}

describe('what a provider failure records', () => {
  it.each([
    [429, 'rate_limit_exceeded', 'requests', 'rate_limited'],
    [429, 'insufficient_quota', 'insufficient_quota', 'quota_exhausted'],
    [401, 'invalid_api_key', 'invalid_request_error', 'authentication'],
    [400, 'context_length_exceeded', 'invalid_request_error', 'context_overflow'],
    [400, null, 'invalid_request_error', 'invalid_request'],
    [500, null, 'server_error', 'unavailable'],
    [504, null, 'server_error', 'timeout'],
  ])('openai %p %p: an echoing body stays out of the error', (status, code, type, failureClass) => {
    const failure = classifyOpenAIError(openAIError(status, code, type, { 'retry-after': '3' }), {
      label: 'openai gpt-4o',
      nowMs: 0,
    });
    expect(failure.failureClass).toBe(failureClass);
    expectNoEcho(failure);
    const providerCode = code ?? type;
    expect(failure.message).toBe(
      `openai gpt-4o: ${status} ${failureClass} (${providerCode}, request req_privacy_1)`,
    );
    expect(failure.details).toEqual({
      requestSent: true,
      status,
      providerCode,
      retryAfterMs: 3_000,
      requestId: 'req_privacy_1',
    });
  });

  it.each([
    [429, 'rate_limit_error', 'rate_limited'],
    [401, 'authentication_error', 'authentication'],
    [400, 'invalid_request_error', 'invalid_request'],
    [529, 'overloaded_error', 'unavailable'],
  ])('anthropic %p %p: an echoing body stays out of the error', (status, type, failureClass) => {
    const failure = classifyAnthropicError(anthropicError(status, type), { label: 'anthropic claude-haiku' });
    expect(failure.failureClass).toBe(failureClass);
    expectNoEcho(failure);
    expect(failure.message).toBe(
      `anthropic claude-haiku: ${status} ${failureClass} (${type}, request req_privacy_2)`,
    );
  });

  it('an error event inside a stream (no status) keeps only its code', () => {
    // How the SDKs build them: the event's error object, its message our prompt echo.
    const openai = new OpenAI.APIError(
      undefined,
      { message: ECHO, type: 'server_error', code: null },
      undefined,
      undefined,
    );
    const anthropic = new Anthropic.APIError(
      undefined,
      { type: 'error', error: { type: 'overloaded_error', message: ECHO } },
      undefined,
      new Headers(),
      'overloaded_error',
    );
    const fromOpenAI = classifyOpenAIError(openai, { label: 'openai gpt-4o', requestId: 'req_stream' });
    const fromAnthropic = classifyAnthropicError(anthropic, {
      label: 'anthropic claude',
      requestId: 'req_stream',
    });
    expectNoEcho(fromOpenAI);
    expectNoEcho(fromAnthropic);
    expect(fromOpenAI.message).toBe('openai gpt-4o: unavailable (server_error, request req_stream)');
    expect(fromAnthropic.message).toBe(
      'anthropic claude: unavailable (overloaded_error, request req_stream)',
    );
  });

  it('a code or request id that is not identifier-shaped is dropped, not recorded', () => {
    const failure = classifyOpenAIError(
      openAIError(401, `Incorrect API key provided: ${API_KEY}`, 'invalid_request_error', {
        'x-request-id': `req_1 ${PROMPT}`,
      }),
      { label: 'openai gpt-4o' },
    );
    expectNoEcho(failure);
    // The type is still an identifier, so it stands in for the dropped code.
    expect(failure.details).toEqual({
      requestSent: true,
      status: 401,
      providerCode: 'invalid_request_error',
    });
    expect(failure.message).toBe('openai gpt-4o: 401 authentication (invalid_request_error)');
  });

  it('a refusal keeps none of the refusal text, only the code, status and token counts', () => {
    const context = { label: 'openai gpt-4o', provider: 'openai', model: 'gpt-4o', requestId: 'req_r' };
    let failure: unknown;
    try {
      convertOpenAIResponse(
        { choices: [{ message: { content: null, refusal: ECHO }, finish_reason: 'stop' }], usage: {} },
        context,
      );
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(ProviderError);
    expectNoEcho(failure as ProviderError);
    expect((failure as ProviderError).message).toBe(
      'openai gpt-4o: 200 refused (the model refused, refusal, request req_r)',
    );

    let anthropicFailure: unknown;
    try {
      convertAnthropicResponse(
        { content: [{ type: 'text', text: ECHO }], stop_reason: 'refusal', usage: {} },
        { ...context, label: 'anthropic claude', provider: 'anthropic' },
      );
    } catch (error) {
      anthropicFailure = error;
    }
    expectNoEcho(anthropicFailure as ProviderError);
  });

  it('a transport error keeps its class and our reason, never its message', () => {
    const cut = new TypeError(`terminated: ${ECHO}`, {
      cause: Object.assign(new Error(`other side closed ${API_KEY}`), { code: 'UND_ERR_SOCKET' }),
    });
    const failure = classifyAnthropicError(cut, { label: 'anthropic claude' });
    expectNoEcho(failure);
    expect(failure.message).toBe('anthropic claude: unavailable (connection cut mid-response)');
    const unparsable = classifyOpenAIError(new SyntaxError(`Unexpected token in JSON: ${ECHO}`), {
      label: 'openai gpt-4o',
    });
    expectNoEcho(unparsable);
    expect(unparsable.message).toBe('openai gpt-4o: invalid_response (response body is not JSON)');
  });

  it('providerFailure itself refuses free text in the code and request id', () => {
    const failure = providerFailure('openai gpt-4o', 'authentication', {
      requestSent: true,
      status: 401,
      providerCode: ECHO,
      requestId: API_KEY.replace('-', ' '),
    });
    expectNoEcho(failure);
    expect(failure.message).toBe('openai gpt-4o: 401 authentication');
  });

  it.each([
    ['req_011CSHoEeqs5C35K2UUqR7Fy', true],
    ['insufficient_quota', true],
    ['9f3a2c44-7d1e-4b3a-a0c1-2f7e9d7c1b20', true],
    ['Incorrect API key provided: sk-...abcd', false],
    ['sk-abc***wxyz', false],
    ['', false],
    ['x'.repeat(101), false],
  ])('safeIdentifier(%p) keeps it: %p', (value, kept) => {
    expect(safeIdentifier(value) === value).toBe(kept);
  });

  it('the SDK logger writes the message and drops the chunk or body logged beside it', () => {
    const lines: string[] = [];
    const logger = messageOnlyLogger('openai (openai SDK)', (level: SdkLogLevel, line) =>
      lines.push(`${level} ${line}`),
    );
    // What both SDKs log, by default, for a stream chunk that is not JSON.
    logger.error('Could not parse message into JSON:', `{"error": "${ECHO}"`);
    logger.error('From chunk:', ['event: error', `data: ${ECHO}`]);
    logger.debug('[log_1] sending request', { body: { messages: [{ content: PROMPT }] } });
    expect(lines).toEqual([
      'error openai (openai SDK): Could not parse message into JSON:',
      'error openai (openai SDK): From chunk:',
      'debug openai (openai SDK): [log_1] sending request',
    ]);
  });
});

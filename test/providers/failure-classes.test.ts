// Both adapters over real HTTP against the fake provider: every scripted fault lands in its failure class.
import { startFakeProvider, type FakeProvider, type FakeScenario } from '../../src/fake-provider';
import { createProvider } from '../../src/providers';
import type { FailureClass } from '../../src/config/failure-class';
import { ADAPTERS, REQUEST, captureFailure, closedPort, waitFor } from './provider-fixtures';

const MODEL = 'model-under-test';
/** Short, so hang cases finish quickly; only used as a bound, never asserted on. */
const TIMEOUT_MS = 300;

type Mode = 'json' | 'stream';

interface FaultCase {
  readonly name: string;
  readonly scenario: FakeScenario;
  /** Expected class per provider (they differ where the providers really differ). */
  readonly expected: FailureClass | Readonly<Record<'openai' | 'anthropic', FailureClass>>;
  /** Expected HTTP status per provider, when the fault is an HTTP error response. */
  readonly status?: number | Readonly<Record<'openai' | 'anthropic', number>>;
  readonly retryAfterMs?: number;
  /** The fault never produces response headers, so no request id can be known. */
  readonly noResponse?: boolean;
  readonly modes?: readonly Mode[];
}

const FAULTS: readonly FaultCase[] = [
  {
    name: '429 rate limit with retry-after seconds',
    scenario: { kind: 'error', error: 'rate_limited', retryAfterSeconds: 3 },
    expected: 'rate_limited',
    status: 429,
    retryAfterMs: 3_000,
  },
  {
    name: '429 rate limit with retry-after-ms',
    scenario: { kind: 'error', error: 'rate_limited', retryAfterMs: 1_500, retryAfterSeconds: 9 },
    expected: 'rate_limited',
    status: 429,
    retryAfterMs: 1_500,
  },
  {
    name: '429 insufficient quota / spend limit',
    scenario: { kind: 'error', error: 'insufficient_quota' },
    expected: 'quota_exhausted',
    status: 429,
  },
  {
    name: '402 payment required',
    scenario: { kind: 'error', error: 'payment_required' },
    expected: 'quota_exhausted',
    status: 402,
  },
  {
    name: '500 server error',
    scenario: { kind: 'error', error: 'server_error' },
    expected: 'unavailable',
    status: 500,
  },
  {
    name: '502 HTML bad gateway',
    scenario: { kind: 'error', error: 'bad_gateway' },
    expected: 'unavailable',
    status: 502,
  },
  {
    name: '503 service unavailable',
    scenario: { kind: 'error', error: 'service_unavailable' },
    expected: 'unavailable',
    status: 503,
  },
  {
    name: 'overloaded (OpenAI 503, Anthropic 529)',
    scenario: { kind: 'error', error: 'overloaded' },
    expected: 'unavailable',
    status: { openai: 503, anthropic: 529 },
  },
  {
    name: '408 request timeout',
    scenario: { kind: 'error', error: 'request_timeout' },
    expected: 'timeout',
    status: 408,
  },
  {
    name: '504 gateway timeout',
    scenario: { kind: 'error', error: 'gateway_timeout' },
    expected: 'timeout',
    status: 504,
  },
  {
    name: '401 authentication',
    scenario: { kind: 'error', error: 'authentication' },
    expected: 'authentication',
    status: 401,
  },
  {
    name: '403 permission',
    scenario: { kind: 'error', error: 'permission' },
    expected: 'authentication',
    status: 403,
  },
  {
    name: '404 not found',
    scenario: { kind: 'error', error: 'not_found' },
    expected: 'invalid_request',
    status: 404,
  },
  {
    name: '400 bad request',
    scenario: { kind: 'error', error: 'bad_request' },
    expected: 'invalid_request',
    status: 400,
  },
  {
    name: '422 unprocessable',
    scenario: { kind: 'error', error: 'unprocessable' },
    expected: 'invalid_request',
    status: 422,
  },
  {
    name: '400 context overflow',
    scenario: { kind: 'error', error: 'context_overflow' },
    expected: 'context_overflow',
    status: 400,
  },
  { name: '200 refusal', scenario: { kind: 'refusal' }, expected: 'refused', status: 200 },
  {
    name: '200 content filter',
    scenario: { kind: 'content_filter' },
    // Anthropic has no content filter stop reason: the fake answers with a refusal there.
    expected: { openai: 'content_policy', anthropic: 'refused' },
    status: 200,
  },
  { name: '200 empty choices', scenario: { kind: 'empty_choices' }, expected: 'invalid_response' },
  { name: '200 unparsable body', scenario: { kind: 'invalid_json' }, expected: 'invalid_response' },
  {
    name: 'socket reset before any response',
    scenario: { kind: 'reset' },
    expected: 'unavailable',
    noResponse: true,
  },
  { name: 'body or stream cut mid-way', scenario: { kind: 'stream_cut' }, expected: 'unavailable' },
  {
    name: 'stream without its final event',
    scenario: { kind: 'stream_no_final_event' },
    expected: 'invalid_response',
    modes: ['stream'],
  },
  {
    name: 'overloaded error event inside a 200 stream',
    scenario: { kind: 'stream_error', error: 'overloaded', afterEvents: 2 },
    expected: 'unavailable',
    modes: ['stream'],
  },
  {
    name: 'hang until the attempt deadline',
    scenario: { kind: 'hang' },
    expected: 'timeout',
    noResponse: true,
  },
];

let fake: FakeProvider;

beforeAll(async () => {
  fake = await startFakeProvider();
});

afterEach(() => fake.reset());

afterAll(async () => {
  await fake.close();
});

describe.each(ADAPTERS)('$label adapter', (adapter) => {
  const cases = FAULTS.flatMap((fault) =>
    (fault.modes ?? (['json', 'stream'] as const)).map((mode) => ({ ...fault, mode })),
  );

  it.each(cases)('$name ($mode)', async (fault) => {
    const provider = adapter.create(fake);
    fake.script(MODEL, fault.scenario);
    const failure = await captureFailure(
      provider.generate(MODEL, REQUEST, { timeoutMs: TIMEOUT_MS, stream: fault.mode === 'stream' }),
    );

    const expected = typeof fault.expected === 'string' ? fault.expected : fault.expected[adapter.label];
    expect(failure.failureClass).toBe(expected);
    expect(failure.details.requestSent).toBe(true);
    if (fault.status !== undefined) {
      const status = typeof fault.status === 'number' ? fault.status : fault.status[adapter.label];
      expect(failure.details.status).toBe(status);
    }
    if (fault.retryAfterMs !== undefined) expect(failure.details.retryAfterMs).toBe(fault.retryAfterMs);

    // Exactly one request reached the provider: the SDK did not retry behind the workflow's back.
    const received = fake.requestsFor(MODEL);
    expect(received).toHaveLength(1);
    expect(received[0]?.provider).toBe(adapter.label);
    if (!fault.noResponse) expect(failure.details.requestId).toBe(received[0]?.requestId);

    // The key travelled as a header, but never into the error.
    const serialized = `${failure.message}\n${JSON.stringify(failure)}\n${String(failure.stack)}`;
    expect(serialized).not.toContain(adapter.apiKey);
    expect(serialized).not.toContain('SECRET');
  });

  it('cancelled: the caller aborts a hanging request after it was sent', async () => {
    const provider = adapter.create(fake);
    fake.script(MODEL, { kind: 'hang' });
    const controller = new AbortController();
    const call = provider.generate(MODEL, REQUEST, { timeoutMs: 30_000, signal: controller.signal });
    await waitFor(() => fake.requestsFor(MODEL).length === 1);
    controller.abort();
    const failure = await captureFailure(call);
    expect(failure.failureClass).toBe('cancelled');
    expect(failure.details.requestSent).toBe(true);
  });

  it('cancelled: the caller aborts a stream after its first events', async () => {
    const provider = adapter.create(fake);
    fake.script(MODEL, {
      kind: 'answer',
      text: 'one two three four five six seven eight nine',
      chunkDelayMs: 200,
    });
    const controller = new AbortController();
    let progress = 0;
    const call = provider.generate(MODEL, REQUEST, {
      timeoutMs: 30_000,
      signal: controller.signal,
      stream: true,
      onProgress: () => {
        progress += 1;
        if (progress === 1) controller.abort();
      },
    });
    const failure = await captureFailure(call);
    expect(failure.failureClass).toBe('cancelled');
  });

  it('timeout: a stream that stalls after its first events hits the attempt deadline', async () => {
    const provider = adapter.create(fake);
    // Headers arrive at once, so only the adapter's own deadline (not the SDK timeout) can end this.
    fake.script(MODEL, {
      kind: 'answer',
      text: 'one two three four five six seven eight nine',
      chunkDelayMs: 10_000,
    });
    const failure = await captureFailure(
      provider.generate(MODEL, REQUEST, { timeoutMs: TIMEOUT_MS, stream: true }),
    );
    expect(failure.failureClass).toBe('timeout');
  });

  it('cancelled before sending: an already aborted signal sends nothing', async () => {
    const provider = adapter.create(fake);
    const failure = await captureFailure(
      provider.generate(MODEL, REQUEST, { timeoutMs: TIMEOUT_MS, signal: AbortSignal.abort() }),
    );
    expect(failure.failureClass).toBe('cancelled');
    expect(failure.details.requestSent).toBe(false);
    expect(fake.requests).toHaveLength(0);
  });

  it('unavailable, not sent: connection refused', async () => {
    const port = await closedPort();
    const provider = createProvider({
      name: adapter.label,
      kind: adapter.kind,
      apiKey: adapter.apiKey,
      baseURL: adapter.label === 'openai' ? `http://127.0.0.1:${port}/v1` : `http://127.0.0.1:${port}`,
    });
    const failure = await captureFailure(provider.generate(MODEL, REQUEST, { timeoutMs: 2_000 }));
    expect(failure.failureClass).toBe('unavailable');
    expect(failure.details.requestSent).toBe(false);
    expect(failure.message).not.toContain(adapter.apiKey);
  });

  it('fails twice, then succeeds: each call is one request', async () => {
    const provider = adapter.create(fake);
    fake.script(MODEL, { kind: 'error', error: 'server_error' }, { times: 2 });
    await captureFailure(provider.generate(MODEL, REQUEST, { timeoutMs: 2_000 }));
    await captureFailure(provider.generate(MODEL, REQUEST, { timeoutMs: 2_000 }));
    const result = await provider.generate(MODEL, REQUEST, { timeoutMs: 2_000 });
    expect(result.text).toBe('Echo: Say hello to the switchyard.');
    expect(fake.counters(MODEL)).toEqual({ requests: 3, answered: 1, failed: 2 });
  });
});

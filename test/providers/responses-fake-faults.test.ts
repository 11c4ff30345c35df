// The fake's Responses wire under scripted faults, seen through the real `openai` SDK: error statuses in
// OpenAI's shape with their headers, hangs and resets, cut and failed streams, refusals and random faults.
import OpenAI, {
  APIConnectionError,
  APIError,
  BadRequestError,
  InternalServerError,
  RateLimitError,
} from 'openai';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { startFakeProvider, type FakeProvider, type FakeScenario } from '../../src/fake-provider';
import { OPENAI_KEY } from './provider-fixtures';

const MODEL = 'gpt-responses-faults';

let fake: FakeProvider;
let client: OpenAI;

beforeAll(async () => {
  fake = await startFakeProvider();
  client = new OpenAI({ apiKey: OPENAI_KEY, baseURL: fake.openaiBaseURL, maxRetries: 0 });
});

afterEach(() => fake.reset());

afterAll(async () => {
  await fake.close();
});

const create = () => client.responses.create({ model: MODEL, store: false, input: 'Tell me a story.' });

/** An error of any realm (Node's fetch throws its TypeErrors from outside Jest's sandbox). */
const isError = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && typeof (value as Error).message === 'string';

async function failure(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

/** Every event of a streamed call, and the error that ended it early, if one did. */
async function streamed(): Promise<{ events: ResponseStreamEvent[]; error: unknown }> {
  const events: ResponseStreamEvent[] = [];
  try {
    const stream = await client.responses.create({
      model: MODEL,
      store: false,
      input: 'Tell me a long story about the sea.',
      stream: true,
    });
    for await (const event of stream) events.push(event);
  } catch (error) {
    return { events, error };
  }
  return { events, error: undefined };
}

describe('fake Responses wire: HTTP errors', () => {
  it('a rate limit: 429 with retry-after and the request id, in OpenAI error shape', async () => {
    fake.script(MODEL, { kind: 'error', error: 'rate_limited', retryAfterSeconds: 7 });
    const error = await failure(create);
    expect(error).toBeInstanceOf(RateLimitError);
    const rateLimit = error as RateLimitError;
    expect(rateLimit.headers.get('retry-after')).toBe('7');
    expect(rateLimit.requestID).toMatch(/^req_fake_/);
    expect(rateLimit.error).toMatchObject({ type: 'requests', code: 'rate_limit_exceeded' });
  });

  it.each([
    ['server_error', 500],
    ['overloaded', 503],
    ['bad_gateway', 502],
    ['gateway_timeout', 504],
  ] as const)('%s answers %i', async (name, status) => {
    fake.script(MODEL, { kind: 'error', error: name });
    const error = await failure(create);
    expect(error).toBeInstanceOf(InternalServerError);
    expect((error as APIError).status).toBe(status);
  });

  it('a context overflow names the input', async () => {
    fake.script(MODEL, { kind: 'error', error: 'context_overflow' });
    const error = await failure(create);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).error).toMatchObject({
      param: 'input',
      code: 'context_length_exceeded',
    });
  });
});

describe('fake Responses wire: connection faults', () => {
  it('a hang ends in the client giving up, a reset in a connection error', async () => {
    fake.script(MODEL, [{ kind: 'hang' }, { kind: 'reset' }]);
    // Under Jest the SDK cannot tell its own timeout's abort apart (another realm's AbortSignal), so the
    // hang shows as the connection error the timeout error extends.
    const hung = await failure(() =>
      client.responses.create({ model: MODEL, store: false, input: 'hi' }, { timeout: 300 }),
    );
    expect(hung).toBeInstanceOf(APIConnectionError);
    const reset = await failure(create);
    expect(reset).toBeInstanceOf(APIConnectionError);
    expect(fake.counters(MODEL)).toMatchObject({ requests: 2, answered: 0, failed: 2 });
  });

  it('a JSON body cut in half, and one that does not parse', async () => {
    fake.script(MODEL, [{ kind: 'stream_cut' }, { kind: 'invalid_json' }]);
    expect(isError(await failure(create))).toBe(true);
    expect(isError(await failure(create))).toBe(true);
    expect(fake.counters(MODEL)).toMatchObject({ requests: 2, answered: 0, failed: 2 });
  });
});

describe('fake Responses wire: streams that break', () => {
  it('a stream cut mid-way: some events, then an error, never response.completed', async () => {
    fake.script(MODEL, { kind: 'stream_cut', afterEvents: 4 });
    const { events, error } = await streamed();
    expect(events.map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
    ]);
    expect(error).toMatchObject({ message: 'terminated' });
  });

  it('a stream that ends cleanly without its final event', async () => {
    fake.script(MODEL, { kind: 'stream_no_final_event' });
    const { events, error } = await streamed();
    expect(error).toBeUndefined();
    expect(events.at(-1)?.type).toBe('response.output_item.done');
  });

  it('a failure after the stream began: response.failed, numbered after the events before it', async () => {
    fake.script(MODEL, { kind: 'stream_error', error: 'server_error', afterEvents: 3 });
    const { events, error } = await streamed();
    expect(error).toBeUndefined();
    const last = events.at(-1)!;
    expect(last).toMatchObject({
      type: 'response.failed',
      sequence_number: 3,
      response: { status: 'failed', error: { code: 'server_error' } },
    });
  });

  it('a rate limit after the stream began, as an error event the SDK throws', async () => {
    fake.script(MODEL, {
      kind: 'stream_error',
      error: 'rate_limited',
      afterEvents: 2,
      responsesEvent: 'error',
    });
    const { events, error } = await streamed();
    expect(events).toHaveLength(2);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).error).toMatchObject({ code: 'rate_limit_exceeded' });
  });
});

describe('fake Responses wire: answers that are not the answer', () => {
  it('a refusal: a refusal content part, streamed as refusal events', async () => {
    const scenario: FakeScenario = { kind: 'refusal', text: 'I cannot help with that.' };
    fake.script(MODEL, [scenario, scenario]);
    const response = await create();
    expect(response.status).toBe('completed');
    expect(response.output).toMatchObject([
      { type: 'message', content: [{ type: 'refusal', refusal: 'I cannot help with that.' }] },
    ]);
    const { events } = await streamed();
    const refusal = events.flatMap((event) =>
      event.type === 'response.refusal.done' ? [event.refusal] : [],
    );
    expect(refusal).toEqual(['I cannot help with that.']);
  });

  it('a content filter stop: an incomplete response', async () => {
    fake.script(MODEL, { kind: 'content_filter' });
    const response = await create();
    expect(response).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'content_filter' },
    });
  });

  it('an empty answer: a completed response with no output', async () => {
    fake.script(MODEL, { kind: 'empty_choices' });
    const response = await create();
    expect(response.output).toEqual([]);
    expect(fake.counters(MODEL).failed).toBe(1);
  });

  it('random faults draw a stream of their own for the Responses wire', async () => {
    fake.randomFaults({ seed: 11, weights: { answer: 1, rate_limited: 1 }, models: [MODEL] });
    const outcomes: string[] = [];
    for (let index = 0; index < 8; index += 1) {
      outcomes.push(
        await create().then(
          () => 'answer',
          (error: unknown) => (error instanceof RateLimitError ? 'rate_limited' : String(error)),
        ),
      );
    }
    expect(outcomes).toEqual(fake.randomFaultsServed('openai-responses', MODEL));
    expect(new Set(outcomes)).toEqual(new Set(['answer', 'rate_limited']));
  });
});

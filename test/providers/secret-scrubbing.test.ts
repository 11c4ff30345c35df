// Configured keys are scrubbed by value from whatever an adapter returns, streams or logs, whichever field they arrive
// in: the error code, the request-id header, the body, a success's request id, model and usage, the streamed
// pieces, the SDK's log lines.
import { inspect } from 'node:util';
import { startFakeProvider, type FakeProvider, type FakeScenario } from '../../src/fake-provider';
import { createProviderRegistry } from '../../src/activities/provider-registry';
import { parseConfig } from '../../src/config/load-config';
import { createProvider } from '../../src/providers';
import { SecretScrubber } from '../../src/providers/secret-scrubber';
import { ProviderError, type LanguageModelProvider, type OutputDelta } from '../../src/providers/types';
import { ANTHROPIC_KEY, OPENAI_KEY, REQUEST } from './provider-fixtures';

const OPTIONS = { timeoutMs: 5_000 } as const;
/** A key of a provider that is not the one called: it must be scrubbed too (a gateway may echo any of them). */
const OTHER_KEY = 'sk-other-provider-7a6b5c4d-SECRET';

let fake: FakeProvider;
const logged: string[] = [];
const saved = { openai: process.env.OPENAI_LOG, anthropic: process.env.ANTHROPIC_LOG };

beforeAll(async () => {
  fake = await startFakeProvider();
  // The SDKs' own debug lines name the request id; they must be scrubbed as well.
  process.env.OPENAI_LOG = 'debug';
  process.env.ANTHROPIC_LOG = 'debug';
  for (const level of ['error', 'warn', 'info', 'debug'] as const) {
    jest.spyOn(console, level).mockImplementation((...parts: unknown[]) => {
      logged.push(parts.map((part) => (typeof part === 'string' ? part : inspect(part))).join(' '));
    });
  }
});

afterEach(() => fake.reset());

afterAll(async () => {
  jest.restoreAllMocks();
  process.env.OPENAI_LOG = saved.openai;
  process.env.ANTHROPIC_LOG = saved.anthropic;
  if (saved.openai === undefined) delete process.env.OPENAI_LOG;
  if (saved.anthropic === undefined) delete process.env.ANTHROPIC_LOG;
  await fake.close();
});

const ADAPTERS = [
  {
    label: 'openai',
    key: OPENAI_KEY,
    create: () =>
      createProvider({
        name: 'openai',
        kind: 'openai',
        apiKey: OPENAI_KEY,
        baseURL: fake.openaiBaseURL,
        secrets: [OTHER_KEY],
      }),
  },
  {
    label: 'anthropic',
    key: ANTHROPIC_KEY,
    create: () =>
      createProvider({
        name: 'anthropic',
        kind: 'anthropic',
        apiKey: ANTHROPIC_KEY,
        baseURL: fake.anthropicBaseURL,
        secrets: [OTHER_KEY],
      }),
  },
] as const;

/** Everything a caller could see of an outcome: the value or error in full, as text. */
async function outcomeText(provider: LanguageModelProvider, model: string, stream = false): Promise<string> {
  try {
    const result = await provider.generate(model, REQUEST, { ...OPTIONS, stream });
    return inspect(result, { depth: Infinity, maxStringLength: Infinity });
  } catch (error) {
    expect(error).toBeInstanceOf(ProviderError);
    return `${String(error)}\n${inspect(error, { depth: Infinity, maxStringLength: Infinity })}`;
  }
}

const ECHOING: readonly {
  readonly name: string;
  readonly scenario: FakeScenario;
  readonly stream?: boolean;
}[] = [
  { name: 'the error code', scenario: { kind: 'error', error: 'rate_limited', echoApiKey: ['code'] } },
  {
    name: 'the request-id header of an error',
    scenario: { kind: 'error', error: 'overloaded', echoApiKey: ['request_id'] },
  },
  { name: 'the error body', scenario: { kind: 'error', error: 'bad_request', echoApiKey: ['body'] } },
  {
    name: 'code, request id and body at once',
    scenario: { kind: 'error', error: 'server_error', echoApiKey: ['code', 'request_id', 'body'] },
  },
  {
    name: 'the request id of a success',
    scenario: { kind: 'answer', text: 'fine', echoApiKey: ['request_id'] },
  },
  { name: 'the text of a success', scenario: { kind: 'answer', echoApiKey: ['body'] } },
  {
    name: 'a stream error event',
    scenario: { kind: 'stream_error', error: 'overloaded', echoApiKey: ['code', 'request_id', 'body'] },
    stream: true,
  },
  {
    name: 'a streamed answer',
    scenario: { kind: 'answer', echoApiKey: ['request_id', 'body'] },
    stream: true,
  },
  {
    name: 'a refusal',
    scenario: { kind: 'refusal', echoApiKey: ['request_id', 'body'] },
  },
];

describe.each(ADAPTERS)('$label adapter', ({ key, create }) => {
  test.each(ECHOING)('scrubs a key echoed in $name', async ({ scenario, stream }) => {
    const provider = create();
    const model = `echo-${scenario.kind}`;
    fake.script(model, scenario);
    logged.length = 0;
    const text = await outcomeText(provider, model, stream);
    const received = fake.requestsFor(model);
    // The fake really echoed the key it received (the test would be empty otherwise).
    expect(received).toHaveLength(1);
    expect(received[0]!.echoedApiKey).toBe(true);
    expect({ outcome: text.includes(key), logs: logged.some((line) => line.includes(key)) }).toEqual({
      outcome: false,
      logs: false,
    });
  });

  test('streamed pieces carry no key, and join to exactly the scrubbed answer', async () => {
    const provider = create();
    // The fake appends its key to the text; the text already names the other key and ends like a key's start.
    fake.script('echo-stream', { kind: 'answer', text: `first ${OTHER_KEY} then sk-`, echoApiKey: ['body'] });
    const deltas: OutputDelta[] = [];
    const answer = await provider.generate('echo-stream', REQUEST, {
      ...OPTIONS,
      stream: true,
      onDelta: (delta) => deltas.push(delta),
    });
    expect(fake.requestsFor('echo-stream')[0]!.echoedApiKey).toBe(true);
    const streamed = deltas.map((delta) => (delta.type === 'text' ? delta.text : '')).join('');
    expect(streamed).toBe(answer.text);
    expect(answer.text).toBe('first [redacted] then sk- [redacted]');
    const all = JSON.stringify(deltas);
    expect({ key: all.includes(key), other: all.includes(OTHER_KEY) }).toEqual({ key: false, other: false });
  });

  test("another configured provider's key is scrubbed too", async () => {
    const provider = create();
    fake.script('echo-other', { kind: 'answer', text: `your other key is ${OTHER_KEY}` });
    const text = await outcomeText(provider, 'echo-other');
    expect(text).not.toContain(OTHER_KEY);
    expect(text).toContain('your other key is [redacted]');
  });
});

test('the registry hands every provider the keys of every provider the config names', async () => {
  const config = parseConfig({
    providers: {
      openai: {
        kind: 'openai',
        apiKeyEnv: 'SCRUB_OPENAI',
        baseURL: fake.openaiBaseURL,
        models: { m: { inputUsdPerMillion: 1, outputUsdPerMillion: 1 } },
      },
      anthropic: {
        kind: 'anthropic',
        apiKeyEnv: 'SCRUB_ANTHROPIC',
        baseURL: fake.anthropicBaseURL,
        models: { m: { inputUsdPerMillion: 1, outputUsdPerMillion: 1 } },
      },
    },
    routes: { r: { targets: [{ provider: 'openai', model: 'm' }] } },
  });
  const registry = createProviderRegistry(config, {
    SCRUB_OPENAI: OPENAI_KEY,
    SCRUB_ANTHROPIC: ANTHROPIC_KEY,
  });
  fake.script('both', { kind: 'answer', text: `${OPENAI_KEY} and ${ANTHROPIC_KEY}` });
  const text = await outcomeText(registry.get('openai'), 'both');
  expect(text).not.toContain(OPENAI_KEY);
  expect(text).not.toContain(ANTHROPIC_KEY);
  expect(text).toContain('[redacted] and [redacted]');
});

test('the scrubber replaces every occurrence, longest key first, deep in any value, and leaves short values alone', () => {
  const scrubber = new SecretScrubber(['abcdefgh', 'abcdefgh-longer', 'short']);
  expect(scrubber.text('x abcdefgh-longer y abcdefgh z abcdefghabcdefgh')).toBe(
    'x [redacted] y [redacted] z [redacted][redacted]',
  );
  // A value too short to be a key would only mangle text: it is not a credential worth the damage.
  expect(scrubber.text('a short answer')).toBe('a short answer');
  expect(
    scrubber.value({ list: ['abcdefgh', 1, null, { deep: 'in abcdefgh' }], flag: true, ['abcdefgh']: 'key' }),
  ).toEqual({ list: ['[redacted]', 1, null, { deep: 'in [redacted]' }], flag: true, '[redacted]': 'key' });
  expect(new SecretScrubber([]).text('abcdefgh')).toBe('abcdefgh');
});

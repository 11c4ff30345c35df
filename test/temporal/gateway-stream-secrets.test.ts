// A provider that echoes its key into a streamed answer, through the real gateway: the caller's SSE bytes on both
// surfaces hold no key, the stream ends normally, and its text is exactly the (scrubbed) final answer.
import { startGatewayHarness, type GatewayHarness } from '../support/gateway-harness';
import { TEST_API_KEYS } from '../support/test-config';

let harness: GatewayHarness;
beforeAll(async () => {
  harness = await startGatewayHarness();
});
afterAll(async () => harness?.close());
beforeEach(() => harness.fake.reset());

const TEXT = 'one two three four five six seven';

/** The `data:` payloads of an SSE body, parsed (the OpenAI end marker `[DONE]` kept as is). */
function events(body: string): unknown[] {
  return body
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => line.slice('data: '.length))
    .map((data) => (data === '[DONE]' ? data : (JSON.parse(data) as unknown)));
}

const SURFACES = [
  {
    surface: 'openai',
    path: '/v1/chat/completions',
    body: (model: string) => ({ model, stream: true, messages: [{ role: 'user', content: 'Say it' }] }),
    /** The text pieces the caller received, in order. */
    pieces: (all: unknown[]) =>
      all.flatMap((event) => {
        const content = (event as { choices?: { delta?: { content?: unknown } }[] }).choices?.[0]?.delta
          ?.content;
        return typeof content === 'string' && content !== '' ? [content] : [];
      }),
    endedNormally: (all: unknown[]) => all[all.length - 1] === '[DONE]',
  },
  {
    surface: 'anthropic',
    path: '/v1/messages',
    body: (model: string) => ({
      model,
      stream: true,
      max_tokens: 256,
      messages: [{ role: 'user', content: 'Say it' }],
    }),
    pieces: (all: unknown[]) =>
      all.flatMap((event) => {
        const { type, delta } = event as { type?: string; delta?: { type?: string; text?: string } };
        return type === 'content_block_delta' && delta?.type === 'text_delta' ? [delta.text ?? ''] : [];
      }),
    endedNormally: (all: unknown[]) => (all[all.length - 1] as { type?: string }).type === 'message_stop',
  },
] as const;

// `support` is served by an OpenAI-format target, `reverse` by an Anthropic one: each surface with each kind.
const CASES = SURFACES.flatMap((surface) => [
  { ...surface, route: 'support', model: 'gpt-primary' },
  { ...surface, route: 'reverse', model: 'claude-secondary' },
]);

test.each(CASES)(
  'the $surface surface streams no key when $model echoes its own, and ends with the answer',
  async ({ path, body, route, model, pieces, endedNormally }) => {
    // The fake appends the key it was called with to the text, in the streamed pieces like everywhere else.
    harness.fake.script(model, { kind: 'answer', text: TEXT, echoApiKey: ['body'], chunkDelayMs: 20 });
    await harness.withGateway(async ({ gateway, key, switchyard }) => {
      const response = await fetch(`${gateway.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body(route)),
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const bytes = await response.text();
      // The provider really echoed its key (else this test would prove nothing).
      expect(harness.fake.requestsFor(model)[0]!.echoedApiKey).toBe(true);

      expect({
        openaiKey: bytes.includes(TEST_API_KEYS.OPENAI_TEST_KEY),
        anthropicKey: bytes.includes(TEST_API_KEYS.ANTHROPIC_TEST_KEY),
        interrupted: bytes.includes('StreamInterrupted'),
      }).toEqual({ openaiKey: false, anthropicKey: false, interrupted: false });
      const all = events(bytes);
      expect(endedNormally(all)).toBe(true);

      const text = pieces(all);
      // The answer came in pieces through the relay, not in one block at the end.
      expect(text.length).toBeGreaterThan(1);
      // The stream ended with the answer ahead of the call's record, which follows at once.
      const workflowId = response.headers.get('x-switchyard-workflow-id')!;
      await switchyard.temporal.workflow.getHandle(workflowId).result();
      const inspection = await switchyard.inspect(workflowId);
      expect(inspection.status).toBe('COMPLETED');
      expect(inspection.answer?.text).toBe(`${TEXT} [redacted]`);
      expect(text.join('')).toBe(inspection.answer?.text);
    });
  },
);

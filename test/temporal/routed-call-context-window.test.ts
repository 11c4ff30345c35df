// Context windows on a real dev server: a target that cannot hold the request is passed over, never sent it.
import type { Config } from '../../src/config/config';
import { expectRoutedCallError } from '../support/expect-failure';
import { startHarness, type Harness } from '../support/harness';

/** gpt-primary gets a small window; every other test model keeps its 128 000 tokens. */
function smallPrimaryWindow(config: Config): Config {
  const openai = config.providers.openai!;
  return {
    ...config,
    providers: {
      ...config.providers,
      openai: {
        ...openai,
        models: {
          ...openai.models,
          'gpt-primary': { ...openai.models['gpt-primary']!, contextWindow: 2_000 },
        },
      },
    },
  };
}

const route = {
  targets: [
    { provider: 'openai', model: 'gpt-primary', timeoutMs: 5_000 },
    { provider: 'anthropic', model: 'claude-primary', timeoutMs: 5_000 },
  ],
};

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness(smallPrimaryWindow);
});
afterAll(async () => harness?.close());
beforeEach(() => harness.fake.reset());

test('a target whose window cannot hold the request is skipped with its own reason; the next one serves', async () => {
  // 1 950 output tokens plus the prompt's bound is more than gpt-primary's 2 000.
  const request = {
    messages: [{ role: 'user' as const, content: 'Summarise this' }],
    maxOutputTokens: 1_950,
  };
  const { record } = await harness.withWorker((switchyard) => switchyard.generate({ route, request }));
  expect(record.attempts[0]).toMatchObject({
    outcome: 'skipped',
    skipReason: 'context_window',
    model: 'gpt-primary',
  });
  expect(record.attempts[0]!.message).toMatch(/window 2000/);
  expect(record.servedBy?.model).toBe('claude-primary');
  expect(harness.fake.requestsFor('gpt-primary')).toHaveLength(0);
});

test('when no window holds the request the call fails ContextOverflow without a request', async () => {
  const request = {
    messages: [{ role: 'user' as const, content: 'Write a book' }],
    maxOutputTokens: 200_000,
  };
  const error = await expectRoutedCallError(
    harness.withWorker((switchyard) => switchyard.generate({ route, request, patienceMs: 60_000 })),
  );
  expect(error.type).toBe('ContextOverflow');
  expect(error.record?.attempts.map((attempt) => attempt.skipReason)).toEqual([
    'context_window',
    'context_window',
  ]);
  expect(error.record?.rounds).toBe(1);
  expect(harness.fake.requests).toHaveLength(0);
});

test('a plan says which targets the call would pass over', () => {
  const plan = harness.withWorker(async (switchyard) =>
    switchyard.plan({
      route,
      request: { messages: [{ role: 'user', content: 'Hi' }], maxOutputTokens: 1_950 },
    }),
  );
  return expect(plan).resolves.toMatchObject({
    attempts: [{ model: 'gpt-primary', skip: { reason: 'context_window' } }, { model: 'claude-primary' }],
  });
});

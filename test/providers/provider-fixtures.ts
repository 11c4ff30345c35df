// Shared fixtures of the provider tests: keys, the two adapters under test, a request, failure capture.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GenerationRequestSchema, type GenerationRequest } from '../../src/config/request';
import type { FakeProvider } from '../../src/fake-provider';
import { createProvider } from '../../src/providers';
import { ProviderError, type LanguageModelProvider, type ProviderKind } from '../../src/providers/types';

export const OPENAI_KEY = 'sk-test-openai-0123456789-SECRET';
export const ANTHROPIC_KEY = 'sk-ant-test-0123456789-SECRET';

export interface AdapterUnderTest {
  readonly label: 'openai' | 'anthropic';
  readonly kind: ProviderKind;
  readonly apiKey: string;
  create(fake: FakeProvider): LanguageModelProvider;
}

export const ADAPTERS: readonly AdapterUnderTest[] = [
  {
    label: 'openai',
    kind: 'openai',
    apiKey: OPENAI_KEY,
    create: (fake) =>
      createProvider({ name: 'openai', kind: 'openai', apiKey: OPENAI_KEY, baseURL: fake.openaiBaseURL }),
  },
  {
    label: 'anthropic',
    kind: 'anthropic',
    apiKey: ANTHROPIC_KEY,
    create: (fake) =>
      createProvider({
        name: 'anthropic',
        kind: 'anthropic',
        apiKey: ANTHROPIC_KEY,
        baseURL: fake.anthropicBaseURL,
      }),
  },
];

export const REQUEST: GenerationRequest = GenerationRequestSchema.parse({
  system: 'You are terse.',
  messages: [{ role: 'user', content: 'Say hello to the switchyard.' }],
  maxOutputTokens: 200,
});

/** Awaits a call that must fail and returns its ProviderError (anything else fails the test). */
export async function captureFailure(call: Promise<unknown>): Promise<ProviderError> {
  try {
    await call;
  } catch (error) {
    if (error instanceof ProviderError) return error;
    throw error;
  }
  throw new Error('expected the call to fail with a ProviderError, but it succeeded');
}

/** Polls until `condition` holds (no timing assertion: it only bounds how long a broken test hangs). */
export async function waitFor(condition: () => boolean, limitMs = 5_000): Promise<void> {
  const giveUpAt = Date.now() + limitMs;
  while (!condition()) {
    if (Date.now() > giveUpAt) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A localhost port nothing listens on (bound once, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

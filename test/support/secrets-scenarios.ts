// The secrets test's config and provider answers whose bodies echo the key, the prompt and a canary. Test side.
import { randomUUID } from 'node:crypto';
import type { FakeProvider, FakeScenario } from '../../src/fake-provider';
import { fakeProviders, TEST_API_KEYS } from './test-config';

/** Budget scopes of the test: one that pays for everything, one that can afford nothing. */
export interface SecretsBudgetScopes {
  readonly team: string;
  readonly tiny: string;
}

/**
 * The config file the worker process reads. `secrets` walks four targets and never opens a breaker (so
 * every scripted answer is consumed in order); `fragile` opens its breaker on the first failure.
 */
export function secretsConfigFile(fake: FakeProvider, scopes: SecretsBudgetScopes): Record<string, unknown> {
  return {
    providers: fakeProviders(fake, {
      openai: ['gpt-primary', 'gpt-secondary', 'gpt-fragile'],
      anthropic: ['claude-primary', 'claude-secondary'],
    }),
    routes: {
      secrets: {
        targets: [
          { provider: 'openai', model: 'gpt-primary', timeoutMs: 10_000 },
          { provider: 'anthropic', model: 'claude-primary', timeoutMs: 10_000 },
          { provider: 'openai', model: 'gpt-secondary', timeoutMs: 10_000 },
          { provider: 'anthropic', model: 'claude-secondary', timeoutMs: 10_000 },
        ],
        breaker: { failureThreshold: 1000, cooldownMs: 60_000 },
      },
      fragile: {
        targets: [{ provider: 'openai', model: 'gpt-fragile', timeoutMs: 1_000 }],
        breaker: { failureThreshold: 1, cooldownMs: 600_000 },
        whenAllOpen: 'fail',
      },
    },
    defaultRoute: 'secrets',
    budgets: { [scopes.team]: { limitUsd: 10 }, [scopes.tiny]: { limitUsd: 0.000001 } },
  };
}

/** Strings that must never be recorded, and the one that legitimately is (the prompt is a payload). */
export interface SecretsCanaries {
  /** Only ever inside provider response bodies. */
  readonly body: string;
  /** Inside every prompt; providers echo it back in their error bodies. */
  readonly prompt: string;
  /** An account id a provider names in its error text. */
  readonly account: string;
}

export function newCanaries(): SecretsCanaries {
  const id = randomUUID().slice(0, 8);
  return { body: `body-canary-${id}`, prompt: `prompt-canary-${id}`, account: `org-canary-${id}` };
}

/** Provider error text that echoes everything a real one has been seen to echo, and more: the whole key. */
export function echoText(canaries: SecretsCanaries, provider: 'openai' | 'anthropic'): string {
  const key = provider === 'openai' ? TEST_API_KEYS.OPENAI_TEST_KEY : TEST_API_KEYS.ANTHROPIC_TEST_KEY;
  return (
    `Incorrect API key provided: ${key} (${key.slice(0, 10)}***${key.slice(-4)}) for ${canaries.account}. ` +
    `Your request said: "${canaries.prompt} ..." ${canaries.body}`
  );
}

/** An OpenAI HTTP error in its real shape, with `echo` as its message and in `param`. */
export function openAIError(status: number, type: string, code: string | null, echo: string): FakeScenario {
  return { kind: 'raw', status, body: { error: { message: echo, type, param: echo, code } } };
}

/** An Anthropic HTTP error in its real shape, with `echo` in its message. */
export function anthropicError(
  status: number,
  type: string,
  echo: string,
  details?: Record<string, unknown>,
): FakeScenario {
  return {
    kind: 'raw',
    status,
    body: { type: 'error', error: { type, message: echo, ...(details ? { details } : {}) } },
  };
}

const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8' };

/** A 200 OpenAI stream that sends one chunk and then an `error` chunk echoing `echo`. */
export function openAIStreamError(echo: string): FakeScenario {
  const chunk = {
    id: 'chatcmpl-canary',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'gpt-primary',
    choices: [{ index: 0, delta: { role: 'assistant', content: 'Hel' }, finish_reason: null }],
  };
  const error = { error: { message: echo, type: 'server_error', param: null, code: null } };
  return {
    kind: 'raw',
    status: 200,
    headers: SSE_HEADERS,
    body: `data: ${JSON.stringify(chunk)}\n\ndata: ${JSON.stringify(error)}\n\n`,
  };
}

/** A 200 Anthropic stream that starts a message and then sends an `error` event echoing `echo`. */
export function anthropicStreamError(echo: string): FakeScenario {
  const start = {
    type: 'message_start',
    message: {
      id: 'msg_canary',
      type: 'message',
      role: 'assistant',
      model: 'claude-primary',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 5, output_tokens: 1 },
    },
  };
  const error = { type: 'error', error: { type: 'overloaded_error', message: echo } };
  return {
    kind: 'raw',
    status: 200,
    headers: SSE_HEADERS,
    body: `event: message_start\ndata: ${JSON.stringify(start)}\n\nevent: error\ndata: ${JSON.stringify(error)}\n\n`,
  };
}

/** A 200 stream whose first event's data is not JSON but text echoing `echo` (the SDKs log such data). */
export function unparsableStream(provider: 'openai' | 'anthropic', echo: string): FakeScenario {
  const event = provider === 'anthropic' ? 'event: message_start\n' : '';
  return { kind: 'raw', status: 200, headers: SSE_HEADERS, body: `${event}data: {upstream said ${echo}\n\n` };
}

/** Everywhere the fake can put the caller's key back: the error code, the request-id header, the body. */
const EVERYWHERE = ['code', 'request_id', 'body'] as const;

/**
 * Answers that echo the key the request carried where field-by-field rules let an identifier-shaped key through
 * (an error code, a request id) and in the body, on failures, on a success, and in a stream: only scrubbing the
 * key's value keeps it out of history, records, errors and logs.
 */
export function keyEchoes(): {
  readonly plain: readonly (readonly [string, FakeScenario])[];
  readonly streamed: readonly (readonly [string, FakeScenario])[];
} {
  return {
    plain: [
      ['gpt-primary', { kind: 'error', error: 'rate_limited', echoApiKey: [...EVERYWHERE] }],
      ['claude-primary', { kind: 'error', error: 'overloaded', echoApiKey: [...EVERYWHERE] }],
      ['gpt-secondary', { kind: 'error', error: 'server_error', echoApiKey: ['request_id'] }],
      ['claude-secondary', { kind: 'answer', text: 'Paris.', echoApiKey: ['request_id', 'body'] }],
    ],
    streamed: [
      ['gpt-primary', { kind: 'stream_error', error: 'overloaded', echoApiKey: [...EVERYWHERE] }],
      ['claude-primary', { kind: 'answer', text: 'Streamed Paris.', echoApiKey: ['request_id', 'body'] }],
    ],
  };
}

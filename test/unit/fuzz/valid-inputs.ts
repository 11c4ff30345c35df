// Valid config, routed-call and schedule documents that the bad-input fuzz mutates, with domain values to try.
import type { ConfigInput } from '../../../src/config/config';
import type { RoutedCallInputValue } from '../../../src/config/routed-call-input';
import type { ScheduleDefinitionInput } from '../../../src/config/schedule';
import { PROTOTYPE_KEYS } from './json-mutations';

/** The repository's example config, plus every optional field, a second route and budgets. */
export const VALID_CONFIG = {
  providers: {
    openai: {
      kind: 'openai',
      apiKeyEnv: 'OPENAI_API_KEY',
      baseURL: 'http://127.0.0.1:9/v1',
      models: {
        'gpt-4o-mini': {
          inputUsdPerMillion: 0.15,
          cachedInputUsdPerMillion: 0.075,
          outputUsdPerMillion: 0.6,
          contextWindow: 128000,
        },
      },
    },
    anthropic: {
      kind: 'anthropic',
      apiKeyEnv: 'ANTHROPIC_API_KEY',
      models: {
        'claude-haiku-4-5': {
          inputUsdPerMillion: 1,
          cachedInputUsdPerMillion: 0.1,
          outputUsdPerMillion: 5,
          contextWindow: 200000,
        },
      },
    },
  },
  routes: {
    support: {
      targets: [
        { provider: 'openai', model: 'gpt-4o-mini', timeoutMs: 30000, retries: 1 },
        { provider: 'anthropic', model: 'claude-haiku-4-5', timeoutMs: 30000 },
      ],
      deadlineMs: 90000,
      breaker: { failureThreshold: 3, cooldownMs: 30000 },
    },
    batch: {
      targets: [{ provider: 'anthropic', model: 'claude-haiku-4-5' }],
      maxAttempts: 3,
      failoverOn: ['rate_limited', 'timeout'],
      whenAllOpen: 'fail',
      requireBudget: true,
      heartbeatTimeoutMs: 10000,
    },
  },
  defaultRoute: 'support',
  budgets: { 'team-docs': { limitUsd: 25, period: 'month' }, nightly: { limitUsd: 0.5 } },
} as const satisfies ConfigInput;

/** Values that are wrong only in context: unknown names, names of other things, bad enum spellings. */
export const CONFIG_DOMAIN_VALUES: readonly unknown[] = [
  ...PROTOTYPE_KEYS,
  'nope',
  'openai',
  'anthropic',
  'gpt-4o-mini',
  'claude-haiku-4-5',
  'support',
  'OpenAI',
  'openai_compatible',
  'probe-first',
  'weekly',
  'Rate_Limited',
  'invalid_request',
  'not a url',
  '1 2',
  'OPENAI-KEY',
];

/** A routed call with every field set and an inline route. */
export const VALID_INLINE_CALL = {
  route: {
    targets: [
      { provider: 'openai', model: 'gpt-4o-mini', timeoutMs: 20000, retries: 1 },
      { provider: 'anthropic', model: 'claude-haiku-4-5' },
    ],
    maxAttempts: 4,
    deadlineMs: 60000,
    failoverOn: ['timeout', 'unavailable'],
    breaker: { failureThreshold: 2, cooldownMs: 1000 },
    whenAllOpen: 'fail',
    requireBudget: true,
    heartbeatTimeoutMs: 5000,
  },
  request: {
    messages: [
      { role: 'user', content: 'What is a circuit breaker?' },
      { role: 'assistant', content: 'A switch that opens after failures.' },
      { role: 'user', content: 'And half-open?' },
    ],
    system: 'Be brief.',
    maxOutputTokens: 200,
    temperature: 0.7,
    jsonSchema: { type: 'object', properties: { answer: { type: 'string' } } },
    tools: [{ name: 'lookup', description: 'Looks a term up.', parameters: { type: 'object' } }],
  },
  budget: 'team-docs',
  maxCostUsd: 0.5,
  deadlineMs: 30000,
  patienceMs: 60000,
  stream: true,
  labels: { job: '42', owner: 'docs' },
} as const satisfies RoutedCallInputValue;

/** A routed call on a configured route, by name. */
export const VALID_NAMED_CALL = {
  route: 'support',
  request: { messages: [{ role: 'user', content: 'Hello' }], maxOutputTokens: 50 },
  budget: 'team-docs',
} as const satisfies RoutedCallInputValue;

export const REQUEST_DOMAIN_VALUES: readonly unknown[] = [
  ...CONFIG_DOMAIN_VALUES,
  'system',
  'tool',
  'cancelled',
  'content_policy',
  'bad tool name',
  'batch',
];

/** A cron schedule with every field set. */
export const VALID_CRON_SCHEDULE = {
  id: 'digest',
  cron: '0 9 * * 1-5',
  timezone: 'Europe/Berlin',
  call: VALID_NAMED_CALL,
  budget: 'team-docs',
  note: 'owner: docs',
  overlap: 'buffer_one',
  catchupWindow: '10m',
  deliver: { webhookUrl: 'https://hooks.example.com/switchyard', directory: '/var/switchyard' },
  paused: true,
} as const satisfies ScheduleDefinitionInput;

/** An interval schedule with an inline route. */
export const VALID_INTERVAL_SCHEDULE = {
  id: 'pulse',
  every: '1h30m',
  call: VALID_INLINE_CALL,
  catchupWindow: 60000,
} as const satisfies ScheduleDefinitionInput;

export const SCHEDULE_DOMAIN_VALUES: readonly unknown[] = [
  ...REQUEST_DOMAIN_VALUES,
  '@every 1h',
  'TZ=UTC 0 * * * *',
  '61 * * * *',
  '* * * *',
  '0 9 * * MON-XYZ',
  'Mars/Olympus',
  '500ms',
  '5s',
  '367d',
  '1h30',
  'BUFFER_ONE',
  'ftp://example.com/hook',
  'relative/dir',
  'team-other',
  'a/b',
];

// Unknown keys are refused wherever a schema is read: config files, routed-call inputs, requests, schedules.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { validateCallInput } from '../../../src/client/switchyard-client';
import { InvalidRequestError } from '../../../src/client/errors';
import { ConfigError, parseConfig } from '../../../src/config/load-config';
import { editDistance, nearestKey } from '../../../src/config/nearest-key';
import { RoutedCallInputSchema } from '../../../src/config/routed-call-input';
import { ScheduleDefinitionSchema, ScheduledGenerationInputSchema } from '../../../src/config/schedule';
import { BudgetLimitChangeSchema } from '../../../src/config/budget';

const example = JSON.parse(
  readFileSync(path.join(__dirname, '../../../switchyard.config.example.json'), 'utf8'),
);

function configError(value: unknown): ConfigError {
  try {
    parseConfig(value);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected the config to be refused');
}

function requestError(value: unknown): InvalidRequestError {
  try {
    validateCallInput(value as never);
  } catch (error) {
    if (error instanceof InvalidRequestError) return error;
    throw error;
  }
  throw new Error('expected the call to be refused');
}

test.each([
  ['routes.support.breaker.failureTreshold', 'failureThreshold'],
  ['routes.support.maxAttempt', 'maxAttempts'],
  ['budget', 'budgets'],
  ['providers.openai.baseUrl', 'baseURL'],
  ['providers.openai.models.gpt-4o-mini.outputUsdPerMilion', 'outputUsdPerMillion'],
  ['routes.support.targets.0.timeout', 'timeoutMs'],
])('a config with %s is refused at its path, suggesting %s', (field, suggestion) => {
  const broken = structuredClone(example);
  const keys = field.split('.');
  let parent = broken;
  for (const key of keys.slice(0, -1)) {
    parent[key] ??= {};
    parent = parent[key];
  }
  parent[keys.at(-1)!] = 5;
  const error = configError(broken);
  expect(error.issues.map((issue) => issue.path.join('.'))).toContain(field);
  expect(error.message).toContain(`unknown key "${keys.at(-1)}" (did you mean "${suggestion}"?)`);
});

test('an unknown key with no near known key lists the known ones; several are each named', () => {
  const broken = structuredClone(example);
  broken.routes.support.colour = 'blue';
  broken.routes.support.maxAttempt = 3;
  const error = configError(broken);
  expect(error.issues.map((issue) => issue.path.join('.'))).toEqual(
    expect.arrayContaining(['routes.support.colour', 'routes.support.maxAttempt']),
  );
  expect(error.message).toMatch(
    /unknown key "colour" \(known keys: targets, .*maxAttempts, .*heartbeatTimeoutMs\)/,
  );
  expect(error.message).toContain('unknown key "maxAttempt" (did you mean "maxAttempts"?)');
});

test('a routed call with a mistyped field is refused, naming the field', () => {
  const call = { route: 'support', request: { messages: [{ role: 'user', content: 'hi' }] } };
  expect(requestError({ ...call, deadline: 5 }).field).toBe('deadline');
  const misspelt = requestError({ ...call, request: { ...call.request, temprature: 0.5 } });
  expect(misspelt.field).toBe('request.temprature');
  expect(misspelt.message).toContain('did you mean "temperature"?');
  expect(requestError({ ...call, maxCostUSD: 1 }).message).toContain('did you mean "maxCostUsd"?');
  const inline = requestError({
    ...call,
    route: { targets: [{ provider: 'openai', model: 'gpt-4o-mini', retry: 1 }] },
  });
  expect(inline.field).toBe('route.targets.0.retry');
  expect(inline.message).toContain('did you mean "retries"?');
  const message = requestError({
    ...call,
    request: { messages: [{ role: 'user', content: 'hi', name: 'x' }] },
  });
  expect(message.field).toBe('request.messages.0.name');
});

test('free-form JSON stays free-form: tool parameters, JSON schemas and labels take any keys', () => {
  const parsed = RoutedCallInputSchema.parse({
    request: {
      messages: [{ role: 'user', content: 'hi' }],
      jsonSchema: { type: 'object', additionalProperties: false, anything: 1 },
      tools: [{ name: 'lookup', parameters: { type: 'object', whatever: true } }],
    },
    labels: { ticket: '4711', anyLabel: 'yes' },
  });
  expect(parsed.request.jsonSchema).toEqual({ type: 'object', additionalProperties: false, anything: 1 });
  expect(parsed.labels).toEqual({ ticket: '4711', anyLabel: 'yes' });
});

test('schedules, their delivery, scheduled inputs and limit changes refuse unknown keys', () => {
  const call = { request: { messages: [{ role: 'user', content: 'hi' }] } };
  const schedule = ScheduleDefinitionSchema.safeParse({ id: 'digest', every: '1h', call, notes: 'x' });
  expect(schedule.error?.issues[0]?.message).toContain('did you mean "note"?');
  const delivery = ScheduleDefinitionSchema.safeParse({
    id: 'digest',
    every: '1h',
    call,
    deliver: { directory: '/tmp/out', webhookURL: 'https://example.com' },
  });
  expect(delivery.error?.issues[0]?.message).toContain('did you mean "webhookUrl"?');
  const scheduled = ScheduledGenerationInputSchema.safeParse({ scheduleId: 'digest', call, extra: 1 });
  expect(scheduled.success).toBe(false);
  const limit = BudgetLimitChangeSchema.safeParse({ limitUsd: 5, periodd: 'day' });
  expect(limit.error?.issues[0]?.message).toContain('did you mean "period"?');
});

test('the nearest key: one edit per three characters, case-insensitive, transpositions count once', () => {
  expect(editDistance('failureTreshold', 'failureThreshold')).toBe(1);
  expect(editDistance('maxAtempts', 'maxAttempts')).toBe(1);
  expect(editDistance('retires', 'retries')).toBe(1);
  expect(editDistance('baseUrl', 'baseURL')).toBe(0);
  expect(nearestKey('colour', ['targets', 'maxAttempts'])).toBeUndefined();
  expect(nearestKey('ab', ['abc', 'xyz'])).toBe('abc');
  expect(nearestKey('x'.repeat(100_000), ['targets'])).toBeUndefined();
  expect(nearestKey(`targets${'x'.repeat(1_000_000)}`, ['targets'])).toBe('targets');
  expect(nearestKey('retry', ['timeoutMs', 'retries'])).toBe('retries');
});

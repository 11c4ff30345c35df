// A schedule change keeps what it does not name, switches between interval and cron, and removes with null.
import { applyScheduleChange } from '../../../src/client/schedule-change';
import { ScheduleDefinitionSchema, type ScheduleDefinition } from '../../../src/config/schedule';

const current: ScheduleDefinition = ScheduleDefinitionSchema.parse({
  id: 'digest',
  cron: '0 9 * * 1-5',
  timezone: 'Europe/Berlin',
  call: {
    route: 'support',
    request: { messages: [{ role: 'user', content: 'Digest' }] },
    patienceMs: 600_000,
  },
  budget: 'team-a',
  note: 'weekdays',
  deliver: { directory: '/out' },
});

test('an empty change keeps everything', () => {
  expect(ScheduleDefinitionSchema.parse(applyScheduleChange(current, {}))).toEqual(current);
});

test('an interval replaces the cron expression and its time zone', () => {
  const next = applyScheduleChange(current, { every: '2h' });
  expect(next).toMatchObject({
    every: '2h',
    note: 'weekdays',
    call: { budget: 'team-a', patienceMs: 600_000 },
  });
  expect(next.cron).toBeUndefined();
  expect(next.timezone).toBeUndefined();
});

test('a new cron keeps the time zone unless it changes too; null goes back to UTC', () => {
  expect(applyScheduleChange(current, { cron: '@daily' })).toMatchObject({
    cron: '@daily',
    timezone: 'Europe/Berlin',
  });
  expect(applyScheduleChange(current, { timezone: null }).timezone).toBeUndefined();
  expect(applyScheduleChange(current, { cron: '@daily', timezone: 'UTC' })).toMatchObject({
    timezone: 'UTC',
  });
});

test('a new call keeps the budget and patience unless it names its own; null removes', () => {
  const call = { request: { messages: [{ role: 'user' as const, content: 'Other' }] } };
  expect(applyScheduleChange(current, { call }).call).toMatchObject({
    budget: 'team-a',
    patienceMs: 600_000,
    request: { messages: [{ content: 'Other' }] },
  });
  expect(
    applyScheduleChange(current, { call: { ...call, budget: 'team-b', patienceMs: 0 } }).call,
  ).toMatchObject({
    budget: 'team-b',
    patienceMs: 0,
  });
  const removed = applyScheduleChange(current, { budget: null, note: null, deliver: null });
  expect(removed.call.budget).toBeUndefined();
  expect(removed.note).toBeUndefined();
  expect(removed.deliver).toBeUndefined();
});

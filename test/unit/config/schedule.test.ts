// Schedule definitions: defaults, the budget scope, and the problems refused before anything is created.
import { ScheduleDefinitionSchema } from '../../../src/config/schedule';

const call = { route: 'support', request: { messages: [{ role: 'user' as const, content: 'Digest' }] } };

function issues(input: object): { path: string; message: string }[] {
  const parsed = ScheduleDefinitionSchema.safeParse({ id: 'digest', call, ...input });
  return parsed.success
    ? []
    : parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
}

test('defaults: overlap skip, a 10-minute catch-up window, not paused; durations in milliseconds', () => {
  const definition = ScheduleDefinitionSchema.parse({ id: 'digest', every: '1h', call });
  expect(definition).toMatchObject({
    every: 3_600_000,
    overlap: 'skip',
    catchupWindow: 600_000,
    paused: false,
  });
  expect(definition.call.request.maxOutputTokens).toBe(1024);
});

test('the schedule budget becomes the call budget; the same scope twice is fine, two different ones are not', () => {
  expect(ScheduleDefinitionSchema.parse({ id: 'd', every: 60_000, call, budget: 'team-a' })).toMatchObject({
    budget: 'team-a',
    call: { budget: 'team-a' },
  });
  expect(
    ScheduleDefinitionSchema.parse({ id: 'd', every: 60_000, call: { ...call, budget: 'team-a' } }),
  ).toMatchObject({ budget: 'team-a' });
  expect(issues({ every: '1m', budget: 'team-a', call: { ...call, budget: 'team-b' } })).toEqual([
    { path: 'budget', message: 'the schedule\'s budget "team-a" and the call\'s budget "team-b" differ' },
  ]);
});

test.each([
  [{}, 'every', 'give either an interval (every) or a cron expression'],
  [{ every: '1h', cron: '@daily' }, 'cron', 'give either an interval (every) or a cron expression'],
  [{ every: '500ms' }, 'every', 'whole seconds, at least 1s'],
  [{ every: '1s500ms' }, 'every', 'whole seconds'],
  [{ every: '1h', timezone: 'Europe/Berlin' }, 'timezone', 'applies to cron expressions only'],
  [{ cron: '0 9 * * *', timezone: 'Europe/Nowhere' }, 'timezone', 'unknown time zone "Europe/Nowhere"'],
  [{ cron: '0 9 * * * *' }, 'cron', 'invalid cron expression: a cron expression has 5 fields'],
  [{ every: '1h', catchupWindow: '5s' }, 'catchupWindow', 'at least 10s'],
  [{ every: 'soon' }, 'every', '"soon" is not a duration'],
  [{ every: '1h', overlap: 'sometimes' }, 'overlap', 'Invalid option'],
  [{ every: '1h', deliver: {} }, 'deliver', 'delivery needs a webhookUrl, a directory, or both'],
  [{ every: '1h', deliver: { webhookUrl: 'ftp://example.com/x' } }, 'deliver.webhookUrl', 'http(s) URL'],
  [{ every: '1h', deliver: { directory: 'relative/out' } }, 'deliver.directory', 'absolute path'],
  [{ every: '1h', id: 'no spaces' }, 'id', 'a schedule id is'],
  [{ every: '1h', note: 'x'.repeat(1_001) }, 'note', ''],
])('%p is refused at %s', (input, path, message) => {
  const found = issues(input);
  expect(found.length).toBeGreaterThan(0);
  expect(found[0]).toMatchObject({ path });
  expect(found[0]!.message).toContain(message);
});

test('cron with a time zone and a delivery to both places is accepted', () => {
  expect(
    issues({
      cron: '0 9 * * 1-5',
      timezone: 'America/New_York',
      deliver: { webhookUrl: 'https://hooks.example.com/x', directory: '/var/lib/switchyard/out' },
    }),
  ).toEqual([]);
});

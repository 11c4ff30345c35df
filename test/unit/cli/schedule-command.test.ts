// `switchyard schedule`: bad command lines are refused before any connection, and views render as text.
import { UsageError } from '../../../src/cli/cli-errors';
import { scheduleCommand } from '../../../src/cli/commands/schedule';
import { describeWhen, renderScheduleDetails, renderScheduledRuns } from '../../../src/cli/render-schedule';
import type { ScheduleView } from '../../../src/client/schedules';
import { captureIo, writeTempFile } from './cli-test-io';
import { main } from '../../../src/cli/main';

test.each([
  { argv: [], message: 'missing the action' },
  { argv: ['launch', 'x'], message: 'unknown action "launch"' },
  { argv: ['describe'], message: 'missing the schedule <id> to describe' },
  { argv: ['list', 'x'], message: '"schedule list" takes no argument' },
  { argv: ['pause', 'a', 'b'], message: 'expected one schedule id, got 2' },
  {
    argv: ['create', 'x', '--prompt', 'hi'],
    message: 'say when it runs: --every <duration> or --cron <expr>',
  },
  {
    argv: ['create', 'x', '--every', '1h'],
    message: 'no request: give --prompt <text>, --file <path> or --request <path>',
  },
  {
    argv: ['create', 'x', '--every', '1h', '--cron', '@daily', '--prompt', 'hi'],
    message: 'give --every or --cron, not both',
  },
  {
    argv: ['create', 'x', '--every', 'soon', '--prompt', 'hi'],
    message: '--every: "soon" is not a duration',
  },
  {
    argv: ['create', 'x', '--every', '1h', '--prompt', 'hi', '--overlap', 'never'],
    message: '--overlap must be one of',
  },
  {
    argv: ['create', 'x', '--every', '1h', '--prompt', 'hi', '--file', 'p.txt'],
    message: 'give the request once',
  },
  { argv: ['create', 'x', '--every', '1h', '--prompt', ' '], message: '--prompt must not be empty' },
  {
    argv: ['create', 'x', '--every', '1h', '--request', '/nonexistent/r.json'],
    message: '--request cannot be read',
  },
  {
    argv: ['create', 'x', '--every', '1h', '--prompt', 'hi', '--no-deliver'],
    message: '--no-deliver applies to "schedule update" only',
  },
  { argv: ['update', 'x'], message: 'nothing to change' },
  { argv: ['update', 'x', '--paused'], message: 'use "schedule pause <id>"' },
  { argv: ['pause', 'x', '--every', '1h'], message: '--every does not apply to "schedule pause"' },
  { argv: ['results', 'x', '--limit', '0'], message: '--limit must be a positive integer' },
  { argv: ['trigger', 'x', '--note', 'n'], message: '--note does not apply to "schedule trigger"' },
])('schedule $argv is refused before connecting: $message', async ({ argv, message }) => {
  // An address nothing listens on: reaching it would fail differently (TemporalUnreachableError).
  const run = scheduleCommand.run([...argv, '--address', '127.0.0.1:1'], captureIo());
  await expect(run).rejects.toThrow(UsageError);
  await expect(run).rejects.toThrow(message);
});

test('a --request file must hold a request or a whole call', async () => {
  const file = writeTempFile('request.json', { prompt: 'hi' });
  const run = scheduleCommand.run(
    ['create', 'x', '--every', '1h', '--request', file, '--address', '127.0.0.1:1'],
    captureIo(),
  );
  await expect(run).rejects.toThrow('has neither "messages" (a request) nor "request" (a whole call)');
});

test('--help prints the usage without connecting', async () => {
  const io = captureIo();
  expect(await main(['schedule', '--help'], io)).toBe(0);
  expect(io.out()).toContain(
    'switchyard schedule create <id> (--every <duration> | --cron <expr> [--timezone <iana>])',
  );
  expect(io.out()).toContain('--deliver-webhook <url>');
});

const view: ScheduleView = {
  id: 'digest',
  cron: '0 9 * * 1-5',
  timezone: 'Europe/Berlin',
  call: {
    route: 'support',
    request: {
      messages: [{ role: 'user', content: 'Write the digest\nwith details' }],
      maxOutputTokens: 400,
    },
    budget: 'team-docs',
    patienceMs: 1_800_000,
    stream: false,
  },
  budget: 'team-docs',
  note: 'weekdays',
  overlap: 'skip',
  catchupWindow: 600_000,
  deliver: { webhookUrl: 'https://hooks.example.com/secret-path?token=x', directory: '/out' },
  paused: false,
  taskQueue: 'switchyard',
  nextRunTimes: [new Date('2025-01-06T08:00:00Z')],
  recentRuns: [],
  runningWorkflowIds: [],
  runsTaken: 3,
  runsSkippedByOverlap: 1,
  runsMissedCatchupWindow: 0,
  createdAt: new Date('2025-01-01T00:00:00Z'),
};

test('a schedule renders its timing, call and delivery, never the webhook path', () => {
  expect(describeWhen({ every: 5_400_000 })).toBe('every 1h30m');
  const text = renderScheduleDetails(view);
  expect(text).toMatch(/^when +cron 0 9 \* \* 1-5 \(Europe\/Berlin\)$/m);
  expect(text).toMatch(/^prompt +Write the digest$/m);
  expect(text).toMatch(/^patience +30m$/m);
  expect(text).toMatch(/^deliver +webhook https:\/\/hooks\.example\.com, directory \/out$/m);
  expect(text).toMatch(/^runs +3 taken, 1 skipped by overlap, 0 missed the catch-up window$/m);
  expect(text).not.toContain('secret-path');
});

test('runs render newest first with outcome, cost and delivery', () => {
  const text = renderScheduledRuns([
    {
      workflowId: 'switchyard-schedule-digest-2025-01-06T08:00:00Z',
      runId: 'r2',
      callWorkflowId: 'switchyard-schedule-digest-2025-01-06T08:00:00Z-call',
      status: 'FAILED',
      startedAt: new Date('2025-01-06T08:00:00Z'),
      error: { type: 'BudgetExceeded', message: 'no target is affordable' },
      delivery: { webhook: { delivered: false, error: 'answered 400' } },
    },
  ]);
  expect(text).toMatch(
    /^2025-01-06T08:00:00\.000Z +BudgetExceeded +webhook failed +switchyard-schedule-digest-/m,
  );
  expect(renderScheduledRuns([])).toContain('No runs yet');
});

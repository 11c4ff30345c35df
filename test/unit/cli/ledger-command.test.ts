// `switchyard ledger`: bad command lines are refused before any connection, and a snapshot renders as a table.
import { UsageError } from '../../../src/cli/cli-errors';
import { ledgerCommand } from '../../../src/cli/commands/ledger';
import { renderLedger } from '../../../src/cli/render-ledger';
import { setOperatorLimit } from '../../../src/routing/ledger-limits';
import { createLedgerState, reserveBatch } from '../../../src/routing/ledger-state';
import { ledgerSnapshot } from '../../../src/routing/ledger-snapshot';
import { captureIo } from './cli-test-io';
import { main } from '../../../src/cli/main';

test.each([
  { argv: [], message: 'missing the budget <scope>' },
  { argv: ['a', 'b'], message: 'expected one scope, got 2' },
  { argv: ['team', '--limit-usd', 'five'], message: '--limit-usd must be a number, got "five"' },
  { argv: ['team', '--limit-usd=-1'], message: '--limit-usd must not be negative, got -1' },
  { argv: ['team', '--limit-usd', '5', '--unlimited'], message: 'give --limit-usd or --unlimited, not both' },
  {
    argv: ['team', '--period', 'day'],
    message: '--period changes a limit: give it with --limit-usd or --unlimited',
  },
  {
    argv: ['team', '--limit-usd', '5', '--period', 'week'],
    message: '--period must be day, month or none, got "week"',
  },
  { argv: ['team', '--bogus'], message: 'unknown option --bogus' },
])('ledger $argv is refused before connecting: $message', async ({ argv, message }) => {
  // An address nothing listens on: reaching it would fail differently (TemporalUnreachableError).
  const run = ledgerCommand.run([...argv, '--address', '127.0.0.1:1'], captureIo());
  await expect(run).rejects.toThrow(UsageError);
  await expect(run).rejects.toThrow(message);
});

test('--help prints the usage without connecting', async () => {
  const io = captureIo();
  expect(await main(['ledger', '--help'], io)).toBe(0);
  expect(io.out()).toContain(
    'switchyard ledger [options] <scope> --limit-usd <usd> [--period day|month|none]',
  );
});

test('a snapshot renders its limit, spend, availability and open reservations', () => {
  const now = Date.UTC(2025, 0, 15, 12);
  const limited = setOperatorLimit(
    createLedgerState('team-docs', now),
    { limitNanoUsd: 5_000_000_000, period: 'day' },
    now,
  );
  const { state } = reserveBatch(
    limited,
    [{ reservationId: 'call-1#1', amountNanoUsd: 350_000_000, holder: 'call-1', leaseMs: 60_000 }],
    now,
  );
  const text = renderLedger(ledgerSnapshot(state));
  expect(text).toMatch(/^limit +5\.000000 USD per day \(UTC\), set by an operator$/m);
  expect(text).toMatch(/^window +since 2025-01-15T00:00:00\.000Z, resets 2025-01-16T00:00:00\.000Z$/m);
  expect(text).toMatch(/^reserved +0\.350000 USD in 1 open reservation$/m);
  expect(text).toMatch(/^available +4\.650000 USD$/m);
  expect(text).toMatch(/^call-1#1 +0\.350000 +call-1 +2025-01-15T12:01:00\.000Z$/m);
  expect(renderLedger(ledgerSnapshot(createLedgerState('open', now)))).toMatch(/^limit +unlimited/m);
});

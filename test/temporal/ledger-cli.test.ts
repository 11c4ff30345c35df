// `switchyard ledger` on a real dev server: set a limit with a period, then read the ledger as a table and as JSON.
import type { CommandIo } from '../../src/cli/command-io';
import { ledgerCommand } from '../../src/cli/commands/ledger';
import { ExitCode } from '../../src/cli/exit-codes';
import type { LedgerSnapshot } from '../../src/routing/ledger-snapshot';
import { startLedgerHarness, type LedgerHarness } from '../support/ledger-harness';
import { temporalAddress, uniqueName } from '../support/temporal';

let harness: LedgerHarness;
beforeAll(async () => {
  harness = await startLedgerHarness();
});
afterAll(async () => harness?.close());

/** Runs `switchyard ledger <argv> --address <dev server> --task-queue <taskQueue>` in-process. */
async function ledger(taskQueue: string, argv: readonly string[]) {
  let out = '';
  let err = '';
  const io: CommandIo = {
    stdout: { write: (text: string) => (out += text) },
    stderr: { write: (text: string) => (err += text) },
    stdin: {
      isTTY: true,
      [Symbol.asyncIterator]: () => {
        throw new Error('stdin must not be read');
      },
    },
  };
  const code = await ledgerCommand.run(
    [...argv, '--address', temporalAddress(), '--task-queue', taskQueue],
    io,
  );
  return { code, out, err };
}

test('--limit-usd 5 --period day sets the limit; the ledger reads back as a table and as JSON', async () => {
  const scope = uniqueName('cli');
  await harness.withWorkers({}, async ({ callTaskQueue: taskQueue, callers }) => {
    const set = await ledger(taskQueue, [scope, '--limit-usd', '5', '--period', 'day']);
    expect(set.code).toBe(ExitCode.ok);
    expect(set.out).toMatch(/^limit +5\.000000 USD per day \(UTC\), set by an operator$/m);

    // A call that reserved and has not settled yet (its lease is 15 minutes).
    await callers([{ scope, amountNanoUsd: 350_000_000, then: 'abandon' }]);
    const shown = await ledger(taskQueue, [scope]);
    expect(shown.code).toBe(ExitCode.ok);
    expect(shown.out).toMatch(/^reserved +0\.350000 USD in 1 open reservation$/m);
    expect(shown.out).toMatch(/^available +4\.650000 USD$/m);

    const json = await ledger(taskQueue, [scope, '--json']);
    const snapshot = JSON.parse(json.out) as LedgerSnapshot;
    expect(snapshot).toMatchObject({
      scope,
      limitNanoUsd: 5_000_000_000,
      period: 'day',
      reservedNanoUsd: 350_000_000,
    });
    expect(snapshot.spentNanoUsd + snapshot.reservedNanoUsd + snapshot.availableNanoUsd!).toBe(5_000_000_000);
  });
});

test('a scope without a ledger is reported as unlimited; --json prints null', async () => {
  const scope = uniqueName('cli-none');
  await harness.withWorkers({}, async ({ callTaskQueue: taskQueue }) => {
    expect((await ledger(taskQueue, [scope])).out).toContain(`scope ${scope} has no ledger yet`);
    expect((await ledger(taskQueue, [scope, '--json'])).out).toBe('null\n');
  });
});

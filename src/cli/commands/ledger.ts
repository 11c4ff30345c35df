// `switchyard ledger <scope>`: a budget scope's limit, spend and open reservations; sets its limit. Node side.
import { LEDGER_PERIODS, type BudgetLimitChange, type LedgerPeriod } from '../../config/budget';
import { UsageError } from '../cli-errors';
import { temporalUnreachable } from '../temporal-unreachable';
import type { Command } from '../command';
import { ExitCode } from '../exit-codes';
import type { FlagTable } from '../flags';
import { numberFlag } from '../flag-values';
import { GLOBAL_FLAGS, readGlobalOptions } from '../global-options';
import { EXIT_CODES_NOTE, renderHelp } from '../help-text';
import { booleanFlag, parseCommandArguments, stringFlag, type ParsedArguments } from '../parse-arguments';
import { renderLedger } from '../render-ledger';

const LIMIT_FLAGS = {
  'limit-usd': {
    type: 'string',
    valueName: '<usd>',
    description: 'set the limit in USD (rounded down to whole nano-USD) before showing the ledger',
  },
  unlimited: { type: 'boolean', description: 'remove the limit: spend is still tracked, nothing is refused' },
  period: {
    type: 'string',
    valueName: '<day|month|none>',
    description: 'with a limit change: when spend resets (UTC); none removes the period (default: keep it)',
  },
} as const satisfies FlagTable;

const OUTPUT_FLAGS = {
  json: {
    type: 'boolean',
    description: 'print the snapshot as JSON (amounts in exact nano-USD too); null if none',
  },
} as const satisfies FlagTable;

const FLAGS = { ...LIMIT_FLAGS, ...OUTPUT_FLAGS, ...GLOBAL_FLAGS } satisfies FlagTable;

const HELP = renderHelp({
  usage: [
    'switchyard ledger [options] <scope>',
    'switchyard ledger [options] <scope> --limit-usd <usd> [--period day|month|none]',
    'switchyard ledger [options] <scope> --unlimited',
  ],
  description: [
    'Shows the budget ledger of a scope: its limit, the spend of the current window, what is reserved by calls',
    'in flight (each reservation with its holder and lease), what is still available and any overdraft.',
    'With --limit-usd or --unlimited it first sets the limit as an operator, creating the ledger if needed;',
    'that limit holds until the config file\'s "budgets" entry for the scope changes. A scope with no limit',
    'anywhere is unlimited but tracked. Reading a ledger needs a running worker.',
  ],
  sections: [
    { title: 'Limit', flags: LIMIT_FLAGS },
    { title: 'Output', flags: OUTPUT_FLAGS },
    { title: 'Global', flags: GLOBAL_FLAGS },
  ],
  examples: [
    'switchyard ledger team-docs',
    'switchyard ledger team-docs --limit-usd 5 --period day',
    'switchyard ledger team-docs --json | jq .availableNanoUsd',
  ],
  notes: [EXIT_CODES_NOTE],
});

function readPeriod(parsed: ParsedArguments): LedgerPeriod | null | undefined {
  const value = stringFlag(parsed, 'period');
  if (value === undefined) return undefined;
  if (value === 'none') return null;
  if (!LEDGER_PERIODS.includes(value as LedgerPeriod))
    throw new UsageError(`--period must be day, month or none, got "${value}"`);
  return value as LedgerPeriod;
}

/** The limit change the flags ask for, or undefined to only show the ledger. */
export function readLimitChange(parsed: ParsedArguments): BudgetLimitChange | undefined {
  const limitUsd = numberFlag('limit-usd', stringFlag(parsed, 'limit-usd'));
  const unlimited = booleanFlag(parsed, 'unlimited');
  const period = readPeriod(parsed);
  if (limitUsd !== undefined && unlimited) throw new UsageError('give --limit-usd or --unlimited, not both');
  if (limitUsd !== undefined && limitUsd < 0)
    throw new UsageError(`--limit-usd must not be negative, got ${limitUsd}`);
  // Checked here as well as by the client, so an out-of-range limit is refused before connecting.
  // The budget rules come with zod: loaded when a command line is checked, not for `ledger --help`.
  const { MAX_LIMIT_USD } = require('../../config/budget') as typeof import('../../config/budget');
  if (limitUsd !== undefined && limitUsd > MAX_LIMIT_USD)
    throw new UsageError(`--limit-usd must be at most ${MAX_LIMIT_USD}, got ${limitUsd}`);
  if (limitUsd === undefined && !unlimited) {
    if (period !== undefined)
      throw new UsageError('--period changes a limit: give it with --limit-usd or --unlimited');
    return undefined;
  }
  return { limitUsd: unlimited ? null : limitUsd!, ...(period !== undefined ? { period } : {}) };
}

export const ledgerCommand: Command = {
  name: 'ledger',
  help: () => HELP,
  async run(argv, io) {
    const parsed = parseCommandArguments(argv, FLAGS, { allowPositionals: true });
    const globals = readGlobalOptions(parsed);
    const [scope, ...extra] = parsed.positionals;
    if (scope === undefined || scope.trim() === '') throw new UsageError('missing the budget <scope>');
    if (extra.length) throw new UsageError(`expected one scope, got ${parsed.positionals.length}`);
    const { BudgetScopeSchema } = require('../../config/budget') as typeof import('../../config/budget');
    if (!BudgetScopeSchema.safeParse(scope).success)
      throw new UsageError(`the budget <scope> is 1-200 characters, got ${scope.length}`);
    const change = readLimitChange(parsed);

    // Loaded once the arguments are checked: the Temporal client is most of this command's start-up.
    const { connectSwitchyard, isTemporalUnavailable } =
      require('../connect-temporal') as typeof import('../connect-temporal');
    const connection = await connectSwitchyard(globals);
    try {
      const ledgers = connection.switchyard.ledgers;
      const snapshot = change ? await ledgers.setLimit(scope, change) : await ledgers.get(scope);
      if (booleanFlag(parsed, 'json')) {
        io.stdout.write(`${JSON.stringify(snapshot ?? null, null, 2)}\n`);
      } else if (snapshot) {
        io.stdout.write(renderLedger(snapshot));
      } else {
        io.stdout.write(
          `scope ${scope} has no ledger yet: no call has reserved on it and no limit was set (unlimited)\n`,
        );
      }
      return ExitCode.ok;
    } catch (error) {
      if (isTemporalUnavailable(error)) throw temporalUnreachable(globals, error);
      throw error;
    } finally {
      await connection.close();
    }
  },
};

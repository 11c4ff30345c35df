// `switchyard show <workflow-id>`: the routing record of a routed call, or its attempts so far. Node side.
import type { RoutedCallInspection } from '../../client/switchyard-client';
import { UsageError } from '../cli-errors';
import { temporalUnreachable } from '../temporal-unreachable';
import type { Command } from '../command';
import { ExitCode } from '../exit-codes';
import type { FlagTable } from '../flags';
import { GLOBAL_FLAGS, readGlobalOptions } from '../global-options';
import { EXIT_CODES_NOTE, renderHelp } from '../help-text';
import { booleanFlag, parseCommandArguments } from '../parse-arguments';
import { renderAttemptsTable, renderRoutingRecord } from '../render-routing-record';
import { renderFields } from '../text-table';

const OUTPUT_FLAGS = {
  json: {
    type: 'boolean',
    description: 'print {workflowId, status, answer?, record?, attempts, error?} as JSON instead of tables',
  },
} as const satisfies FlagTable;

const FLAGS = { ...OUTPUT_FLAGS, ...GLOBAL_FLAGS } satisfies FlagTable;

const HELP = renderHelp({
  usage: ['switchyard show [options] <workflow-id>'],
  description: [
    'Prints the routing record of a routed call: route, the target that served it, fallbacks, total cost and',
    'one row per attempt (outcome, failure class, HTTP status, latency, cost; "(bound)" marks a cost charged',
    'at its worst case because usage was unknown). A failed call shows the record its error carries; a',
    'running one shows the attempts that have ended so far, read from a worker. Exits 0 whenever the call',
    'could be read, whatever its status; use --json and its "status" to branch on the outcome.',
  ],
  sections: [
    { title: 'Output', flags: OUTPUT_FLAGS },
    { title: 'Global', flags: GLOBAL_FLAGS },
  ],
  examples: [
    'switchyard show switchyard-call-job-42',
    'switchyard show switchyard-call-job-42 --json | jq .record.totalCostUsd',
  ],
  notes: [EXIT_CODES_NOTE],
});

function renderInspection(inspection: RoutedCallInspection): string {
  const status: [string, string][] = [['status', inspection.status]];
  if (inspection.error) status.push(['error', `${inspection.error.type}: ${inspection.error.message}`]);
  if (inspection.record) return renderRoutingRecord(inspection.record, status);
  // Running, terminated or timed out: no record, only the attempts known so far.
  const fields = renderFields([['workflow', inspection.workflowId], ...status]);
  const emptyText = inspection.status === 'RUNNING' ? '(no attempt has ended yet)' : '(no attempts recorded)';
  return `${fields}\n\n${renderAttemptsTable(inspection.attempts, emptyText)}\n`;
}

export const showCommand: Command = {
  name: 'show',
  help: () => HELP,
  async run(argv, io) {
    const parsed = parseCommandArguments(argv, FLAGS, { allowPositionals: true });
    const globals = readGlobalOptions(parsed);
    const [workflowId, ...extra] = parsed.positionals;
    if (workflowId === undefined || workflowId.trim() === '')
      throw new UsageError('missing the <workflow-id> to show');
    if (extra.length) throw new UsageError(`expected one workflow id, got ${parsed.positionals.length}`);

    // Loaded after the arguments are checked: the connection brings the native worker runtime (a second or
    // more), which a mistyped flag should not wait for.
    const { connectSwitchyard, isTemporalUnavailable } =
      require('../connect-temporal') as typeof import('../connect-temporal');
    const connection = await connectSwitchyard(globals);
    try {
      const inspection = await connection.switchyard.inspect(workflowId);
      io.stdout.write(
        booleanFlag(parsed, 'json')
          ? `${JSON.stringify(inspection, null, 2)}\n`
          : renderInspection(inspection),
      );
      return ExitCode.ok;
    } catch (error) {
      if (isTemporalUnavailable(error)) throw temporalUnreachable(globals, error);
      throw error;
    } finally {
      await connection.close();
    }
  },
};

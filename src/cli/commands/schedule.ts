// `switchyard schedule`: create, list, describe, pause, unpause, trigger, update and delete scheduled generations; list their results. Node side.
import type { Schedules } from '../../client/schedules';
import { UsageError } from '../cli-errors';
import { temporalUnreachable } from '../temporal-unreachable';
import type { Command } from '../command';
import { ExitCode } from '../exit-codes';
import type { FlagTable } from '../flags';
import { GLOBAL_FLAGS, readGlobalOptions } from '../global-options';
import { EXIT_CODES_NOTE, renderHelp } from '../help-text';
import { booleanFlag, parseCommandArguments, stringFlag, type ParsedArguments } from '../parse-arguments';
import { renderScheduleDetails, renderScheduledRuns, renderScheduleTable } from '../render-schedule';
import {
  DELIVER_FLAGS,
  readChange,
  readDefinition,
  readLimit,
  readTriggerOverlap,
  WHAT_FLAGS,
  WHEN_FLAGS,
} from '../schedule-flags';

const OUTPUT_FLAGS = {
  json: { type: 'boolean', description: 'print the schedule(s), runs or outcome as JSON instead of text' },
  limit: {
    type: 'string',
    valueName: '<n>',
    description: 'results: how many runs to list, newest first (default: 10)',
  },
} as const satisfies FlagTable;

const FLAGS = {
  ...WHEN_FLAGS,
  ...WHAT_FLAGS,
  ...DELIVER_FLAGS,
  ...OUTPUT_FLAGS,
  ...GLOBAL_FLAGS,
} satisfies FlagTable;

const ACTIONS = [
  'create',
  'list',
  'describe',
  'pause',
  'unpause',
  'trigger',
  'update',
  'delete',
  'results',
] as const;
type Action = (typeof ACTIONS)[number];
const ALIASES: Readonly<Record<string, Action>> = { show: 'describe', resume: 'unpause', runs: 'results' };

const DEFINITION_FLAGS = [
  ...Object.keys(WHEN_FLAGS),
  ...Object.keys(WHAT_FLAGS),
  ...Object.keys(DELIVER_FLAGS),
];
/** Flags each action takes besides the global ones and --json. */
const ACTION_FLAGS: Readonly<Record<Action, readonly string[]>> = {
  create: DEFINITION_FLAGS,
  update: DEFINITION_FLAGS,
  list: [],
  describe: [],
  pause: ['note'],
  unpause: ['note'],
  trigger: ['overlap'],
  delete: [],
  results: ['limit'],
};

const HELP = renderHelp({
  usage: [
    'switchyard schedule create <id> (--every <duration> | --cron <expr> [--timezone <iana>])',
    '                               (--prompt <text> | --file <path> | --request <path>) [options]',
    'switchyard schedule list | describe <id> | results <id> [--limit <n>]',
    'switchyard schedule pause <id> | unpause <id> [--note <text>]',
    'switchyard schedule trigger <id> [--overlap <policy>]',
    'switchyard schedule update <id> [any create option]',
    'switchyard schedule delete <id>',
  ],
  description: [
    'Scheduled generations: a Temporal Schedule whose every run makes one routed call through the workers and',
    'delivers its outcome ({answer, record}, or {error, record}) to a webhook and/or a directory. Runs wait out',
    'provider outages for their patience (default 30m); with the default overlap policy "skip", a run that comes',
    'due while the previous one is still running is dropped, so an outage never piles up generations. A bad cron',
    'expression, time zone or route is refused before anything is created. "results" lists the latest runs,',
    'newest first, from Temporal (eventually consistent: a run that just ended may take a moment to show).',
  ],
  sections: [
    { title: 'When', flags: WHEN_FLAGS },
    { title: 'What (the routed call)', flags: WHAT_FLAGS },
    { title: 'Delivery', flags: DELIVER_FLAGS },
    { title: 'Output', flags: OUTPUT_FLAGS },
    { title: 'Global', flags: GLOBAL_FLAGS },
  ],
  examples: [
    'switchyard schedule create digest --cron "0 9 * * 1-5" --timezone Europe/Berlin \\',
    '    --file digest-prompt.md --route support --budget team-docs --deliver-dir ./digests',
    'switchyard schedule create pulse --every 1h --prompt "Summarise the status page" \\',
    '    --deliver-webhook https://hooks.example.com/switchyard --note "owner: ops"',
    'switchyard schedule trigger digest && switchyard schedule results digest --limit 5',
    'switchyard schedule update digest --every 2h --patience 1h',
    'switchyard schedule pause digest --note "provider migration"',
    'switchyard schedule results digest --json | jq ".[0].answer.text"',
  ],
  notes: [EXIT_CODES_NOTE],
});

function readAction(parsed: ParsedArguments): { action: Action; id: string | undefined } {
  const [word, id, ...extra] = parsed.positionals;
  if (word === undefined) throw new UsageError(`missing the action (${ACTIONS.join(', ')})`);
  // An own alias only: `constructor` or `__proto__` must not find Object.prototype's members.
  const alias = Object.hasOwn(ALIASES, word) ? ALIASES[word] : undefined;
  const action = alias ?? (ACTIONS.includes(word as Action) ? (word as Action) : undefined);
  if (!action) throw new UsageError(`unknown action "${word}" (actions: ${ACTIONS.join(', ')})`);
  if (action === 'list') {
    if (id !== undefined) throw new UsageError(`"schedule list" takes no argument, got "${id}"`);
  } else {
    if (id === undefined || id.trim() === '') throw new UsageError(`missing the schedule <id> to ${action}`);
    if (extra.length) {
      throw new UsageError(
        `expected one schedule id, got ${parsed.positionals.length - 1}; quote values with spaces`,
      );
    }
  }
  for (const [flag, value] of Object.entries(parsed.values)) {
    if (value === undefined || flag === 'json' || flag in GLOBAL_FLAGS) continue;
    if (!ACTION_FLAGS[action].includes(flag))
      throw new UsageError(`--${flag} does not apply to "schedule ${action}"`);
  }
  return { action, id };
}

function print(io: Parameters<Command['run']>[1], json: boolean, value: unknown, text: string): void {
  io.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : text);
}

export const scheduleCommand: Command = {
  name: 'schedule',
  help: () => HELP,
  async run(argv, io) {
    const parsed = parseCommandArguments(argv, FLAGS, { allowPositionals: true });
    const globals = readGlobalOptions(parsed);
    const json = booleanFlag(parsed, 'json');
    const { action, id } = readAction(parsed);
    // Everything the flags can get wrong is refused before connecting.
    const definition = action === 'create' ? await readDefinition(id!, parsed) : undefined;
    const change = action === 'update' ? await readChange(parsed) : undefined;
    const limit = action === 'results' ? readLimit(parsed) : undefined;
    const overlap = action === 'trigger' ? readTriggerOverlap(parsed) : undefined;
    const note = stringFlag(parsed, 'note');

    // Loaded only now: the connection brings the Temporal client and the native runtime, which a mistyped
    // flag should not wait for.
    const { connectSwitchyard, isTemporalUnavailable } =
      require('../connect-temporal') as typeof import('../connect-temporal');
    const { Schedules: SchedulesApi } =
      require('../../client/schedules') as typeof import('../../client/schedules');
    const connection = await connectSwitchyard(globals);
    try {
      const schedules: Schedules = new SchedulesApi({
        client: connection.temporal,
        taskQueue: connection.switchyard.taskQueue,
        ...(globals.configFile !== undefined ? { configFile: globals.configFile } : {}),
      });
      switch (action) {
        case 'create': {
          const view = await schedules.create(definition!);
          print(io, json, view, `schedule ${view.id} created\n\n${renderScheduleDetails(view)}`);
          break;
        }
        case 'update': {
          const view = await schedules.update(id!, change!);
          print(io, json, view, `schedule ${view.id} updated\n\n${renderScheduleDetails(view)}`);
          break;
        }
        case 'list': {
          const views = await schedules.list();
          print(io, json, views, renderScheduleTable(views));
          break;
        }
        case 'describe': {
          const view = await schedules.describe(id!);
          print(io, json, view, renderScheduleDetails(view));
          break;
        }
        case 'pause':
        case 'unpause': {
          const options = note !== undefined ? { note } : {};
          const view =
            action === 'pause' ? await schedules.pause(id!, options) : await schedules.unpause(id!, options);
          print(io, json, view, `schedule ${id} ${action}d${view.note ? `: ${view.note}` : ''}\n`);
          break;
        }
        case 'trigger': {
          await schedules.trigger(id!, overlap !== undefined ? { overlap } : {});
          print(
            io,
            json,
            { scheduleId: id, triggered: true },
            `schedule ${id} triggered; see its outcome with: switchyard schedule results ${id}\n`,
          );
          break;
        }
        case 'delete': {
          await schedules.delete(id!);
          print(
            io,
            json,
            { scheduleId: id, deleted: true },
            `schedule ${id} deleted; runs already started finish, and their results stay listable\n`,
          );
          break;
        }
        case 'results': {
          const runs = await schedules.results(id!, limit !== undefined ? { limit } : {});
          print(io, json, runs, renderScheduledRuns(runs));
          break;
        }
      }
      return ExitCode.ok;
    } catch (error) {
      if (isTemporalUnavailable(error)) throw temporalUnreachable(globals, error);
      if ((error as Error).name === 'ScheduleNotFoundError') {
        throw new UsageError(`no schedule "${id}" in this namespace`);
      }
      throw error;
    } finally {
      await connection.close();
    }
  },
};

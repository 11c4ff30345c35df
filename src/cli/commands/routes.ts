// `switchyard routes`: list the routes in effect, show one with its audit trail, set or delete one at runtime. Node side.
import { readFile } from 'node:fs/promises';
import type { RouteDetails, RouteView } from '../../client/routes';
import { UsageError } from '../cli-errors';
import type { Command } from '../command';
import type { CommandIo } from '../command-io';
import { ExitCode } from '../exit-codes';
import { nonEmptyFlag } from '../flag-values';
import type { FlagTable } from '../flags';
import { GLOBAL_FLAGS, readGlobalOptions } from '../global-options';
import { EXIT_CODES_NOTE, renderHelp } from '../help-text';
import { booleanFlag, parseCommandArguments, stringFlag } from '../parse-arguments';
import { temporalUnreachable } from '../temporal-unreachable';
import { renderFields, renderTable } from '../text-table';

const OUTPUT_FLAGS = {
  json: { type: 'boolean', description: 'print the routes, or the route after the change, as JSON' },
} as const satisfies FlagTable;

const CHANGE_FLAGS = {
  spec: {
    type: 'string',
    valueName: '<path|->',
    description: 'set only: the route spec as JSON, from a file or - for stdin',
  },
  by: {
    type: 'string',
    valueName: '<name>',
    description: 'set and delete: who makes the change, kept in the audit trail (default: cli)',
  },
  keys: {
    type: 'string',
    valueName: '<path>',
    description:
      "delete only: the gateway's key file, whose keys' routes are checked (default: SWITCHYARD_GATEWAY_KEYS, else ./switchyard.keys.json)",
  },
} as const satisfies FlagTable;

const FLAGS = { ...OUTPUT_FLAGS, ...CHANGE_FLAGS, ...GLOBAL_FLAGS } satisfies FlagTable;

const HELP = renderHelp({
  usage: [
    'switchyard routes [list] [options]',
    'switchyard routes show <name> [options]',
    'switchyard routes set <name> --spec <path|-> [--by <name>] [options]',
    'switchyard routes delete <name> [--by <name>] [--keys <path>] [options]',
  ],
  description: [
    "Routes changed at runtime, without restarting a worker. The config file's routes are the starting set",
    '(version 0); "set" adds a route or overrides the config\'s of that name, "delete" hides one (a config route',
    'included) until it is set again. Every change is checked first (the spec, its providers and models, its',
    "attempts in total against the cap of 10), gets the route's next version and joins its audit trail, which",
    '"show" prints. A route in use (the config\'s defaultRoute, a schedule, a gateway key, a route nesting it)',
    'cannot be deleted. Workers pick a change up within SWITCHYARD_ROUTE_REFRESH_MS (default 2 s); a call keeps',
    'the version it started with. Reading the routes needs a running worker and the config file.',
  ],
  sections: [
    { title: 'Output', flags: OUTPUT_FLAGS },
    { title: 'Change', flags: CHANGE_FLAGS },
    { title: 'Global', flags: GLOBAL_FLAGS },
  ],
  examples: [
    'switchyard routes',
    'switchyard routes show support',
    'switchyard routes set support --spec support-route.json --by alice',
    'echo \'{"targets":[{"provider":"openai","model":"gpt-4o-mini"}]}\' | switchyard routes set cheap --spec -',
    'switchyard routes delete cheap --by alice',
  ],
  notes: [EXIT_CODES_NOTE],
});

async function readStdin(stdin: CommandIo['stdin']): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** The spec `--spec` names (a path, or `-` for stdin), as JSON; its fields are checked by the client. */
export async function readRouteSpec(source: string, stdin: CommandIo['stdin']): Promise<unknown> {
  const where = source === '-' ? '--spec - (stdin)' : `--spec ${source}`;
  let text: string;
  try {
    text = source === '-' ? await readStdin(stdin) : await readFile(source, 'utf8');
  } catch (error) {
    throw new UsageError(
      `--spec cannot be read: ${source}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${where} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new UsageError(`${where} must hold a JSON object: a route spec with its "targets"`);
  return value;
}

function describeTargets(view: RouteView): string {
  if (!view.spec) return '';
  const targets = view.spec.targets.map((target) =>
    'route' in target
      ? `route:${target.route}`
      : `${target.provider}/${target.model}${target.retries ? ` (+${target.retries})` : ''}`,
  );
  return `${view.spec.strategy && view.spec.strategy !== 'ordered' ? `${view.spec.strategy}: ` : ''}${targets.join(', ')}`;
}

export function renderRouteTable(views: readonly RouteView[]): string {
  if (views.length === 0) return 'No routes: the config has none and none was set at runtime.\n';
  const rows = views.map((view) => [
    view.name,
    String(view.version),
    view.source,
    describeTargets(view),
    view.changedAt ? `${view.changedAt}${view.by ? ` by ${view.by}` : ''}` : '',
  ]);
  const columns = [
    { header: 'ROUTE' },
    { header: 'VERSION', align: 'right' as const },
    { header: 'SOURCE' },
    { header: 'TARGETS' },
    { header: 'CHANGED' },
  ];
  return `${renderTable(columns, rows)}\n`;
}

export function renderRouteDetails(details: RouteDetails): string {
  const fields: [string, string][] = [
    ['route', details.name],
    ['version', `${details.version}${details.deleted ? ' (deleted)' : ''}`],
    ['source', details.source === 'config' ? 'the config file' : 'set at runtime'],
  ];
  if (!details.deleted) fields.push(['targets', describeTargets(details)]);
  if (details.changedAt)
    fields.push(['changed', `${details.changedAt}${details.by ? ` by ${details.by}` : ''}`]);
  const spec = details.spec ? `\n\n${JSON.stringify(details.spec, null, 2)}` : '';
  const history = details.history.length
    ? renderTable(
        [
          { header: 'VERSION', align: 'right' as const },
          { header: 'ACTION' },
          { header: 'AT' },
          { header: 'BY' },
          { header: 'TARGETS' },
        ],
        details.history.map((entry) => [
          String(entry.version),
          entry.action,
          entry.at,
          entry.by ?? '',
          entry.spec ? describeTargets({ ...details, spec: entry.spec }) : '',
        ]),
      )
    : 'No runtime changes: the route is as the config file says.';
  return `${renderFields(fields)}${spec}\n\n${history}\n`;
}

const ACTIONS = ['list', 'show', 'set', 'delete'] as const;

export const routesCommand: Command = {
  name: 'routes',
  help: () => HELP,
  async run(argv, io) {
    const parsed = parseCommandArguments(argv, FLAGS, { allowPositionals: true });
    const globals = readGlobalOptions(parsed);
    const json = booleanFlag(parsed, 'json');
    const specSource = nonEmptyFlag('spec', stringFlag(parsed, 'spec'));
    const by = nonEmptyFlag('by', stringFlag(parsed, 'by')) ?? 'cli';
    const keysFile = nonEmptyFlag('keys', stringFlag(parsed, 'keys'));
    const [action = 'list', name, ...extra] = parsed.positionals;
    if (!(ACTIONS as readonly string[]).includes(action))
      throw new UsageError(`unknown action "${action}" (actions: ${ACTIONS.join(', ')})`);
    if (action === 'list' && name !== undefined)
      throw new UsageError(`"routes list" takes no argument, got "${name}"`);
    if (action !== 'list' && name === undefined)
      throw new UsageError(`missing the route <name> to ${action}`);
    if (extra.length) throw new UsageError(`expected one route <name>, got ${parsed.positionals.length - 1}`);
    if (action === 'set' && specSource === undefined)
      throw new UsageError('"routes set" needs --spec <path|-> (the route spec as JSON)');
    if (action !== 'set' && specSource !== undefined)
      throw new UsageError('--spec applies to "routes set" only');
    if (action !== 'delete' && keysFile !== undefined)
      throw new UsageError('--keys applies to "routes delete" only');
    const spec = action === 'set' ? await readRouteSpec(specSource!, io.stdin) : undefined;

    // The config holds the starting routes and the providers a route may name: a missing one is a config error.
    const { loadConfig } = require('../../config/load-config') as typeof import('../../config/load-config');
    const config = loadConfig(globals.configFile);
    // Loaded once the arguments are checked: the Temporal client is most of this command's start-up.
    const { connectSwitchyard, isTemporalUnavailable } =
      require('../connect-temporal') as typeof import('../connect-temporal');
    const { Routes, RouteInUseError, RouteNotFoundError } =
      require('../../client/routes') as typeof import('../../client/routes');
    const connection = await connectSwitchyard(globals, config);
    try {
      const routes = new Routes({
        client: connection.temporal,
        taskQueue: connection.switchyard.taskQueue,
        config,
        schedules: connection.switchyard.schedules,
        gatewayKeys: () => {
          const { keysPath } = require('../../gateway/key-store') as typeof import('../../gateway/key-store');
          const { readKeyFile } =
            require('../../gateway/keys-file') as typeof import('../../gateway/keys-file');
          return readKeyFile(keysPath(keysFile)).keys;
        },
      });
      try {
        if (action === 'list') {
          const views = await routes.list();
          io.stdout.write(json ? `${JSON.stringify(views, null, 2)}\n` : renderRouteTable(views));
          return ExitCode.ok;
        }
        const details =
          action === 'show'
            ? await routes.show(name!)
            : action === 'set'
              ? await routes.set(name!, spec as never, { by })
              : await routes.delete(name!, { by });
        if (json) io.stdout.write(`${JSON.stringify(details, null, 2)}\n`);
        else if (action === 'show') io.stdout.write(renderRouteDetails(details));
        else
          io.stdout.write(
            `route ${details.name} ${action === 'set' ? 'set' : 'deleted'}: version ${details.version}\n`,
          );
        return ExitCode.ok;
      } catch (error) {
        if (error instanceof RouteInUseError || error instanceof RouteNotFoundError) {
          io.stderr.write(`switchyard routes: ${error.message}\n`);
          return ExitCode.usage;
        }
        throw error;
      }
    } catch (error) {
      if (isTemporalUnavailable(error)) throw temporalUnreachable(globals, error);
      throw error;
    } finally {
      await connection.close();
    }
  },
};

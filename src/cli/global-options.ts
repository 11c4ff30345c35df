// The connection and config flags every command accepts, and where their defaults come from. Node side.
import type { FlagTable } from './flags';
import { nonEmptyFlag } from './flag-values';
import { stringFlag, type ParsedArguments } from './parse-arguments';

export const GLOBAL_FLAGS = {
  address: {
    type: 'string',
    valueName: '<host:port>',
    description:
      'Temporal front end (default: TEMPORAL_ADDRESS, else the Temporal profile, else localhost:7233)',
  },
  namespace: {
    type: 'string',
    valueName: '<name>',
    description: 'Temporal namespace (default: TEMPORAL_NAMESPACE, else the profile, else default)',
  },
  'task-queue': {
    type: 'string',
    valueName: '<name>',
    description: 'task queue of the Switchyard workers (default: SWITCHYARD_TASK_QUEUE, else switchyard)',
  },
  config: {
    type: 'string',
    valueName: '<path>',
    description: 'config file (default: SWITCHYARD_CONFIG, else ./switchyard.config.json)',
  },
  help: { type: 'boolean', short: 'h', description: 'show this help' },
} as const satisfies FlagTable;

/** The global flags that take a value; the dispatcher uses this to skip them before the command name. */
export const GLOBAL_VALUE_FLAGS: readonly string[] = Object.entries(GLOBAL_FLAGS)
  .filter(([, spec]) => spec.type === 'string')
  .map(([name]) => `--${name}`);

export interface GlobalOptions {
  /** @default resolved by `connectClient` from the environment */
  readonly address?: string;
  /** @default resolved by `connectClient` from the environment */
  readonly namespace?: string;
  /** @default `SWITCHYARD_TASK_QUEUE`, else 'switchyard' */
  readonly taskQueue?: string;
  /** @default `SWITCHYARD_CONFIG`, else ./switchyard.config.json (resolved by `loadConfig`) */
  readonly configFile?: string;
}

export function readGlobalOptions(parsed: ParsedArguments): GlobalOptions {
  const address = nonEmptyFlag('address', stringFlag(parsed, 'address'));
  const namespace = nonEmptyFlag('namespace', stringFlag(parsed, 'namespace'));
  const taskQueue = nonEmptyFlag('task-queue', stringFlag(parsed, 'task-queue'));
  const configFile = nonEmptyFlag('config', stringFlag(parsed, 'config'));
  return {
    ...(address !== undefined ? { address } : {}),
    ...(namespace !== undefined ? { namespace } : {}),
    ...(taskQueue !== undefined ? { taskQueue } : {}),
    ...(configFile !== undefined ? { configFile } : {}),
  };
}

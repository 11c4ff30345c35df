// The `switchyard` command: finds the subcommand, runs it, and maps every outcome to an exit code. Node side.
import { UsageError } from './cli-errors';
import type { Command } from './command';
import { processIo, type CommandIo } from './command-io';
import { ExitCode } from './exit-codes';
import { GLOBAL_FLAGS, GLOBAL_VALUE_FLAGS } from './global-options';
import { EXIT_CODES_NOTE, renderHelp } from './help-text';
import { wantsHelp } from './parse-arguments';
import { reportError } from './report-error';

interface CommandEntry {
  /** One line for the top-level help. */
  readonly summary: string;
  /**
   * Loads the command's module on demand: `worker` brings the native runtime and the provider SDKs, and
   * `call` the Temporal client, none of which `switchyard --help` or `plan` should wait for.
   */
  readonly load: () => Command;
}

const COMMANDS: Readonly<Record<string, CommandEntry>> = {
  call: {
    summary: 'run one routed call; the answer goes to stdout, the routing record to stderr',
    load: () => (require('./commands/call') as typeof import('./commands/call')).callCommand,
  },
  plan: {
    summary: 'show what a call would do now (targets, timeouts, cost bounds) without calling anything',
    load: () => (require('./commands/plan') as typeof import('./commands/plan')).planCommand,
  },
  show: {
    summary: 'print the routing record of a call, or its attempts so far, by workflow id',
    load: () => (require('./commands/show') as typeof import('./commands/show')).showCommand,
  },
  breakers: {
    summary: 'list circuit breakers, show one with its transitions, or reset one',
    load: () => (require('./commands/breakers') as typeof import('./commands/breakers')).breakersCommand,
  },
  ledger: {
    summary: "show a budget scope's limit, spend and open reservations; --limit-usd sets its limit",
    load: () => (require('./commands/ledger') as typeof import('./commands/ledger')).ledgerCommand,
  },
  routes: {
    summary: 'list the routes in effect, show one with its audit trail, set or delete one at runtime',
    load: () => (require('./commands/routes') as typeof import('./commands/routes')).routesCommand,
  },
  schedule: {
    summary: 'create, pause, trigger and change scheduled generations; list their results',
    load: () => (require('./commands/schedule') as typeof import('./commands/schedule')).scheduleCommand,
  },
  worker: {
    summary: 'run a Switchyard worker until SIGINT / SIGTERM',
    load: () => (require('./commands/worker') as typeof import('./commands/worker')).workerCommand,
  },
  serve: {
    summary: 'serve the OpenAI- and Anthropic-compatible HTTP gateway (routed calls from any SDK)',
    load: () => (require('./commands/serve') as typeof import('./commands/serve')).serveCommand,
  },
  keys: {
    summary:
      "create, list and revoke the gateway's keys (stored hashed, each limited to routes and a budget)",
    load: () => (require('./commands/keys') as typeof import('./commands/keys')).keysCommand,
  },
  'codec-server': {
    summary: 'serve the payload codec, so the Web UI and CLI can read encrypted prompts and answers',
    load: () =>
      (require('./commands/codec-server') as typeof import('./commands/codec-server')).codecServerCommand,
  },
};

/** The command named `name`; an own entry only, so `constructor` or `__proto__` is an unknown command. */
function commandEntry(name: string): CommandEntry | undefined {
  return Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
}

function topLevelHelp(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length), 'help'.length);
  const commandLines = [
    ...Object.entries(COMMANDS).map(([name, entry]) => `  ${name.padEnd(width)}  ${entry.summary}`),
    `  ${'help'.padEnd(width)}  show the help of a command ("switchyard help call")`,
  ];
  return renderHelp({
    usage: ['switchyard <command> [options]'],
    description: [
      'Durable LLM model routing on Temporal: failover across providers, circuit breakers, budgets, and a',
      'record of every attempt.',
      '',
      'Commands:',
      ...commandLines,
    ],
    sections: [
      { title: 'Global options (accepted by every command, before or after its name)', flags: GLOBAL_FLAGS },
    ],
    examples: [
      'switchyard worker --config ./switchyard.config.json',
      'switchyard call "Name three prime numbers" --route support',
      'git diff | switchyard call --system "Review this diff" --json',
      'switchyard plan --route support --max-output-tokens 4000',
      'switchyard show switchyard-call-job-42',
    ],
    notes: ['Run "switchyard <command> --help" for the options of a command.', EXIT_CODES_NOTE],
  });
}

interface SplitArguments {
  /** Undefined when no command was named (or only top-level help was asked for). */
  readonly commandName?: string;
  /** Global options that came before the command, then everything after it. */
  readonly commandArguments: readonly string[];
  readonly help: boolean;
}

/** Takes global options written before the command name (`switchyard --address x call …`) along to the command. */
function splitArguments(argv: readonly string[]): SplitArguments {
  const leading: string[] = [];
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index]!;
    if (argument === '-h' || argument === '--help') return { commandArguments: [], help: true };
    if (GLOBAL_VALUE_FLAGS.includes(argument)) {
      const value = argv[index + 1];
      if (value === undefined) throw new UsageError(`${argument} needs a value`);
      leading.push(argument, value);
      index += 1;
    } else if (GLOBAL_VALUE_FLAGS.some((flag) => argument.startsWith(`${flag}=`))) {
      leading.push(argument);
    } else if (argument.startsWith('-')) {
      throw new UsageError(`unknown option ${argument} before the command`);
    } else {
      return { commandName: argument, commandArguments: [...leading, ...argv.slice(index + 1)], help: false };
    }
  }
  return { commandArguments: leading, help: false };
}

/** Runs the CLI with the arguments after `switchyard` and resolves with the process exit code. */
export async function main(argv: readonly string[], io: CommandIo = processIo()): Promise<ExitCode> {
  let split: SplitArguments;
  try {
    split = splitArguments(argv);
  } catch (error) {
    return reportError(error, undefined, io);
  }
  if (split.help) {
    io.stdout.write(topLevelHelp());
    return ExitCode.ok;
  }
  const { commandName, commandArguments } = split;
  if (commandName === undefined) {
    io.stderr.write(topLevelHelp());
    return ExitCode.usage;
  }
  if (commandName === 'help') {
    const [topic, ...extra] = commandArguments;
    if (topic === undefined) {
      io.stdout.write(topLevelHelp());
      return ExitCode.ok;
    }
    const entry = commandEntry(topic);
    if (!entry || extra.length)
      return reportError(new UsageError(`no help for "${commandArguments.join(' ')}"`), undefined, io);
    io.stdout.write(entry.load().help());
    return ExitCode.ok;
  }
  const entry = commandEntry(commandName);
  if (!entry) {
    const known = [...Object.keys(COMMANDS), 'help'].join(', ');
    return reportError(
      new UsageError(`unknown command "${commandName}" (commands: ${known})`),
      undefined,
      io,
    );
  }
  try {
    const command = entry.load();
    // Help wins over everything else on the line, for every command alike.
    if (wantsHelp(commandArguments)) {
      io.stdout.write(command.help());
      return ExitCode.ok;
    }
    return await command.run(commandArguments, io);
  } catch (error) {
    return reportError(error, commandName, io);
  }
}

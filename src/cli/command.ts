// The shape every `switchyard` subcommand module exports. Node side.
import type { CommandIo } from './command-io';
import type { ExitCode } from './exit-codes';

export interface Command {
  /** The word after `switchyard`. */
  readonly name: string;
  /** The full `--help` text. */
  help(): string;
  /**
   * Runs the command with the arguments after its name; `--help` among them never gets here (the dispatcher
   * prints {@link help}). Errors it throws are reported by the dispatcher; the resolved value is the exit code.
   */
  run(argv: readonly string[], io: CommandIo): Promise<ExitCode>;
}

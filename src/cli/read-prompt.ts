// Finds the prompt: the argument, `--file`, or stdin (`-`, or no argument on a pipe). Node side (file I/O).
import { readFile } from 'node:fs/promises';
import { UsageError } from './cli-errors';
import type { CommandIo } from './command-io';

export interface PromptSources {
  /** The command's positional arguments; at most one, the prompt or `-`. */
  readonly positionals: readonly string[];
  /** `--file`, when given. */
  readonly file?: string;
  readonly stdin: CommandIo['stdin'];
  /**
   * Read stdin when no prompt is given and stdin is not a terminal (`echo hi | switchyard call`). `plan` turns
   * this off so that it never waits on a pipe nobody writes to.
   */
  readonly readStdinWhenAbsent: boolean;
  /** Prompt used when none is given; without one, an absent prompt is a usage error. */
  readonly fallback?: string;
}

async function readStdin(stdin: CommandIo['stdin']): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

function nonEmpty(prompt: string, origin: string): string {
  if (prompt.trim() === '') throw new UsageError(`the prompt ${origin} is empty`);
  return prompt;
}

export async function readPrompt(sources: PromptSources): Promise<string> {
  const { positionals, file } = sources;
  if (positionals.length > 1) {
    throw new UsageError(
      `expected one prompt argument, got ${positionals.length}; quote a prompt that contains spaces`,
    );
  }
  const argument = positionals[0];
  if (file !== undefined) {
    if (argument !== undefined)
      throw new UsageError('give the prompt as an argument or with --file, not both');
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw new UsageError(
        `--file cannot be read: ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      );
    }
    return nonEmpty(text, `in ${file}`);
  }
  if (argument === '-') return nonEmpty(await readStdin(sources.stdin), 'on stdin');
  if (argument !== undefined) return nonEmpty(argument, 'argument');
  if (sources.readStdinWhenAbsent && !sources.stdin.isTTY)
    return nonEmpty(await readStdin(sources.stdin), 'on stdin');
  if (sources.fallback !== undefined) return sources.fallback;
  throw new UsageError('no prompt: pass it as an argument, with --file <path>, or on stdin');
}

// Finds what a call asks: the prompt (the argument, `--file`, or stdin: `-`, or no argument on a pipe) with its
// `--image` attachments, or a whole request (`--request`). Node side (file I/O).
import { readFile } from 'node:fs/promises';
import type { GenerationRequestInput, ImagePart } from '../config/request';
import { UsageError } from './cli-errors';
import type { CommandIo } from './command-io';
import { readImage } from './read-image';
import { readRequestFile } from './read-request-file';

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

/** What a call asks: a prompt with the images attached to it, or a whole request read from `--request`. */
export type RequestContent =
  | { readonly kind: 'prompt'; readonly text: string; readonly images: readonly ImagePart[] }
  | { readonly kind: 'request'; readonly source: string; readonly request: GenerationRequestInput };

export interface RequestContentSources extends PromptSources {
  /** `--request`: a path, or `-` for stdin. */
  readonly requestFile?: string;
  /** `--image` paths, in order. */
  readonly images: readonly string[];
  /** `--system`, only to refuse it beside `--request`. */
  readonly system?: string;
}

/** `a`, `a or b`, `a, b or c`. */
function listOr(items: readonly string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)!}`;
}

/**
 * The request's content. `--request` is the whole conversation, so the flags that would make one are refused
 * beside it rather than merged in some order a reader would have to guess.
 */
export async function readRequestContent(sources: RequestContentSources): Promise<RequestContent> {
  if (sources.requestFile !== undefined) {
    const conflicts = [
      ...(sources.positionals.length > 0 ? ['a prompt argument'] : []),
      ...(sources.file !== undefined ? ['--file'] : []),
      ...(sources.system !== undefined ? ['--system'] : []),
      ...(sources.images.length > 0 ? ['--image'] : []),
    ];
    if (conflicts.length > 0) {
      throw new UsageError(
        `--request holds the whole conversation, so it takes no ${listOr(conflicts)}: ` +
          'put the messages (images included) and the system prompt in the request',
      );
    }
    const source = sources.requestFile;
    return { kind: 'request', source, request: await readRequestFile(source, sources.stdin) };
  }
  const text = await readPrompt(sources);
  const images: ImagePart[] = [];
  for (const file of sources.images) images.push(await readImage(file));
  return { kind: 'prompt', text, images };
}

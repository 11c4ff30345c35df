// Strict argument parsing with node:util parseArgs, its errors rewritten to name the flag. Node side.
import { parseArgs } from 'node:util';
import { UsageError } from './cli-errors';
import { parseArgsOptions, type FlagTable } from './flags';

export interface ParsedArguments {
  readonly values: Readonly<Record<string, string | boolean | readonly string[] | undefined>>;
  readonly positionals: readonly string[];
}

/** True when `-h` / `--help` appears before any `--`: help wins over every other argument, even bad ones. */
export function wantsHelp(argv: readonly string[]): boolean {
  for (const argument of argv) {
    if (argument === '--') return false;
    if (argument === '-h' || argument === '--help') return true;
  }
  return false;
}

/** parseArgs errors carry the option in quotes (`Unknown option '--foo'`); `--route <value>` keeps the name. */
function quotedOption(message: string): string | undefined {
  return /'(-{1,2}[^' ]+)[^']*'/.exec(message)?.[1];
}

/**
 * The first option in `argv` that `flags` does not declare, exactly as written (`--a b`, `-x`). Read from the
 * tokens of a lenient parse: the error message quotes it in a way a name with quotes cannot survive.
 */
function unknownOption(argv: readonly string[], flags: FlagTable): string | undefined {
  for (const token of lenientTokens(argv, flags)) {
    if (token.kind === 'option' && !Object.hasOwn(flags, token.name)) return token.rawName;
  }
  return undefined;
}

/** The first positional argument in `argv`, exactly as written (it may hold quotes, like `it's`). */
function firstPositional(argv: readonly string[], flags: FlagTable): string | undefined {
  const token = lenientTokens(argv, flags).find((candidate) => candidate.kind === 'positional');
  return token?.kind === 'positional' ? token.value : undefined;
}

function lenientTokens(argv: readonly string[], flags: FlagTable) {
  return parseArgs({
    args: [...argv],
    options: parseArgsOptions(flags),
    strict: false,
    allowPositionals: true,
    tokens: true,
  }).tokens;
}

function describeParseError(error: unknown, argv: readonly string[], flags: FlagTable): string {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  const option = quotedOption(message);
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option ${unknownOption(argv, flags) ?? option ?? message}`;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument "${firstPositional(argv, flags) ?? /'([^']*)'/.exec(message)?.[1] ?? message}"`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      if (!option) return message;
      if (message.includes('argument missing')) return `${option} needs a value`;
      // A value that starts with a dash (`--temperature -1`) reads as another option unless attached.
      if (message.includes('ambiguous'))
        return `${option} needs a value; to pass one that starts with "-", write ${option}=<value>`;
      if (message.includes('does not take an argument')) return `${option} does not take a value`;
      return message;
    default:
      throw error;
  }
}

/** Parses `argv` against `flags`, refusing unknown flags, missing values and repeated flags. */
export function parseCommandArguments(
  argv: readonly string[],
  flags: FlagTable,
  options: { readonly allowPositionals: boolean },
): ParsedArguments {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: parseArgsOptions(flags),
      strict: true,
      allowPositionals: options.allowPositionals,
      tokens: true,
    });
  } catch (error) {
    throw new UsageError(describeParseError(error, argv, flags));
  }
  // parseArgs keeps the last of repeated flags silently; a repeated `--route` is more likely a mistake.
  // Only a flag declared `multiple` (`--image`) may repeat, and parseArgs then gives its values as an array.
  const seen = new Set<string>();
  for (const token of parsed.tokens) {
    if (token.kind !== 'option' || flags[token.name]?.multiple) continue;
    if (seen.has(token.name)) throw new UsageError(`--${token.name} is given more than once`);
    seen.add(token.name);
  }
  return { values: parsed.values as ParsedArguments['values'], positionals: parsed.positionals };
}

export function stringFlag(parsed: ParsedArguments, name: string): string | undefined {
  const value = parsed.values[name];
  return typeof value === 'string' ? value : undefined;
}

/** Every value of a `multiple` flag, in the order given (none when absent). */
export function stringListFlag(parsed: ParsedArguments, name: string): readonly string[] {
  const value = parsed.values[name];
  if (Array.isArray(value)) return value as readonly string[];
  return typeof value === 'string' ? [value] : [];
}

export function booleanFlag(parsed: ParsedArguments, name: string): boolean {
  return parsed.values[name] === true;
}

// Flag tables: one description per flag feeds both node:util parseArgs and the --help text. Node side.
import type { ParseArgsConfig } from 'node:util';

export interface FlagSpec {
  /** `string` takes a value (`--route support` or `--route=support`); `boolean` is a switch. */
  readonly type: 'string' | 'boolean';
  /** One-letter alias, e.g. `h` for `-h`. @default none */
  readonly short?: string;
  /** A `string` flag that may be given more than once (`--image a.png --image b.png`), values in order. @default false */
  readonly multiple?: boolean;
  /** Placeholder for the value in --help, e.g. `<path>`. @default `<value>` */
  readonly valueName?: string;
  /** One line for --help; say the unit and the default. */
  readonly description: string;
}

/** Flags by long name, without the leading `--`. */
export type FlagTable = Readonly<Record<string, FlagSpec>>;

export const HELP_FLAG = {
  help: { type: 'boolean', short: 'h', description: 'show this help' },
} as const satisfies FlagTable;

export function parseArgsOptions(flags: FlagTable): NonNullable<ParseArgsConfig['options']> {
  const options: NonNullable<ParseArgsConfig['options']> = {};
  for (const [name, spec] of Object.entries(flags)) {
    options[name] = {
      type: spec.type,
      ...(spec.short ? { short: spec.short } : {}),
      ...(spec.multiple ? { multiple: true } : {}),
    };
  }
  return options;
}

/** The `-h, --help` / `--route <name>` column of a flag. */
function flagSignature(name: string, spec: FlagSpec): string {
  const long = spec.type === 'string' ? `--${name} ${spec.valueName ?? '<value>'}` : `--${name}`;
  return spec.short ? `-${spec.short}, ${long}` : `    ${long}`;
}

/** Width of the widest flag signature, so several sections of one help text can share a column. */
export function flagColumnWidth(flags: FlagTable): number {
  return Math.max(0, ...Object.entries(flags).map(([name, spec]) => flagSignature(name, spec).length));
}

/** One line per flag, indented for a help section, descriptions starting at column `width`. */
export function renderFlagLines(flags: FlagTable, width = flagColumnWidth(flags)): string[] {
  return Object.entries(flags).map(
    ([name, spec]) => `  ${flagSignature(name, spec).padEnd(width)}  ${spec.description}`,
  );
}

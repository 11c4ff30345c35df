// Assembles a command's --help text from its usage line, description, flag sections and examples. Node side.
import { flagColumnWidth, renderFlagLines, type FlagTable } from './flags';

export interface HelpContent {
  /** Usage lines without the `Usage:` prefix, e.g. `switchyard call [options] [prompt | -]`. */
  readonly usage: readonly string[];
  /** A few lines on what the command does. */
  readonly description: readonly string[];
  readonly sections: readonly { readonly title: string; readonly flags: FlagTable }[];
  readonly examples: readonly string[];
  /** Extra paragraphs after the examples (exit codes, environment). */
  readonly notes?: readonly string[];
}

export const EXIT_CODES_NOTE =
  'Exit codes: 0 ok, 1 the routed call failed, 2 bad arguments or request, 3 config error,\n' +
  '            4 cannot reach Temporal, 130 interrupted.';

export function renderHelp(content: HelpContent): string {
  const lines: string[] = [];
  content.usage.forEach((usage, index) => lines.push(`${index === 0 ? 'Usage: ' : '       '}${usage}`));
  lines.push('', ...content.description);
  const width = Math.max(0, ...content.sections.map((section) => flagColumnWidth(section.flags)));
  for (const section of content.sections)
    lines.push('', `${section.title}:`, ...renderFlagLines(section.flags, width));
  if (content.examples.length)
    lines.push('', 'Examples:', ...content.examples.map((example) => `  ${example}`));
  for (const note of content.notes ?? []) lines.push('', note);
  return `${lines.join('\n')}\n`;
}

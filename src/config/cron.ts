// Checks a five-field cron expression the way Temporal's scheduler reads it, so a bad one is refused up front. Pure.

/** Shorthands Temporal accepts in place of the five fields. */
export const CRON_SHORTHANDS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

const MONTH_NAMES = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const DAY_NAMES = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

interface CronField {
  readonly name: string;
  readonly min: number;
  readonly max: number;
  /** Names accepted for values (months from 1, days from 0) and the shortest prefix that may stand for one. */
  readonly names?: {
    readonly list: readonly string[];
    readonly first: number;
    readonly minimumPrefix: number;
  };
}

const FIELDS: readonly CronField[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: { list: MONTH_NAMES, first: 1, minimumPrefix: 3 } },
  // 0 and 7 are both Sunday.
  { name: 'day of week', min: 0, max: 7, names: { list: DAY_NAMES, first: 0, minimumPrefix: 2 } },
];

const EXAMPLE = 'for example "0 9 * * 1-5" (09:00 on weekdays) or "*/15 * * * *"';

function parseValue(text: string, field: CronField, min: number): number | string {
  let value: number | undefined;
  if (/^\d+$/.test(text)) {
    value = Number(text);
  } else if (field.names && text.length >= field.names.minimumPrefix) {
    const lower = text.toLowerCase();
    const index = field.names.list.findIndex((name) => name.startsWith(lower));
    if (index >= 0) value = index + field.names.first;
  }
  if (value === undefined) return `"${text}" is not a ${field.name} value`;
  if (value < min || value > field.max) {
    return min > field.min
      ? `range end ${text} comes before its start in the ${field.name} field`
      : `${field.name} ${text} is out of range ${field.min}-${field.max}`;
  }
  return value;
}

/** An error message for one field (`*`, `5`, `1-5`, `*\/15`, `1-30/5`, `MON-FRI`, lists of these), or undefined. */
function checkField(text: string, field: CronField): string | undefined {
  for (const part of text.split(',')) {
    if (part === '') return `empty list item in the ${field.name} field "${text}"`;
    const [range, step, ...extra] = part.split('/');
    if (extra.length) return `"${part}" has more than one "/" in the ${field.name} field`;
    if (step !== undefined && (!/^\d+$/.test(step) || Number(step) < 1)) {
      return `step "${step}" in the ${field.name} field must be a positive integer`;
    }
    if (range === '*') continue;
    const bounds = range!.split('-');
    if (bounds.length > 2 || bounds.some((bound) => bound === '')) {
      return `"${range}" is not a value or a range in the ${field.name} field`;
    }
    const start = parseValue(bounds[0]!, field, field.min);
    if (typeof start === 'string') return start;
    if (bounds[1] !== undefined) {
      const end = parseValue(bounds[1], field, start);
      if (typeof end === 'string') return end;
    }
  }
  return undefined;
}

/**
 * Why `expression` is not a cron expression Switchyard schedules accept, or undefined when it is: five fields
 * (minute, hour, day of month, month, day of week) with `*`, values, ranges, steps, lists and month or day
 * names, or one of `@hourly`, `@daily`, `@midnight`, `@weekly`, `@monthly`, `@yearly`, `@annually`. A time
 * zone goes in its own field rather than a `TZ=` prefix, and intervals use `every` rather than `@every`.
 */
export function cronProblem(expression: string): string | undefined {
  const text = expression.trim();
  if (text === '') return `a cron expression is empty; ${EXAMPLE}`;
  if (/^(CRON_)?TZ=/.test(text)) return 'give the time zone separately (timezone / --timezone), not as TZ=';
  if (text.startsWith('@every')) return 'use an interval (every / --every) instead of @every';
  if (text.startsWith('@')) {
    if (CRON_SHORTHANDS[text]) return undefined;
    return `unknown shorthand "${text}" (known: ${Object.keys(CRON_SHORTHANDS).join(', ')})`;
  }
  const fields = text.split(/\s+/);
  if (fields.length !== FIELDS.length) {
    return `a cron expression has 5 fields (minute hour day-of-month month day-of-week), got ${fields.length} in "${text}"; ${EXAMPLE}`;
  }
  for (const [index, field] of FIELDS.entries()) {
    const problem = checkField(fields[index]!, field);
    if (problem) return `${problem} in "${text}"`;
  }
  return undefined;
}

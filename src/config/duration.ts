// Durations written by people (`30s`, `10m`, `1h30m`, `2d`, or plain milliseconds) to and from milliseconds. Pure.
import { SwitchyardError } from './branded-error';

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
type DurationUnit = keyof typeof UNIT_MS;

/** One or more `<integer><unit>` parts, largest unit first by convention (`1h30m`); units ms, s, m, h, d. */
const DURATION_TEXT = /^(?:\d+(?:ms|s|m|h|d))+$/;
const DURATION_PART = /(\d+)(ms|s|m|h|d)/g;

/** Longest duration accepted anywhere: 366 days, far beyond any schedule interval or patience. */
export const MAX_DURATION_MS = 366 * UNIT_MS.d;

export class DurationError extends SwitchyardError {
  static override readonly brand: string = 'switchyard.DurationError';

  override readonly name = 'DurationError';
}

/**
 * Milliseconds from a duration: a number of milliseconds, a string of digits (milliseconds), or unit parts
 * such as `30s`, `10m`, `1h`, `1h30m`, `2d`, `250ms`. Throws {@link DurationError} for anything else,
 * including negative, fractional and absurdly long values.
 */
export function parseDuration(value: number | string): number {
  let milliseconds: number;
  if (typeof value === 'number') {
    milliseconds = value;
  } else {
    const text = value.trim();
    if (/^\d+$/.test(text)) {
      milliseconds = Number(text);
    } else if (DURATION_TEXT.test(text)) {
      milliseconds = 0;
      for (const [, amount, unit] of text.matchAll(DURATION_PART)) {
        milliseconds += Number(amount) * UNIT_MS[unit as DurationUnit];
      }
    } else {
      throw new DurationError(
        `"${value}" is not a duration: write milliseconds or parts like 30s, 10m, 1h, 1h30m, 2d`,
      );
    }
  }
  if (!Number.isSafeInteger(milliseconds) || milliseconds < 0) {
    throw new DurationError(`a duration is a whole, non-negative number of milliseconds, got ${value}`);
  }
  if (milliseconds > MAX_DURATION_MS) throw new DurationError(`${value} is longer than 366 days`);
  return milliseconds;
}

/** The shortest exact unit form of a duration: 3600000 → `1h`, 5400000 → `1h30m`, 1500 → `1s500ms`. */
export function formatDuration(milliseconds: number): string {
  if (milliseconds === 0) return '0s';
  const parts: string[] = [];
  let rest = milliseconds;
  for (const unit of ['d', 'h', 'm', 's', 'ms'] as const) {
    const amount = Math.floor(rest / UNIT_MS[unit]);
    if (amount > 0) parts.push(`${amount}${unit}`);
    rest -= amount * UNIT_MS[unit];
  }
  return parts.join('');
}

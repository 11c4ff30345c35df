// Converts flag values to numbers and checked strings, with messages that name the flag. Node side.
import { DurationError, parseDuration } from '../config/duration';
import { UsageError } from './cli-errors';

/** A decimal integer like `1024`; no signs, exponents or fractions, so `1e3` and `10.0` are refused. */
const POSITIVE_INTEGER = /^[0-9]+$/;
/** A plain decimal number like `0.7`, `-1` or `.5`; `Number()` alone would also accept '', '0x10' and 'Infinity'. */
const DECIMAL = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;

export function positiveIntegerFlag(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!POSITIVE_INTEGER.test(value) || !Number.isSafeInteger(number) || number <= 0) {
    throw new UsageError(`--${flag} must be a positive integer, got "${value}"`);
  }
  return number;
}

export function numberFlag(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!DECIMAL.test(value.trim()) || !Number.isFinite(number))
    throw new UsageError(`--${flag} must be a number, got "${value}"`);
  return number;
}

/** A duration like `30s`, `10m`, `1h30m`, `2d` or plain milliseconds, read as schedules read theirs. */
export function durationFlag(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  try {
    return parseDuration(value);
  } catch (error) {
    if (error instanceof DurationError) throw new UsageError(`--${flag}: ${error.message}`);
    throw error;
  }
}

/** A string flag that must say something: `--route ""` is a mistake, not "the default route". */
export function nonEmptyFlag(flag: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value.trim() === '') throw new UsageError(`--${flag} must not be empty`);
  return value;
}

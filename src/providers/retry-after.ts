// Reads a provider's wait hint (`retry-after-ms`, `retry-after`) into milliseconds. Pure; worker side.

/** Anything with a case-insensitive `get`, like the fetch `Headers` that SDK errors carry. */
export interface HeaderReader {
  get(name: string): string | null;
}

/**
 * The wait a provider asked for, in milliseconds, or undefined when it gave none (or nothing readable).
 * `retry-after-ms` (OpenAI's, more precise) wins over `retry-after`, which is either delay-seconds or an
 * HTTP date (RFC 9110 §10.2.3); a date in the past means "now" (0).
 * @param nowMs the current time in epoch milliseconds, for HTTP dates. @default Date.now()
 */
export function parseRetryAfterMs(
  headers: HeaderReader | null | undefined,
  nowMs: number = Date.now(),
): number | undefined {
  if (!headers) return undefined;
  const milliseconds = parseNonNegativeNumber(headers.get('retry-after-ms'));
  if (milliseconds !== undefined) return Math.ceil(milliseconds);
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  const seconds = parseNonNegativeNumber(value);
  if (seconds !== undefined) return Math.ceil(seconds * 1000);
  // Every HTTP date form starts with a day name; Date.parse alone would accept "-5" as a year.
  const date = /^[A-Za-z]/.test(value) ? Date.parse(value) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

function parseNonNegativeNumber(value: string | null | undefined): number | undefined {
  const trimmed = value?.trim();
  // Number('') is 0, so empty values must be rejected before converting.
  if (!trimmed || !/^\d+(\.\d+)?$/.test(trimmed)) return undefined;
  return Number(trimmed);
}

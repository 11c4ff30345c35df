// Durations as people write them: parsed to milliseconds and formatted back.
import { DurationError, formatDuration, parseDuration } from '../../../src/config/duration';

test.each([
  ['30s', 30_000],
  ['10m', 600_000],
  ['1h', 3_600_000],
  ['1h30m', 5_400_000],
  ['2d', 172_800_000],
  ['250ms', 250],
  ['1s500ms', 1_500],
  ['1500', 1_500],
  [' 1h ', 3_600_000],
  [90_000, 90_000],
  [0, 0],
])('parseDuration(%p) is %p ms', (text, milliseconds) => {
  expect(parseDuration(text)).toBe(milliseconds);
});

test.each(['', 'h', '1x', '1.5h', '-1s', '1 h', '1hour', 'PT1H', '367d'])(
  'parseDuration(%p) is refused',
  (text) => {
    expect(() => parseDuration(text)).toThrow(DurationError);
  },
);

test.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])('parseDuration(%p) is refused', (value) => {
  expect(() => parseDuration(value)).toThrow(DurationError);
});

test.each([
  [0, '0s'],
  [1_500, '1s500ms'],
  [600_000, '10m'],
  [5_400_000, '1h30m'],
  [90_000_000, '1d1h'],
])('formatDuration(%p) is %p, and parses back', (milliseconds, text) => {
  expect(formatDuration(milliseconds)).toBe(text);
  expect(parseDuration(text)).toBe(milliseconds);
});

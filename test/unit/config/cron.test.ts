// Cron expressions are checked like Temporal's scheduler reads them, with messages that say what is wrong.
import { cronProblem } from '../../../src/config/cron';

test.each([
  '0 9 * * 1-5',
  '*/15 * * * *',
  '0 0 1 1 *',
  '5,35 8-18/2 * * *',
  '0 9 * * MON-FRI',
  '0 9 * * mon,wed,fri',
  '0 9 * * sunday',
  '0 9 * * 7',
  '0 12 1 jan-jun *',
  '30 4 1-7 * 0',
  '0 0 L * *'.replace('L', '31'),
  '3/5 * * * *',
  '@hourly',
  '@daily',
  '@midnight',
  '@weekly',
  '@monthly',
  '@yearly',
  '@annually',
  '  0 9 * * 1-5  ',
])('%p is accepted', (expression) => {
  expect(cronProblem(expression)).toBeUndefined();
});

test.each([
  ['', 'empty'],
  ['0 9 * *', 'has 5 fields'],
  ['0 0 9 * * 1-5', 'has 5 fields'],
  ['60 * * * *', 'minute 60 is out of range 0-59'],
  ['0 24 * * *', 'hour 24 is out of range 0-23'],
  ['0 0 0 * *', 'day of month 0 is out of range 1-31'],
  ['0 0 1 13 *', 'month 13 is out of range 1-12'],
  ['0 0 * * 8', 'day of week 8 is out of range 0-7'],
  ['0 9 * * FRI-MON', 'range end MON comes before its start'],
  ['0 9 * * MON-FRY', '"FRY" is not a day of week value'],
  ['0 9 * ja *', '"ja" is not a month value'],
  ['*/0 * * * *', 'step "0" in the minute field must be a positive integer'],
  ['*/x * * * *', 'step "x"'],
  ['1-2-3 * * * *', 'is not a value or a range'],
  ['1,,2 * * * *', 'empty list item'],
  ['1/2/3 * * * *', 'more than one "/"'],
  ['? * * * *', '"?" is not a minute value'],
  ['@every 1h', 'use an interval'],
  ['@often', 'unknown shorthand "@often"'],
  ['TZ=Europe/Berlin 0 9 * * *', 'give the time zone separately'],
])('%p is refused: %s', (expression, message) => {
  expect(cronProblem(expression)).toContain(message);
});

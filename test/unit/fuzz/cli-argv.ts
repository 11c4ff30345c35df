// Malformed `switchyard` command lines for the CLI fuzz: a valid argv per command, and one labelled mistake in it.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { junkString } from './json-mutations';

const scratch = mkdtempSync(path.join(tmpdir(), 'switchyard-cli-fuzz-'));
function scratchFile(name: string, content: string): string {
  const file = path.join(scratch, name);
  writeFileSync(file, content);
  return file;
}
export const PROMPT_FILE = scratchFile('prompt.txt', 'What is a circuit breaker?');
const EMPTY_FILE = scratchFile('empty.txt', ' \n');
const NOT_JSON_FILE = scratchFile('not-json.json', '{"messages": [');
const ARRAY_FILE = scratchFile('array.json', '[1, 2]');
const NEITHER_FILE = scratchFile('neither.json', '{"prompt": "hi"}');
const BAD_CALL_FILE = scratchFile(
  'bad-call.json',
  JSON.stringify({ request: { messages: [{ role: 'user', content: 'hi' }], temperature: 9 } }),
);
const REQUEST_FILE = scratchFile(
  'request.json',
  JSON.stringify({ messages: [{ role: 'user', content: 'Summarise the night.' }], maxOutputTokens: 200 }),
);
const MISSING_FILE = path.join(scratch, 'missing', 'prompt.txt');

/** A flag value that must be refused, and the text the refusal must contain (the flag, or what it names). */
export interface BadValue {
  readonly value: string;
  readonly named: string;
}

/** One mistake put into a valid command line, and the text stderr must show: the flag or argument at fault. */
export interface BadArgv {
  readonly argv: readonly string[];
  readonly named: string;
  readonly mistake: string;
}

const flagged = (flag: string) => (value: string) => ({ value, named: `--${flag}` });

/** Values that are not a positive decimal integer (or are one outside `max`). */
function notPositiveInteger(flag: string, max = Number.MAX_SAFE_INTEGER): fc.Arbitrary<BadValue> {
  return fc
    .oneof(
      fc.constantFrom(
        '0',
        '-1',
        '1.5',
        '1e3',
        'abc',
        '',
        ' ',
        '0x10',
        '+5',
        '٣',
        '9007199254740993',
        'Infinity',
      ),
      junkString,
      fc.constant(String(max + 1)),
    )
    .filter((value) => !/^[0-9]+$/.test(value) || Number(value) <= 0 || Number(value) > max)
    .map(flagged(flag));
}

/** Values that are not a plain decimal number, or one outside [min, max]. */
function notNumberIn(flag: string, min: number, max: number): fc.Arbitrary<BadValue> {
  return fc
    .oneof(
      fc.constantFrom('warm', '', ' ', '0x1', 'Infinity', 'NaN', '1,5', '1e309', '--1'),
      junkString,
      fc.double({ noNaN: true }).map(String),
    )
    .filter((value) => {
      const number = Number(value);
      const decimal = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/.test(value.trim());
      return !decimal || !Number.isFinite(number) || number < min || number > max;
    })
    .map(flagged(flag));
}

const blank = (flag: string) => fc.constantFrom('', ' ', '\t').map(flagged(flag));
const tooLong = (flag: string, length: number) => fc.constant('x'.repeat(length + 1)).map(flagged(flag));
const oneOf = (flag: string, ...values: string[]) => fc.constantFrom(...values).map(flagged(flag));
const duration = (flag: string, ...tooSmallOrLarge: string[]) =>
  oneOf(flag, 'abc', '1x', '-5s', '1.5h', '1h30', '367d', ' ', ...tooSmallOrLarge);

const GLOBAL_BAD_VALUES = {
  address: blank('address'),
  namespace: blank('namespace'),
  'task-queue': blank('task-queue'),
  config: blank('config'),
};

const REQUEST_BAD_VALUES = {
  system: undefined,
  route: fc.oneof(
    blank('route'),
    oneOf(
      'route',
      '{',
      '{"targets": [',
      '{"targets": []}',
      '{"targets": "x"}',
      '{"targets": [{"provider": "openai"}]}',
    ),
    oneOf('route', '{"targets": [{"provider": 1, "model": "m"}], "maxAttempts": 0}'),
  ),
  budget: fc.oneof(blank('budget'), tooLong('budget', 200)),
  'max-output-tokens': notPositiveInteger('max-output-tokens', 1_000_000),
  temperature: notNumberIn('temperature', 0, 2),
  'deadline-ms': notPositiveInteger('deadline-ms'),
};

/** A command's valid argv (as flag groups) and the bad values each of its value flags can be given. */
export interface CommandModel {
  /** The words before the flags: the command, its action and positionals. */
  readonly words: readonly string[];
  /** Value flags of the valid argv, with a valid value each. */
  readonly values: Readonly<Record<string, string>>;
  readonly booleans: readonly string[];
  /** Bad values per value flag; undefined where every string is valid. */
  readonly badValues: Readonly<Record<string, fc.Arbitrary<BadValue> | undefined>>;
  /** Every flag the command knows (no `--`), so an unknown one is never one of them. */
  readonly known: readonly string[];
  /** An extra positional argument, and the text its refusal shows. */
  readonly extraPositional: BadValue;
}

const GLOBAL_KNOWN = ['address', 'namespace', 'task-queue', 'config', 'help'];
const REQUEST_KNOWN = [
  'file',
  'system',
  'route',
  'budget',
  'max-output-tokens',
  'temperature',
  'deadline-ms',
];
const SCHEDULE_KNOWN = [
  ...[
    'every',
    'cron',
    'timezone',
    'overlap',
    'catchup-window',
    'note',
    'paused',
    'prompt',
    'request',
    'patience',
  ],
  ...['deliver-webhook', 'deliver-dir', 'no-deliver', 'json', 'limit'],
  ...REQUEST_KNOWN,
  ...GLOBAL_KNOWN,
];

export const COMMANDS: Readonly<Record<string, CommandModel>> = {
  call: {
    words: ['call', 'What is a circuit breaker?'],
    values: {
      route: 'support',
      budget: 'team-docs',
      'max-output-tokens': '100',
      temperature: '0.5',
      'deadline-ms': '30000',
      'idempotency-key': 'job-42',
      system: 'Be brief.',
      address: '127.0.0.1:1',
      'task-queue': 'fuzz',
    },
    booleans: ['json', 'stream'],
    badValues: {
      ...REQUEST_BAD_VALUES,
      ...GLOBAL_BAD_VALUES,
      'idempotency-key': fc.oneof(
        blank('idempotency-key'),
        // Past Temporal's 1000-byte workflow id once prefixed, in one- and two-byte characters.
        fc.constantFrom('k'.repeat(985), 'é'.repeat(493)).map(flagged('idempotency-key')),
      ),
    },
    known: [...REQUEST_KNOWN, 'idempotency-key', 'stream', 'json', ...GLOBAL_KNOWN],
    extraPositional: { value: 'second prompt', named: 'expected one prompt argument, got 2' },
  },
  plan: {
    words: ['plan', 'What is a circuit breaker?'],
    values: { route: 'support', budget: 'team-docs', 'max-output-tokens': '100', temperature: '1.2' },
    booleans: ['json'],
    badValues: {
      ...REQUEST_BAD_VALUES,
      ...GLOBAL_BAD_VALUES,
      route: fc.oneof(
        REQUEST_BAD_VALUES.route,
        oneOf(
          'route',
          'nope',
          'constructor',
          '__proto__',
          '{"targets": [{"provider": "nope", "model": "x"}]}',
        ),
      ),
    },
    known: [...REQUEST_KNOWN, 'idempotency-key', 'stream', 'json', ...GLOBAL_KNOWN],
    extraPositional: { value: 'second prompt', named: 'expected one prompt argument, got 2' },
  },
  'schedule create': {
    words: ['schedule', 'create', 'digest'],
    values: {
      cron: '0 9 * * 1-5',
      timezone: 'Europe/Berlin',
      prompt: 'Summarise the day.',
      route: 'support',
      budget: 'team-docs',
      'max-output-tokens': '300',
      'catchup-window': '10m',
      patience: '1h',
      note: 'owner: docs',
      overlap: 'buffer-one',
      'deliver-webhook': 'https://hooks.example.com/switchyard',
      'deliver-dir': '/var/switchyard',
      address: '127.0.0.1:1',
    },
    booleans: ['paused', 'json'],
    badValues: {
      ...REQUEST_BAD_VALUES,
      ...GLOBAL_BAD_VALUES,
      cron: oneOf(
        'cron',
        '',
        'bad',
        '61 * * * *',
        '* * * *',
        '@every 1h',
        'TZ=UTC 0 * * * *',
        '0 9 * * MON-XYZ',
      ),
      timezone: oneOf('timezone', '', 'Mars/Olympus', 'UTC+25', 'constructor'),
      prompt: blank('prompt'),
      'catchup-window': duration('catchup-window', '5s', '0'),
      patience: duration('patience', '31d'),
      note: tooLong('note', 1_000),
      overlap: oneOf('overlap', '', 'sometimes', 'skip!', 'constructor'),
      'deliver-webhook': oneOf('deliver-webhook', '', 'not a url', 'ftp://example.com/hook', 'https://'),
      'deliver-dir': blank('deliver-dir'),
    },
    known: SCHEDULE_KNOWN,
    extraPositional: { value: 'other', named: 'expected one schedule id, got 2' },
  },
  'schedule update': {
    words: ['schedule', 'update', 'digest'],
    values: {
      cron: '30 8 * * *',
      timezone: 'Asia/Tokyo',
      prompt: 'Summarise the week.',
      temperature: '0.2',
      budget: 'team-docs',
      'catchup-window': '15m',
      patience: '2h',
      note: 'moved to 08:30',
      'deliver-webhook': 'https://hooks.example.com/other',
    },
    booleans: ['json'],
    badValues: {
      ...REQUEST_BAD_VALUES,
      ...GLOBAL_BAD_VALUES,
      cron: oneOf('cron', '', 'bad', '61 * * * *', '@every 1h', '0 9 * * MON-XYZ'),
      timezone: oneOf('timezone', '', 'Mars/Olympus', 'constructor'),
      prompt: blank('prompt'),
      'catchup-window': duration('catchup-window', '5s'),
      patience: duration('patience', '31d'),
      note: tooLong('note', 1_000),
      'deliver-webhook': oneOf('deliver-webhook', '', 'not a url', 'ftp://example.com/hook'),
    },
    known: SCHEDULE_KNOWN,
    extraPositional: { value: 'other', named: 'expected one schedule id, got 2' },
  },
  'schedule create every': {
    words: ['schedule', 'create', 'pulse'],
    values: { every: '1h', file: PROMPT_FILE, 'catchup-window': '1m' },
    booleans: [],
    badValues: {
      every: duration('every', '500ms', '1s500ms', '0'),
      file: fc.constantFrom(
        { value: MISSING_FILE, named: '--file' },
        { value: EMPTY_FILE, named: EMPTY_FILE },
        { value: scratch, named: '--file' },
      ),
      'catchup-window': duration('catchup-window', '9s'),
    },
    known: SCHEDULE_KNOWN,
    extraPositional: { value: 'other', named: 'expected one schedule id, got 2' },
  },
  'schedule create request': {
    words: ['schedule', 'create', 'nightly'],
    values: { every: '1d', request: REQUEST_FILE },
    booleans: [],
    badValues: {
      request: fc.constantFrom(
        { value: MISSING_FILE, named: '--request' },
        { value: NOT_JSON_FILE, named: '--request' },
        { value: ARRAY_FILE, named: '--request' },
        { value: NEITHER_FILE, named: '--request' },
        { value: BAD_CALL_FILE, named: 'call.request.temperature' },
      ),
    },
    known: SCHEDULE_KNOWN,
    extraPositional: { value: 'other', named: 'expected one schedule id, got 2' },
  },
  ledger: {
    words: ['ledger', 'team-docs'],
    values: { 'limit-usd': '5', period: 'day' },
    booleans: ['json'],
    badValues: {
      ...GLOBAL_BAD_VALUES,
      'limit-usd': notNumberIn('limit-usd', 0, 9_000_000),
      period: oneOf('period', '', 'week', 'DAY', 'constructor'),
    },
    known: ['limit-usd', 'unlimited', 'period', 'json', ...GLOBAL_KNOWN],
    extraPositional: { value: 'other', named: 'expected one scope, got 2' },
  },
  breakers: {
    words: ['breakers', 'reset', 'openai/gpt-4o-mini'],
    values: { reason: 'provider fixed' },
    booleans: ['json'],
    badValues: { ...GLOBAL_BAD_VALUES, reason: blank('reason') },
    known: ['json', 'provider', 'reason', ...GLOBAL_KNOWN],
    extraPositional: { value: 'other/model', named: 'expected one <provider/model>, got 2' },
  },
  show: {
    words: ['show', 'switchyard-call-job-42'],
    values: { namespace: 'default' },
    booleans: ['json'],
    badValues: GLOBAL_BAD_VALUES,
    known: ['json', ...GLOBAL_KNOWN],
    extraPositional: { value: 'other', named: 'expected one workflow id, got 2' },
  },
  worker: {
    words: ['worker'],
    values: { 'task-queue': 'fuzz', config: PROMPT_FILE },
    booleans: [],
    badValues: GLOBAL_BAD_VALUES,
    known: GLOBAL_KNOWN,
    extraPositional: { value: 'extra', named: 'unexpected argument "extra"' },
  },
};

type Group = readonly string[];

/** The valid argv of `model` as groups: the words, then one group per flag (`--flag value`, or `--flag`). */
function groupsOf(model: CommandModel): Group[] {
  return [
    ...Object.entries(model.values).map(([flag, value]) => [`--${flag}`, value]),
    ...model.booleans.map((flag) => [`--${flag}`]),
  ];
}

export function validArgv(model: CommandModel): string[] {
  return [...model.words, ...groupsOf(model).flat()];
}

/** `groups` with `group` inserted at `position` (modulo their count + 1), after the command's words. */
function argvWith(model: CommandModel, groups: Group[], position: number, group: Group): string[] {
  const index = position % (groups.length + 1);
  return [...model.words, ...[...groups.slice(0, index), group, ...groups.slice(index)].flat()];
}

/** A flag name (no dashes) that `model` does not know: junk, unicode, near misses of known ones. */
function unknownFlag(model: CommandModel): fc.Arbitrary<string> {
  const known = new Set([...model.known, ...Object.keys(model.values), ...model.booleans]);
  return fc
    .oneof(
      fc.constantFrom(
        'verbose',
        'Route',
        'routes',
        'max_output_tokens',
        'temp',
        'no-json',
        'ümlaut',
        '💥',
        'constructor',
        '__proto__',
        'a b',
        "it's",
        "a '. b",
      ),
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }),
      fc.constant('x'.repeat(5_000)),
    )
    .filter(
      (name) =>
        !known.has(name) &&
        !name.includes('=') &&
        !name.startsWith('-') &&
        name.trim() === name &&
        name !== '',
    );
}

/** One labelled mistake in the valid argv of `model`. */
export function badArgvOf(model: CommandModel): fc.Arbitrary<BadArgv> {
  const groups = groupsOf(model);
  const valueFlags = Object.keys(model.values);
  const badValueFlags = valueFlags.filter((flag) => model.badValues[flag] !== undefined);
  const position = fc.nat({ max: 1_000 });
  const without = (flag: string) => groups.filter((group) => group[0] !== `--${flag}`);
  const options: fc.Arbitrary<BadArgv>[] = [
    // A bad value, attached with `=` so that values starting with "-" stay values.
    fc
      .constantFrom(...badValueFlags)
      .chain((flag) => model.badValues[flag]!.map((bad) => ({ flag, bad })))
      .chain(({ flag, bad }) =>
        position.map((at) => ({
          argv: argvWith(model, without(flag), at, [`--${flag}=${bad.value}`]),
          named: bad.named,
          mistake: `bad value for --${flag}`,
        })),
      ),
    // A value flag last, without its value.
    fc.constantFrom(...valueFlags).map((flag) => ({
      argv: [...model.words, ...without(flag).flat(), `--${flag}`],
      named: `--${flag} needs a value`,
      mistake: 'missing value',
    })),
    // A value that reads as another option.
    fc
      .record({
        flag: fc.constantFrom(...valueFlags),
        value: fc.oneof(
          fc.constantFrom('-1', '--', '-x', '--route', '-0.5'),
          junkString.map((text) => `-${text}`),
        ),
        at: position,
      })
      .filter(({ value }) => value.length > 1 && value !== '-h')
      .map(({ flag, value, at }) => ({
        argv: argvWith(model, without(flag), at, [`--${flag}`, value]),
        named: `--${flag} needs a value`,
        mistake: 'value starting with a dash',
      })),
    // An unknown flag, long or attached to a value.
    fc
      .record({ name: unknownFlag(model), at: position, attached: fc.boolean() })
      .map(({ name, at, attached }) => ({
        argv: argvWith(model, groups, at, [attached ? `--${name}=1` : `--${name}`]),
        named: `unknown option --${name}`,
        mistake: 'unknown flag',
      })),
    // A flag given twice.
    fc.record({ index: fc.nat({ max: groups.length - 1 }), at: position }).map(({ index, at }) => ({
      argv: argvWith(model, groups, at, groups[index]!),
      named: `${groups[index]![0]} is given more than once`,
      mistake: 'duplicate flag',
    })),
    // One positional argument too many.
    position.map((at) => ({
      argv: argvWith(model, groups, at, [model.extraPositional.value]),
      named: model.extraPositional.named,
      mistake: 'extra argument',
    })),
  ];
  if (model.booleans.length) {
    options.push(
      fc
        .record({ flag: fc.constantFrom(...model.booleans), value: fc.constantFrom('yes', 'true', '', '1') })
        .map(({ flag, value }) => ({
          argv: [
            ...model.words,
            ...groups.filter((group) => group[0] !== `--${flag}`).flat(),
            `--${flag}=${value}`,
          ],
          named: `--${flag} does not take a value`,
          mistake: 'value for a switch',
        })),
    );
  }
  return fc.oneof(...options);
}

/** One argv token from a vocabulary of commands, actions, flags, values and junk. */
const anyToken: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    'call',
    'plan',
    'show',
    'breakers',
    'ledger',
    'schedule',
    'worker',
    'help',
    'create',
    'update',
  ),
  fc.constantFrom(
    'list',
    'reset',
    'describe',
    'trigger',
    'results',
    'pause',
    'delete',
    'show',
    'x/y',
    'openai/m',
  ),
  fc
    .constantFrom(...new Set(Object.values(COMMANDS).flatMap((model) => model.known)))
    .map((flag) => `--${flag}`),
  fc.constantFrom(
    '--',
    '-',
    '-x',
    '--=',
    '---',
    '-hx',
    '--route={',
    '--every=1h',
    '--cron=@daily',
    '--prompt=hi',
  ),
  fc.constantFrom(
    '0',
    '-1',
    '1e3',
    '1h',
    '5',
    '0.5',
    'NaN',
    MISSING_FILE,
    EMPTY_FILE,
    PROMPT_FILE,
    NEITHER_FILE,
  ),
  junkString,
);

/** A valid command line with tokens dropped and random ones put in: deeper paths than blind junk reaches. */
const nearValidArgv: fc.Arbitrary<string[]> = fc
  .record({
    argv: fc.constantFrom(...Object.values(COMMANDS).map(validArgv)),
    edits: fc.array(fc.record({ at: fc.nat({ max: 40 }), insert: fc.option(anyToken) }), { maxLength: 3 }),
  })
  .map(({ argv, edits }) => {
    const edited = [...argv];
    for (const { at, insert } of edits) {
      const index = at % (edited.length + 1);
      if (insert === null) edited.splice(Math.max(1, index), 1);
      else edited.splice(index, 0, insert);
    }
    return edited;
  });

/** Any argv at all: junk token lists, and valid command lines with a few tokens changed. The crash hunt. */
export const anyArgv: fc.Arbitrary<string[]> = fc.oneof(fc.array(anyToken, { maxLength: 8 }), nearValidArgv);

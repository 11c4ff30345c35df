// The flags that describe a routed call, shared by `call` and `plan`, and their mapping to the call input. Node side.
import type { RoutedCallInputValue } from '../config/routed-call-input';
import type { RouteSpecInput } from '../config/route';
import { UsageError } from './cli-errors';
import type { FlagTable } from './flags';
import { durationFlag, nonEmptyFlag, numberFlag, positiveIntegerFlag } from './flag-values';
import { booleanFlag, stringFlag, type ParsedArguments } from './parse-arguments';

export const REQUEST_FLAGS = {
  file: { type: 'string', valueName: '<path>', description: 'read the prompt from this file' },
  system: { type: 'string', valueName: '<text>', description: 'system prompt' },
  route: {
    type: 'string',
    valueName: '<name|json>',
    description:
      "a route named in the config, or an inline route as JSON (default: the config's defaultRoute)",
  },
  budget: {
    type: 'string',
    valueName: '<scope>',
    description: 'budget scope charged for the call (a team, a project)',
  },
  'max-output-tokens': {
    type: 'string',
    valueName: '<n>',
    description: 'cap on generated tokens, also the cost bound of each attempt (default: 1024)',
  },
  temperature: {
    type: 'string',
    valueName: '<t>',
    description: "sampling temperature, 0 to 2 (default: the provider's)",
  },
  'deadline-ms': {
    type: 'string',
    valueName: '<ms>',
    description: "deadline of the whole call in milliseconds (default: the route's, else none)",
  },
  'max-cost-usd': {
    type: 'string',
    valueName: '<usd>',
    description: "ceiling on what this call may cost, every attempt's worst case counted (default: none)",
  },
} as const satisfies FlagTable;

export const CALL_FLAGS = {
  'idempotency-key': {
    type: 'string',
    valueName: '<key>',
    description: 'run the call at most once: a repeat returns the first answer and charges nothing',
  },
  stream: {
    type: 'boolean',
    description: 'stream from the provider (the answer still prints when complete)',
  },
  patience: {
    type: 'string',
    valueName: '<duration>',
    description:
      'wait out an outage this long (30s, 10m, 1h30m, or ms): when every target failed over, sleep until a breaker allows a probe and try the route again (default: 0)',
  },
} as const satisfies FlagTable;

/** Call-input fields and the flag that sets each, so a refused request names what to change. */
const FLAG_BY_FIELD: readonly (readonly [field: string, flag: string])[] = [
  ['request.messages', 'the prompt'],
  ['request.system', '--system'],
  ['request.maxOutputTokens', '--max-output-tokens'],
  ['request.temperature', '--temperature'],
  ['route', '--route'],
  ['budget', '--budget'],
  ['deadlineMs', '--deadline-ms'],
  ['maxCostUsd', '--max-cost-usd'],
  ['patienceMs', '--patience'],
];

/** The flag (or `the prompt`) behind a call-input field path such as `request.temperature`. */
export function flagForField(field: string): string | undefined {
  return FLAG_BY_FIELD.find(([prefix]) => field === prefix || field.startsWith(`${prefix}.`))?.[1];
}

/** `--route support` names a route; a value starting with `{` is an inline route spec. */
function readRoute(value: string | undefined): string | RouteSpecInput | undefined {
  const route = nonEmptyFlag('route', value);
  if (route === undefined || !route.trimStart().startsWith('{')) return route;
  try {
    return JSON.parse(route) as RouteSpecInput;
  } catch (error) {
    throw new UsageError(
      `--route looks like an inline route but is not valid JSON: ${(error as Error).message}`,
    );
  }
}

/** The request flags, each checked for shape; ranges (temperature 0–2, token caps) are left to the schema. */
export interface RequestFlagValues {
  readonly system?: string;
  readonly route?: string | RouteSpecInput;
  readonly budget?: string;
  readonly maxOutputTokens?: number;
  readonly temperature?: number;
  readonly deadlineMs?: number;
  readonly maxCostUsd?: number;
  readonly stream: boolean;
}

/** Reads and checks the request flags; done before the prompt is read so a typo never waits on stdin. */
export function readRequestFlags(parsed: ParsedArguments): RequestFlagValues {
  return {
    system: stringFlag(parsed, 'system'),
    route: readRoute(stringFlag(parsed, 'route')),
    budget: nonEmptyFlag('budget', stringFlag(parsed, 'budget')),
    maxOutputTokens: positiveIntegerFlag('max-output-tokens', stringFlag(parsed, 'max-output-tokens')),
    temperature: numberFlag('temperature', stringFlag(parsed, 'temperature')),
    deadlineMs: positiveIntegerFlag('deadline-ms', stringFlag(parsed, 'deadline-ms')),
    maxCostUsd: numberFlag('max-cost-usd', stringFlag(parsed, 'max-cost-usd')),
    stream: booleanFlag(parsed, 'stream'),
  };
}

/** The call flags that shape the call itself (the idempotency key is read apart: it names the workflow). */
export interface CallFlagValues {
  readonly patienceMs?: number;
}

/** Reads and checks the call flags; `--patience` is a duration as schedules read it. */
export function readCallFlags(parsed: ParsedArguments): CallFlagValues {
  const patienceMs = durationFlag('patience', stringFlag(parsed, 'patience'));
  return patienceMs !== undefined ? { patienceMs } : {};
}

/** The routed-call input: the prompt as the one user message, and only the flags that were given. */
export function buildCallInput(
  flags: RequestFlagValues,
  prompt: string,
  callFlags: CallFlagValues = {},
): RoutedCallInputValue {
  const { system, route, budget, maxOutputTokens, temperature, deadlineMs, maxCostUsd } = flags;
  return {
    ...(route !== undefined ? { route } : {}),
    request: {
      messages: [{ role: 'user', content: prompt }],
      ...(system !== undefined ? { system } : {}),
      ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
      ...(temperature !== undefined ? { temperature } : {}),
    },
    ...(budget !== undefined ? { budget } : {}),
    ...(deadlineMs !== undefined ? { deadlineMs } : {}),
    ...(maxCostUsd !== undefined ? { maxCostUsd } : {}),
    ...(callFlags.patienceMs !== undefined ? { patienceMs: callFlags.patienceMs } : {}),
    stream: flags.stream,
  };
}

/** `--idempotency-key`, checked for emptiness; it becomes part of the workflow id. */
export function readIdempotencyKey(parsed: ParsedArguments): string | undefined {
  return nonEmptyFlag('idempotency-key', stringFlag(parsed, 'idempotency-key'));
}

// The flags that describe a routed call, shared by `call` and `plan`, and their mapping to the call input. Node side.
import type { RoutedCallInput, RoutedCallInputValue } from '../config/routed-call-input';
import type { RouteSpecInput } from '../config/route';
import { UsageError } from './cli-errors';
import type { FlagTable } from './flags';
import { durationFlag, nonEmptyFlag, numberFlag, positiveIntegerFlag } from './flag-values';
import { booleanFlag, stringFlag, stringListFlag, type ParsedArguments } from './parse-arguments';
import type { RequestContent } from './read-prompt';

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

/**
 * What `call` and `plan` take beyond a prompt: a whole conversation, images, stop sequences. Apart from
 * {@link REQUEST_FLAGS} because schedules share those and carry none of these.
 */
export const CONVERSATION_FLAGS = {
  request: {
    type: 'string',
    valueName: '<path|->',
    description:
      'send a whole request, JSON from a file or "-" (stdin): messages with parts, system, tools, options; not with a prompt, --file, --system or --image',
  },
  image: {
    type: 'string',
    multiple: true,
    valueName: '<path>',
    description: 'attach a local image (.png, .jpg/.jpeg, .gif or .webp) to the prompt; repeat for more',
  },
  stop: {
    type: 'string',
    multiple: true,
    valueName: '<text>',
    description: 'stop generating at this text; repeat for more (up to 16)',
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

/** What a call asks of its route's order, shared by `call` and `plan` ([routing](../../docs/routing.md)). */
export const ROUTING_FLAGS = {
  prefer: {
    type: 'string',
    valueName: '<cost|latency|reliability>',
    description:
      "order the route's candidates by this instead of its strategy: cheapest, fastest or fewest failures first",
  },
  require: {
    type: 'string',
    valueName: '<json>',
    description:
      'reject targets that fall short, as JSON: {"capabilities":["tools"],"maxLatencyMs":5000,"maxCostUsd":0.01}',
  },
} as const satisfies FlagTable;

/** Call-input fields and the flag that sets each, so a refused request names what to change. */
const FLAG_BY_FIELD: readonly (readonly [field: string, flag: string])[] = [
  ['request.messages', 'the prompt'],
  ['request.system', '--system'],
  ['request.maxOutputTokens', '--max-output-tokens'],
  ['request.temperature', '--temperature'],
  ['request.stopSequences', '--stop'],
  ['route', '--route'],
  ['budget', '--budget'],
  ['deadlineMs', '--deadline-ms'],
  ['maxCostUsd', '--max-cost-usd'],
  ['patienceMs', '--patience'],
  ['prefer', '--prefer'],
  ['require', '--require'],
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

/** The conversation flags, each checked for shape; the files are read with the prompt. */
export interface ConversationFlagValues {
  /** `--request`: a path, or `-` for stdin. */
  readonly requestFile?: string;
  readonly images: readonly string[];
  readonly stopSequences?: readonly string[];
}

export function readConversationFlags(parsed: ParsedArguments): ConversationFlagValues {
  const requestFile = nonEmptyFlag('request', stringFlag(parsed, 'request'));
  const images = stringListFlag(parsed, 'image').map((file) => nonEmptyFlag('image', file)!);
  const stopSequences = stringListFlag(parsed, 'stop');
  // An empty stop text is refused by the request schema too, but here it can name the flag.
  if (stopSequences.includes('')) throw new UsageError('--stop must not be empty');
  return {
    ...(requestFile !== undefined ? { requestFile } : {}),
    images,
    ...(stopSequences.length > 0 ? { stopSequences } : {}),
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

/** `--prefer` and `--require` as given; their values are the call schema's to check, so a refusal names the field. */
export interface RoutingFlagValues {
  readonly prefer?: string;
  readonly require?: unknown;
}

export function readRoutingFlags(parsed: ParsedArguments): RoutingFlagValues {
  const prefer = nonEmptyFlag('prefer', stringFlag(parsed, 'prefer'));
  const raw = nonEmptyFlag('require', stringFlag(parsed, 'require'));
  let require: unknown;
  if (raw !== undefined) {
    try {
      require = JSON.parse(raw) as unknown;
    } catch (error) {
      throw new UsageError(`--require is not valid JSON: ${(error as Error).message}`);
    }
  }
  return {
    ...(prefer !== undefined ? { prefer } : {}),
    ...(require !== undefined ? { require } : {}),
  };
}

/** The request the content describes: the prompt (images first, then its text) as the one user message. */
function requestOf(content: string | RequestContent): RoutedCallInputValue['request'] {
  if (typeof content === 'string') return { messages: [{ role: 'user', content }] };
  switch (content.kind) {
    case 'request':
      return content.request;
    case 'prompt': {
      if (content.images.length === 0) return { messages: [{ role: 'user', content: content.text }] };
      // Images before the question: the order Anthropic recommends, and no worse for the others.
      const parts = [...content.images, { type: 'text' as const, text: content.text }];
      return { messages: [{ role: 'user', content: parts }] };
    }
    default:
      return content satisfies never;
  }
}

/**
 * The routed-call input: the request the content describes, with only the flags that were given (an option flag
 * overrides the same field of a `--request` file).
 */
export function buildCallInput(
  flags: RequestFlagValues & Pick<ConversationFlagValues, 'stopSequences'>,
  content: string | RequestContent,
  callFlags: CallFlagValues = {},
  routing: RoutingFlagValues = {},
): RoutedCallInputValue {
  const { system, route, budget, maxOutputTokens, temperature, deadlineMs, maxCostUsd, stopSequences } =
    flags;
  return {
    ...(route !== undefined ? { route } : {}),
    request: {
      ...requestOf(content),
      ...(system !== undefined ? { system } : {}),
      ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
      ...(temperature !== undefined ? { temperature } : {}),
      ...(stopSequences !== undefined ? { stopSequences: [...stopSequences] } : {}),
    },
    ...(budget !== undefined ? { budget } : {}),
    ...(deadlineMs !== undefined ? { deadlineMs } : {}),
    ...(maxCostUsd !== undefined ? { maxCostUsd } : {}),
    ...(callFlags.patienceMs !== undefined ? { patienceMs: callFlags.patienceMs } : {}),
    ...(routing.prefer !== undefined ? { prefer: routing.prefer as RoutedCallInputValue['prefer'] } : {}),
    ...(routing.require !== undefined ? { require: routing.require as RoutedCallInputValue['require'] } : {}),
    stream: flags.stream,
  };
}

/** Request fields an option flag sets, so a refusal of one is the flag's even when a `--request` file has it. */
const FIELD_OF_FLAG_VALUE = {
  maxOutputTokens: 'request.maxOutputTokens',
  temperature: 'request.temperature',
  stopSequences: 'request.stopSequences',
} as const;

/**
 * Validates the call input (the schema names the first bad field). A field of a `--request` file is reported
 * as the file's, in its own terms (`messages.1.content.0.data`), rather than as "the prompt".
 */
export function validateCommandInput(
  input: RoutedCallInputValue,
  content: RequestContent,
  flags: RequestFlagValues & Pick<ConversationFlagValues, 'stopSequences'>,
): RoutedCallInput {
  // Loaded here, not with the module: `--help` needs none of the schemas (zod).
  const { validateCallInput } = require('../client/call-input') as typeof import('../client/call-input');
  const { InvalidRequestError } =
    require('../client/invalid-request-error') as typeof import('../client/invalid-request-error');
  try {
    return validateCallInput(input);
  } catch (error) {
    if (content.kind !== 'request' || !(error instanceof InvalidRequestError)) throw error;
    const field = error.field;
    const setByFlag = Object.entries(FIELD_OF_FLAG_VALUE).some(
      ([value, prefix]) =>
        flags[value as keyof typeof FIELD_OF_FLAG_VALUE] !== undefined &&
        (field === prefix || field.startsWith(`${prefix}.`)),
    );
    if (setByFlag || !field.startsWith('request.')) throw error;
    throw new UsageError(
      `invalid request in --request ${content.source} at ${field.slice('request.'.length)}:\n${error.message}`,
    );
  }
}

/** `--idempotency-key`, checked for emptiness; it becomes part of the workflow id. */
export function readIdempotencyKey(parsed: ParsedArguments): string | undefined {
  return nonEmptyFlag('idempotency-key', stringFlag(parsed, 'idempotency-key'));
}

// The flags of `switchyard schedule`: when it runs, what it asks, where results go; read into definitions and changes. Node side.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ScheduleChange } from '../client/schedule-change';
import type { GenerationRequestInput } from '../config/request';
import type { RoutedCallInput, RoutedCallInputValue } from '../config/routed-call-input';
import {
  OVERLAP_POLICIES,
  type DeliverySpec,
  type OverlapPolicy,
  type ScheduleDefinitionInput,
} from '../config/schedule';
import { UsageError } from './cli-errors';
import type { FlagTable } from './flags';
import { durationFlag, nonEmptyFlag, positiveIntegerFlag } from './flag-values';
import { booleanFlag, stringFlag, type ParsedArguments } from './parse-arguments';
import { readRequestFlags, REQUEST_FLAGS, type RequestFlagValues } from './request-flags';
import { checkDefinition } from './schedule-definition-check';

export const WHEN_FLAGS = {
  every: {
    type: 'string',
    valueName: '<duration>',
    description: 'run at this interval: 30s, 10m, 1h, 1h30m, 1d, or milliseconds (whole seconds)',
  },
  cron: {
    type: 'string',
    valueName: '<expr>',
    description: 'run at the times of a 5-field cron expression ("0 9 * * 1-5") or @hourly, @daily, …',
  },
  timezone: {
    type: 'string',
    valueName: '<iana>',
    description: 'time zone the cron expression is read in, e.g. Europe/Berlin (default: UTC)',
  },
  overlap: {
    type: 'string',
    valueName: '<policy>',
    description: `when a run comes due while one still runs: ${OVERLAP_POLICIES.join(', ')} (default: skip)`,
  },
  'catchup-window': {
    type: 'string',
    valueName: '<duration>',
    description: 'after a Temporal outage, still make runs missed by up to this long (default: 10m, min 10s)',
  },
  note: { type: 'string', valueName: '<text>', description: 'a note for people, shown by list and describe' },
  paused: { type: 'boolean', description: 'create the schedule paused' },
} as const satisfies FlagTable;

export const WHAT_FLAGS = {
  prompt: { type: 'string', valueName: '<text>', description: 'the prompt each run sends' },
  ...REQUEST_FLAGS,
  request: {
    type: 'string',
    valueName: '<path>',
    description: 'a JSON file with the request ({messages, system, …}) or a whole call ({route, request, …})',
  },
  patience: {
    type: 'string',
    valueName: '<duration>',
    description: 'how long a run may wait out a provider outage (default: 30m)',
  },
} as const satisfies FlagTable;

export const DELIVER_FLAGS = {
  'deliver-webhook': {
    type: 'string',
    valueName: '<url>',
    description: 'POST each result as JSON to this http(s) URL (header Idempotency-Key: <run workflow id>)',
  },
  'deliver-dir': {
    type: 'string',
    valueName: '<path>',
    description: "write each result to <path>/<run workflow id>.json on the worker's machine",
  },
  'no-deliver': { type: 'boolean', description: 'stop delivering (update only); results stay listable' },
} as const satisfies FlagTable;

function overlapFlag(value: string | undefined): OverlapPolicy | undefined {
  if (value === undefined) return undefined;
  const policy = value.trim().toLowerCase().replace(/-/g, '_');
  if (!OVERLAP_POLICIES.includes(policy as OverlapPolicy)) {
    throw new UsageError(`--overlap must be one of ${OVERLAP_POLICIES.join(', ')}, got "${value}"`);
  }
  return policy as OverlapPolicy;
}

/** `--limit` of `results`. */
export function readLimit(parsed: ParsedArguments): number | undefined {
  return positiveIntegerFlag('limit', stringFlag(parsed, 'limit'));
}

/** Where the request comes from: exactly one of --prompt, --file and --request (none on an update keeps it). */
type RequestSource =
  | { readonly kind: 'prompt'; readonly prompt: string }
  | { readonly kind: 'request'; readonly request: GenerationRequestInput }
  | { readonly kind: 'call'; readonly call: RoutedCallInputValue };

async function readRequestSource(parsed: ParsedArguments): Promise<RequestSource | undefined> {
  const prompt = stringFlag(parsed, 'prompt');
  const file = stringFlag(parsed, 'file');
  const requestFile = stringFlag(parsed, 'request');
  const given = [prompt, file, requestFile].filter((value) => value !== undefined).length;
  if (given > 1) throw new UsageError('give the request once: --prompt, --file or --request');
  if (prompt !== undefined) {
    if (prompt.trim() === '') throw new UsageError('--prompt must not be empty');
    return { kind: 'prompt', prompt };
  }
  if (file !== undefined) {
    const text = await readText('file', file);
    if (text.trim() === '') throw new UsageError(`the prompt in ${file} is empty`);
    return { kind: 'prompt', prompt: text };
  }
  if (requestFile === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(await readText('request', requestFile));
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`--request ${requestFile} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError(`--request ${requestFile} must hold a JSON object`);
  }
  if ('messages' in value) return { kind: 'request', request: value as GenerationRequestInput };
  if ('request' in value) return { kind: 'call', call: value as RoutedCallInputValue };
  throw new UsageError(
    `--request ${requestFile} has neither "messages" (a request) nor "request" (a whole call)`,
  );
}

async function readText(flag: string, file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(
      `--${flag} cannot be read: ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
}

/** The call a source and the request flags describe, on top of `base` (the current call, on an update). */
function buildCall(
  base: RoutedCallInputValue | undefined,
  source: RequestSource | undefined,
  flags: RequestFlagValues,
  patienceMs: number | undefined,
): RoutedCallInputValue {
  let call: RoutedCallInputValue;
  if (source?.kind === 'call') call = source.call;
  else if (source?.kind === 'request') call = { ...base, request: source.request };
  else if (source?.kind === 'prompt') {
    const request = { ...base?.request, messages: [{ role: 'user' as const, content: source.prompt }] };
    call = { ...base, request };
  } else if (base) call = base;
  else throw new UsageError('no request: give --prompt <text>, --file <path> or --request <path>');

  const { system, route, budget, maxOutputTokens, temperature, deadlineMs, maxCostUsd } = flags;
  return {
    ...call,
    request: {
      ...call.request,
      ...(system !== undefined ? { system } : {}),
      ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
      ...(temperature !== undefined ? { temperature } : {}),
    },
    ...(route !== undefined ? { route } : {}),
    ...(budget !== undefined ? { budget } : {}),
    ...(deadlineMs !== undefined ? { deadlineMs } : {}),
    ...(maxCostUsd !== undefined ? { maxCostUsd } : {}),
    ...(patienceMs !== undefined ? { patienceMs } : {}),
  };
}

/** The delivery flags; relative directories are resolved here, for a worker on this machine. */
function readDelivery(parsed: ParsedArguments): DeliverySpec | undefined {
  const webhookUrl = nonEmptyFlag('deliver-webhook', stringFlag(parsed, 'deliver-webhook'));
  const directory = nonEmptyFlag('deliver-dir', stringFlag(parsed, 'deliver-dir'));
  if (webhookUrl === undefined && directory === undefined) return undefined;
  return {
    ...(webhookUrl !== undefined ? { webhookUrl } : {}),
    ...(directory !== undefined ? { directory: path.resolve(directory) } : {}),
  };
}

interface WhenFlagValues {
  readonly every?: number;
  readonly cron?: string;
  readonly timezone?: string;
  readonly overlap?: OverlapPolicy;
  readonly catchupWindow?: number;
  readonly note?: string;
}

function readWhen(parsed: ParsedArguments): WhenFlagValues {
  const every = durationFlag('every', stringFlag(parsed, 'every'));
  const cron = nonEmptyFlag('cron', stringFlag(parsed, 'cron'));
  if (every !== undefined && cron !== undefined) throw new UsageError('give --every or --cron, not both');
  const timezone = nonEmptyFlag('timezone', stringFlag(parsed, 'timezone'));
  const overlap = overlapFlag(stringFlag(parsed, 'overlap'));
  const catchupWindow = durationFlag('catchup-window', stringFlag(parsed, 'catchup-window'));
  const note = stringFlag(parsed, 'note');
  return {
    ...(every !== undefined ? { every } : {}),
    ...(cron !== undefined ? { cron } : {}),
    ...(timezone !== undefined ? { timezone } : {}),
    ...(overlap !== undefined ? { overlap } : {}),
    ...(catchupWindow !== undefined ? { catchupWindow } : {}),
    ...(note !== undefined ? { note } : {}),
  };
}

/** `--overlap` of `trigger`: a one-time override. */
export function readTriggerOverlap(parsed: ParsedArguments): OverlapPolicy | undefined {
  return overlapFlag(stringFlag(parsed, 'overlap'));
}

/** The definition `schedule create <id>` asks for; the schema checks it again (and names fields). */
export async function readDefinition(id: string, parsed: ParsedArguments): Promise<ScheduleDefinitionInput> {
  const when = readWhen(parsed);
  if (when.every === undefined && when.cron === undefined) {
    throw new UsageError('say when it runs: --every <duration> or --cron <expr>');
  }
  const flags = readRequestFlags(parsed);
  const patienceMs = durationFlag('patience', stringFlag(parsed, 'patience'));
  const call = buildCall(undefined, await readRequestSource(parsed), flags, patienceMs);
  const deliver = readDelivery(parsed);
  if (booleanFlag(parsed, 'no-deliver'))
    throw new UsageError('--no-deliver applies to "schedule update" only');
  return checkDefinition({
    id,
    ...when,
    call,
    ...(deliver ? { deliver } : {}),
    paused: booleanFlag(parsed, 'paused'),
  });
}

/** The call an update's flags are checked on: any valid call, since the flags replace what they name. */
const STAND_IN_CALL: RoutedCallInputValue = {
  request: { messages: [{ role: 'user', content: 'stand-in' }] },
};

/** What `schedule update <id>` changes, as a function of the current definition (the call is patched). */
export async function readChange(
  parsed: ParsedArguments,
): Promise<(current: { readonly call: RoutedCallInput }) => ScheduleChange> {
  const when = readWhen(parsed);
  if (booleanFlag(parsed, 'paused')) {
    throw new UsageError('--paused applies to "schedule create"; use "schedule pause <id>"');
  }
  const flags = readRequestFlags(parsed);
  const patienceMs = durationFlag('patience', stringFlag(parsed, 'patience'));
  const source = await readRequestSource(parsed);
  const deliver = readDelivery(parsed);
  const noDeliver = booleanFlag(parsed, 'no-deliver');
  if (noDeliver && deliver)
    throw new UsageError('give --no-deliver or --deliver-webhook / --deliver-dir, not both');
  const { budget, ...callFlags } = flags;
  const callChanges =
    source !== undefined ||
    patienceMs !== undefined ||
    Object.values(callFlags).some((value) => value !== undefined && value !== false);
  const change: ScheduleChange = {
    ...when,
    ...(budget !== undefined ? { budget } : {}),
    ...(deliver ? { deliver } : noDeliver ? { deliver: null } : {}),
  };
  if (!callChanges && Object.keys(change).length === 0) {
    throw new UsageError('nothing to change: give the flags of what should change (see --help)');
  }
  // What the flags say on their own is checked before connecting, on a stand-in for the current schedule;
  // what depends on the current one (a time zone for an interval schedule) is left to `schedules.update`.
  const standInWhen =
    when.cron !== undefined || when.timezone !== undefined ? { cron: '@daily' } : { every: '1h' };
  checkDefinition({
    id: 'update',
    ...(when.every === undefined && when.cron === undefined ? standInWhen : {}),
    ...when,
    call: buildCall(STAND_IN_CALL, source, flags, patienceMs),
    ...(budget !== undefined ? { budget } : {}),
    ...(deliver ? { deliver } : {}),
  });
  return (current) =>
    callChanges
      ? { ...change, call: buildCall(current.call, source, { ...callFlags, stream: false }, patienceMs) }
      : change;
}

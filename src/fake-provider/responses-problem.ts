// One refusal of the fake's Responses wire, worded as the real API words it, and the helpers that build them.
// Pure; test/bench side.

/** A refused request: OpenAI's message, the `param` it names, its `code`, and the HTTP status (400 unless said). */
export interface ResponsesProblem {
  readonly message: string;
  readonly param: string | null;
  readonly code: string | null;
  /** @default 400 */
  readonly status?: number;
}

/** `'a', 'b', and 'c'`, as OpenAI lists supported values. */
function quotedList(values: readonly string[]): string {
  const quoted = values.map((value) => `'${value}'`);
  if (quoted.length <= 1) return quoted.join('');
  return `${quoted.slice(0, -1).join(', ')}${quoted.length > 2 ? ',' : ''} and ${quoted.at(-1)}`;
}

export function missingParameter(param: string): ResponsesProblem {
  return { message: `Missing required parameter: '${param}'.`, param, code: 'missing_required_parameter' };
}

export function unknownParameter(param: string): ResponsesProblem {
  return { message: `Unknown parameter: '${param}'.`, param, code: 'unknown_parameter' };
}

export function invalidValue(value: unknown, supported: readonly string[], param: string): ResponsesProblem {
  return {
    message: `Invalid value: '${String(value)}'. Supported values are: ${quotedList(supported)}.`,
    param,
    code: 'invalid_value',
  };
}

const TYPE_NAMES: Readonly<Record<string, string>> = {
  string: 'a string',
  boolean: 'a boolean',
  number: 'a number',
  integer: 'an integer',
  object: 'an object',
  array: 'an array',
};

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'an integer' : 'a decimal';
  return TYPE_NAMES[typeof value] ?? typeof value;
}

/** `Invalid type for 'x': expected a string, but got an integer instead.` */
export function invalidType(value: unknown, expected: string, param: string): ResponsesProblem {
  return {
    message: `Invalid type for '${param}': expected ${TYPE_NAMES[expected] ?? expected}, but got ${typeOf(value)} instead.`,
    param,
    code: 'invalid_type',
  };
}

/** The first key of `record` the real API does not know at `param`, as its 400. */
export function unknownKey(
  record: Readonly<Record<string, unknown>>,
  known: ReadonlySet<string>,
  param: string,
): ResponsesProblem | undefined {
  const unknown = Object.keys(record).find((key) => !known.has(key));
  return unknown === undefined ? undefined : unknownParameter(param === '' ? unknown : `${param}.${unknown}`);
}

/** A number outside [min, max], worded by whether the field is an integer or a decimal. */
export function outOfRange(
  value: number,
  bounds: { readonly min?: number; readonly max?: number; readonly integer?: boolean },
  param: string,
): ResponsesProblem | undefined {
  const kind = bounds.integer ? 'integer' : 'decimal';
  if (bounds.min !== undefined && value < bounds.min) {
    return {
      message: `Invalid '${param}': ${kind} below minimum value. Expected a value >= ${bounds.min}, but got ${value} instead.`,
      param,
      code: `${kind}_below_min_value`,
    };
  }
  if (bounds.max !== undefined && value > bounds.max) {
    return {
      message: `Invalid '${param}': ${kind} above maximum value. Expected a value <= ${bounds.max}, but got ${value} instead.`,
      param,
      code: `${kind}_above_max_value`,
    };
  }
  return undefined;
}

/**
 * The fake's wire contract carries a refusal as one message string; the param, code and status travel in front
 * of it behind a unit separator (a character no OpenAI message holds), and `decodeResponsesProblem` takes them
 * apart again.
 */
const SEPARATOR = '\u001f';

export function encodeResponsesProblem(problem: ResponsesProblem): string {
  const head = { param: problem.param, code: problem.code, status: problem.status ?? 400 };
  return `${JSON.stringify(head)}${SEPARATOR}${problem.message}`;
}

/** The problem behind a refusal message; a plain message (no separator) is a 400 naming no param or code. */
export function decodeResponsesProblem(text: string): Required<ResponsesProblem> {
  const at = text.indexOf(SEPARATOR);
  if (at < 0) return { message: text, param: null, code: null, status: 400 };
  const head = JSON.parse(text.slice(0, at)) as { param: string | null; code: string | null; status: number };
  return { message: text.slice(at + 1), param: head.param, code: head.code, status: head.status };
}

// The fake's Responses wire: checks on a request's parameters beside `input` (model, tools, text format,
// reasoning, sampling, state), as the real API makes them. Pure apart from the input check; test/bench side.
import { isRecord } from './content-text';
import { checkInput } from './responses-input-validate';
import {
  invalidType,
  invalidValue,
  missingParameter,
  outOfRange,
  unknownKey,
  type ResponsesProblem,
} from './responses-problem';

/**
 * Every top-level field the real API knows. `stop`, `seed`, `top_k`, `messages`, `max_tokens` and
 * `response_format` are not among them: sending one is a 400, as it is there.
 */
const KNOWN_FIELDS = new Set([
  'model',
  'input',
  'instructions',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'max_tool_calls',
  'text',
  'max_output_tokens',
  'reasoning',
  'temperature',
  'top_p',
  'top_logprobs',
  'store',
  'include',
  'metadata',
  'stream',
  'stream_options',
  'previous_response_id',
  'conversation',
  'prompt',
  'prompt_cache_key',
  'prompt_cache_retention',
  'background',
  'safety_identifier',
  'service_tier',
  'truncation',
  'user',
  'context_management',
]);

const INCLUDABLE = [
  'file_search_call.results',
  'web_search_call.results',
  'web_search_call.action.sources',
  'message.input_image.image_url',
  'computer_call_output.output.image_url',
  'code_interpreter_call.outputs',
  'reasoning.encrypted_content',
  'message.output_text.logprobs',
];
const REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'];
const REASONING_SUMMARIES = ['auto', 'concise', 'detailed'];
const TOOL_CHOICES = ['none', 'auto', 'required'];
const FORMAT_TYPES = ['text', 'json_schema', 'json_object'];

/** The smallest `max_output_tokens` the real API takes. */
const MIN_MAX_OUTPUT_TOKENS = 16;
/** OpenAI's metadata limits: keys per object, characters per key and per value. */
const METADATA_LIMITS = { keys: 16, keyLength: 64, valueLength: 512 } as const;

const present = (value: unknown): boolean => value !== undefined && value !== null;

function checkTools(tools: unknown): ResponsesProblem | undefined {
  if (!present(tools)) return undefined;
  if (!Array.isArray(tools)) return invalidType(tools, 'array', 'tools');
  for (const [index, tool] of tools.entries()) {
    const param = `tools[${index}]`;
    if (!isRecord(tool)) return invalidType(tool, 'object', param);
    // The fake models function tools only; OpenAI's built-in tools run on OpenAI's side.
    if (tool.type !== 'function') return invalidValue(tool.type, ['function'], `${param}.type`);
    const unknown = unknownKey(
      tool,
      new Set(['type', 'name', 'parameters', 'strict', 'description', 'defer_loading']),
      param,
    );
    if (unknown) return unknown;
    if (typeof tool.name !== 'string') return missingParameter(`${param}.name`);
    if (!/^[a-zA-Z0-9_-]{1,64}$/.test(tool.name)) {
      return {
        message: `Invalid '${param}.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
        param: `${param}.name`,
        code: 'invalid_value',
      };
    }
    if (present(tool.parameters) && !isRecord(tool.parameters)) {
      return invalidType(tool.parameters, 'object', `${param}.parameters`);
    }
    const strictProblem = tool.strict === true ? checkStrictSchema(tool, param) : undefined;
    if (strictProblem) return strictProblem;
  }
  return undefined;
}

/** Strict mode's demands on the top of a function's schema (nested objects are not walked). */
function checkStrictSchema(tool: Record<string, unknown>, param: string): ResponsesProblem | undefined {
  const schema = isRecord(tool.parameters) ? tool.parameters : {};
  const invalid = (reason: string): ResponsesProblem => ({
    message: `Invalid schema for function '${String(tool.name)}': In context=(), ${reason}`,
    param: `${param}.parameters`,
    code: 'invalid_function_parameters',
  });
  if (schema.additionalProperties !== false) {
    return invalid("'additionalProperties' is required to be supplied and to be false.");
  }
  const properties = isRecord(schema.properties) ? Object.keys(schema.properties) : [];
  const required = Array.isArray(schema.required) ? schema.required : [];
  const missing = properties.find((name) => !required.includes(name));
  if (missing !== undefined) {
    return invalid(
      `'required' is required to be supplied and to be an array including every key in properties. Missing '${missing}'.`,
    );
  }
  return undefined;
}

function checkToolChoice(choice: unknown, tools: unknown): ResponsesProblem | undefined {
  if (!present(choice)) return undefined;
  if (typeof choice === 'string') {
    return TOOL_CHOICES.includes(choice) ? undefined : invalidValue(choice, TOOL_CHOICES, 'tool_choice');
  }
  if (!isRecord(choice)) return invalidType(choice, 'object', 'tool_choice');
  if (choice.type === 'allowed_tools') return undefined;
  if (choice.type !== 'function')
    return invalidValue(choice.type, ['function', 'allowed_tools'], 'tool_choice.type');
  if (typeof choice.name !== 'string') return missingParameter('tool_choice.name');
  const names = Array.isArray(tools)
    ? tools.map((tool: unknown) => (isRecord(tool) ? tool.name : undefined))
    : [];
  if (!names.includes(choice.name)) {
    return {
      message: `Tool choice '${choice.name}' not found in 'tools' parameter.`,
      param: 'tool_choice',
      code: null,
    };
  }
  return undefined;
}

function checkTextFormat(text: unknown): ResponsesProblem | undefined {
  if (!present(text)) return undefined;
  if (!isRecord(text)) return invalidType(text, 'object', 'text');
  const unknown = unknownKey(text, new Set(['format', 'verbosity']), 'text');
  if (unknown) return unknown;
  const format = text.format;
  if (!present(format)) return undefined;
  if (!isRecord(format)) return invalidType(format, 'object', 'text.format');
  if (!FORMAT_TYPES.includes(String(format.type)))
    return invalidValue(format.type, FORMAT_TYPES, 'text.format.type');
  if (format.type !== 'json_schema') return unknownKey(format, new Set(['type']), 'text.format');
  return (
    unknownKey(format, new Set(['type', 'name', 'schema', 'description', 'strict']), 'text.format') ??
    (typeof format.name === 'string' ? undefined : missingParameter('text.format.name')) ??
    (isRecord(format.schema) ? undefined : missingParameter('text.format.schema'))
  );
}

function checkReasoning(reasoning: unknown): ResponsesProblem | undefined {
  if (!present(reasoning)) return undefined;
  if (!isRecord(reasoning)) return invalidType(reasoning, 'object', 'reasoning');
  const unknown = unknownKey(reasoning, new Set(['effort', 'summary', 'generate_summary']), 'reasoning');
  if (unknown) return unknown;
  if (present(reasoning.effort) && !REASONING_EFFORTS.includes(String(reasoning.effort))) {
    return invalidValue(reasoning.effort, REASONING_EFFORTS, 'reasoning.effort');
  }
  if (present(reasoning.summary) && !REASONING_SUMMARIES.includes(String(reasoning.summary))) {
    return invalidValue(reasoning.summary, REASONING_SUMMARIES, 'reasoning.summary');
  }
  return undefined;
}

function checkNumbers(body: Record<string, unknown>): ResponsesProblem | undefined {
  const ranges = [
    ['max_output_tokens', { min: MIN_MAX_OUTPUT_TOKENS, integer: true }],
    ['temperature', { min: 0, max: 2 }],
    ['top_p', { min: 0, max: 1 }],
    ['top_logprobs', { min: 0, max: 20, integer: true }],
    ['max_tool_calls', { min: 1, integer: true }],
  ] as const;
  for (const [field, bounds] of ranges) {
    const value = body[field];
    if (!present(value)) continue;
    const integer = 'integer' in bounds;
    if (typeof value !== 'number' || (integer && !Number.isInteger(value))) {
      return invalidType(value, integer ? 'integer' : 'number', field);
    }
    const problem = outOfRange(value, bounds, field);
    if (problem) return problem;
  }
  return undefined;
}

function checkMetadata(metadata: unknown): ResponsesProblem | undefined {
  if (!present(metadata)) return undefined;
  if (!isRecord(metadata)) return invalidType(metadata, 'object', 'metadata');
  const entries = Object.entries(metadata);
  if (entries.length > METADATA_LIMITS.keys) {
    return {
      message: `Invalid 'metadata': too many properties. Expected an object with at most ${METADATA_LIMITS.keys} properties, but got an object with ${entries.length} properties instead.`,
      param: 'metadata',
      code: 'object_above_max_properties',
    };
  }
  for (const [key, value] of entries) {
    if (typeof value !== 'string') return invalidType(value, 'string', `metadata.${key}`);
    if (key.length > METADATA_LIMITS.keyLength || value.length > METADATA_LIMITS.valueLength) {
      return {
        message: `Invalid 'metadata.${key}': string too long. Expected a key of at most ${METADATA_LIMITS.keyLength} characters and a value of at most ${METADATA_LIMITS.valueLength} characters.`,
        param: `metadata.${key}`,
        code: 'string_above_max_length',
      };
    }
  }
  return undefined;
}

/** Fields that name state kept at OpenAI, which this fake never keeps: each is "not found", as there. */
function checkState(body: Record<string, unknown>): ResponsesProblem | undefined {
  if (typeof body.previous_response_id === 'string') {
    return {
      message: `Previous response with id '${body.previous_response_id}' not found.`,
      param: 'previous_response_id',
      code: 'previous_response_not_found',
      status: 404,
    };
  }
  if (present(body.conversation)) {
    const id = isRecord(body.conversation) ? body.conversation.id : body.conversation;
    return {
      message: `Conversation with id '${String(id)}' not found.`,
      param: 'conversation',
      code: null,
      status: 404,
    };
  }
  if (present(body.prompt)) {
    const id = isRecord(body.prompt) ? body.prompt.id : body.prompt;
    return {
      message: `Prompt with id '${String(id)}' not found.`,
      param: 'prompt.id',
      code: null,
      status: 404,
    };
  }
  if (body.background === true) {
    return body.store === false
      ? { message: 'Background mode requires `store` to be true.', param: 'background', code: null }
      : {
          message: 'The fake provider does not run responses in the background.',
          param: 'background',
          code: null,
        };
  }
  return undefined;
}

function checkInclude(include: unknown): ResponsesProblem | undefined {
  if (!present(include)) return undefined;
  if (!Array.isArray(include)) return invalidType(include, 'array', 'include');
  const bad = include.findIndex((value: unknown) => !INCLUDABLE.includes(String(value)));
  return bad < 0 ? undefined : invalidValue(include[bad], INCLUDABLE, `include[${bad}]`);
}

/** The first thing the real API would refuse in a `POST /v1/responses` body. */
export function validateResponsesRequest(body: Record<string, unknown>): ResponsesProblem | undefined {
  const store = body.store !== false;
  return (
    unknownKey(body, KNOWN_FIELDS, '') ??
    (typeof body.model === 'string' && body.model !== '' ? undefined : missingParameter('model')) ??
    (present(body.instructions) && typeof body.instructions !== 'string'
      ? invalidType(body.instructions, 'string', 'instructions')
      : undefined) ??
    checkNumbers(body) ??
    checkInclude(body.include) ??
    checkReasoning(body.reasoning) ??
    checkTextFormat(body.text) ??
    checkTools(body.tools) ??
    checkToolChoice(body.tool_choice, body.tools) ??
    checkMetadata(body.metadata) ??
    checkState(body) ??
    checkInput(body.input, store)
  );
}

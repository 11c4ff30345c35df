// The fake's OpenAI Chat Completions request checks: the real API's 400s, messages and params. Pure; test/bench side.
import { isRecord } from './content-text';

/** One 400 as OpenAI words it: its message, the `param` it names and its `code`. */
export interface OpenAIRequestProblem {
  readonly message: string;
  readonly param: string | null;
  readonly code: string | null;
}

/** Image formats OpenAI accepts, by media type, with the leading bytes each format's files start with. */
const IMAGE_SIGNATURES: Readonly<Record<string, (bytes: Buffer) => boolean>> = {
  'image/png': (bytes) =>
    bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  'image/jpeg': (bytes) => bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff,
  'image/gif': (bytes) => ['GIF87a', 'GIF89a'].includes(bytes.subarray(0, 6).toString('latin1')),
  'image/webp': (bytes) =>
    bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP',
};

/** Content part types per role, in the order OpenAI lists them in its "Supported values" message. */
const PART_TYPES_BY_ROLE: Readonly<Record<string, readonly string[]>> = {
  system: ['text'],
  developer: ['text'],
  user: ['text', 'image_url', 'input_audio', 'file'],
  assistant: ['text', 'refusal'],
  tool: ['text'],
};
const ALL_PART_TYPES = ['text', 'image_url', 'input_audio', 'refusal', 'audio', 'file'];
const ROLES = ['system', 'assistant', 'user', 'function', 'tool', 'developer'];
const REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'];

/** OpenAI's limits: stop sequences per request and characters per tool call id. */
const MAX_STOP_SEQUENCES = 4;
const MAX_TOOL_CALL_ID_LENGTH = 40;

/** `'a', 'b', and 'c'`, as OpenAI lists supported values. */
function quotedList(values: readonly string[]): string {
  const quoted = values.map((value) => `'${value}'`);
  if (quoted.length <= 1) return quoted.join('');
  return `${quoted.slice(0, -1).join(', ')}${quoted.length > 2 ? ',' : ''} and ${quoted.at(-1)}`;
}

function invalidValue(value: unknown, supported: readonly string[], param: string): OpenAIRequestProblem {
  return {
    message: `Invalid value: '${String(value)}'. Supported values are: ${quotedList(supported)}.`,
    param,
    code: 'invalid_value',
  };
}

/** True when the bytes start like one of the image formats OpenAI accepts (png, jpeg, gif, webp). */
export function isSupportedImage(bytes: Buffer): boolean {
  return Object.values(IMAGE_SIGNATURES).some((matches) => matches(bytes));
}

const STRICT_BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Decodes standard, padded base64, or undefined when it is not that (Buffer.from would skip bad characters). */
export function decodeBase64(text: string): Buffer | undefined {
  if (text === '' || text.length % 4 !== 0 || !STRICT_BASE64.test(text)) return undefined;
  return Buffer.from(text, 'base64');
}

function checkImageURL(part: Record<string, unknown>, param: string): OpenAIRequestProblem | undefined {
  const image = isRecord(part.image_url) ? part.image_url : undefined;
  if (image === undefined || typeof image.url !== 'string') {
    return {
      message: `Missing required parameter: '${param}.image_url.url'.`,
      param: `${param}.image_url.url`,
      code: 'missing_required_parameter',
    };
  }
  if (image.detail !== undefined && !['auto', 'low', 'high'].includes(String(image.detail))) {
    return invalidValue(image.detail, ['auto', 'low', 'high'], `${param}.image_url.detail`);
  }
  const url = image.url;
  const urlParam = `${param}.image_url.url`;
  if (/^https?:\/\//i.test(url)) return undefined;
  const dataURL = /^data:([^;,]*);base64,(.*)$/s.exec(url);
  if (dataURL === null) {
    return {
      message: `Invalid '${urlParam}'. Expected a base64-encoded data URL with an image MIME type (e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), but got a value without the 'data:' prefix.`,
      param: urlParam,
      code: 'invalid_value',
    };
  }
  const [, mediaType = '', data = ''] = dataURL;
  if (!(mediaType in IMAGE_SIGNATURES)) {
    return {
      message: `Invalid '${urlParam}'. Expected a base64-encoded data URL with an image MIME type (e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), but got unsupported MIME type '${mediaType}'.`,
      param: urlParam,
      code: 'invalid_value',
    };
  }
  const bytes = decodeBase64(data);
  if (bytes === undefined) {
    return {
      message: `Invalid '${urlParam}'. Expected a base64-encoded data URL with an image MIME type (e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), but got invalid base64 data.`,
      param: urlParam,
      code: 'invalid_value',
    };
  }
  // OpenAI reads the bytes, not the declared type: anything that is not one of its formats is refused.
  if (!isSupportedImage(bytes)) {
    return {
      message:
        "You uploaded an unsupported image. Please make sure your image has of one the following formats: ['png', 'jpeg', 'gif', 'webp'].",
      param: null,
      code: 'invalid_image_format',
    };
  }
  return undefined;
}

function checkFile(part: Record<string, unknown>, param: string): OpenAIRequestProblem | undefined {
  const file = isRecord(part.file) ? part.file : undefined;
  if (file === undefined || (typeof file.file_data !== 'string' && typeof file.file_id !== 'string')) {
    return {
      message: `Missing required parameter: '${param}.file.file_data'.`,
      param: `${param}.file.file_data`,
      code: 'missing_required_parameter',
    };
  }
  if (typeof file.file_data !== 'string') return undefined;
  const dataParam = `${param}.file.file_data`;
  const dataURL = /^data:application\/pdf;base64,(.*)$/s.exec(file.file_data);
  if (dataURL === null || decodeBase64(dataURL[1] ?? '') === undefined) {
    return {
      message: `Invalid '${dataParam}'. Expected a base64-encoded data URL with an application/pdf MIME type (e.g. 'data:application/pdf;base64,SGVsbG8sIFdvcmxkIQ=='), but got a value that is not one.`,
      param: dataParam,
      code: 'invalid_value',
    };
  }
  if (typeof file.filename !== 'string' || file.filename === '') {
    return {
      message: `Missing required parameter: '${param}.file.filename'.`,
      param: `${param}.file.filename`,
      code: 'missing_required_parameter',
    };
  }
  return undefined;
}

function checkPart(part: unknown, role: string, param: string): OpenAIRequestProblem | undefined {
  if (!isRecord(part)) {
    return {
      message: `Invalid type for '${param}': expected an object, but got a string instead.`,
      param,
      code: 'invalid_type',
    };
  }
  if (!ALL_PART_TYPES.includes(String(part.type)))
    return invalidValue(part.type, ALL_PART_TYPES, `${param}.type`);
  const allowed = PART_TYPES_BY_ROLE[role] ?? [];
  if (!allowed.includes(String(part.type))) {
    if (part.type === 'image_url') {
      return {
        message: `Invalid '${param.replace(/\.content\[\d+\]$/, '')}'. Image URLs are only allowed for messages with role 'user', but this message with role '${role}' contains an image URL.`,
        param: param.replace(/\.content\[\d+\]$/, ''),
        code: 'invalid_value',
      };
    }
    return invalidValue(part.type, allowed, `${param}.type`);
  }
  switch (part.type) {
    case 'text':
    case 'refusal': {
      const field = part.type;
      return typeof part[field] === 'string'
        ? undefined
        : {
            message: `Missing required parameter: '${param}.${field}'.`,
            param: `${param}.${field}`,
            code: 'missing_required_parameter',
          };
    }
    case 'image_url':
      return checkImageURL(part, param);
    case 'file':
      return checkFile(part, param);
    default:
      return undefined;
  }
}

function checkContent(
  message: Record<string, unknown>,
  role: string,
  param: string,
): OpenAIRequestProblem | undefined {
  const content = message.content;
  if (typeof content === 'string') return undefined;
  if (content === null || content === undefined) {
    // Only an assistant message that calls tools may go without content.
    if (role === 'assistant' && Array.isArray(message.tool_calls) && message.tool_calls.length > 0)
      return undefined;
    return {
      message: `Invalid value for 'content': expected a string, got ${content === null ? 'null' : 'undefined'}.`,
      param: `${param}.content`,
      code: null,
    };
  }
  if (!Array.isArray(content)) {
    return {
      message: `Invalid type for '${param}.content': expected one of a string or array of objects.`,
      param: `${param}.content`,
      code: 'invalid_type',
    };
  }
  if (content.length === 0 && role !== 'assistant') {
    return {
      message: `Invalid '${param}.content': empty array. Expected an array with minimum length 1, but got an empty array instead.`,
      param: `${param}.content`,
      code: 'empty_array',
    };
  }
  for (const [index, part] of content.entries()) {
    const problem = checkPart(part, role, `${param}.content[${index}]`);
    if (problem) return problem;
  }
  return undefined;
}

/** An assistant message's tool call ids, checking each call's shape and the 40-character limit. */
function toolCallIds(message: Record<string, unknown>, param: string): string[] | OpenAIRequestProblem {
  if (message.tool_calls === undefined || message.tool_calls === null) return [];
  if (!Array.isArray(message.tool_calls)) {
    return {
      message: `Invalid type for '${param}.tool_calls': expected an array of objects.`,
      param: `${param}.tool_calls`,
      code: 'invalid_type',
    };
  }
  const ids: string[] = [];
  for (const [index, call] of message.tool_calls.entries()) {
    const callParam = `${param}.tool_calls[${index}]`;
    if (!isRecord(call) || typeof call.id !== 'string') {
      return {
        message: `Missing required parameter: '${callParam}.id'.`,
        param: `${callParam}.id`,
        code: 'missing_required_parameter',
      };
    }
    if (call.id.length > MAX_TOOL_CALL_ID_LENGTH) {
      return {
        message: `Invalid '${callParam}.id': string too long. Expected a string with maximum length ${MAX_TOOL_CALL_ID_LENGTH}, but got a string with length ${call.id.length} instead.`,
        param: `${callParam}.id`,
        code: 'string_above_max_length',
      };
    }
    if (call.type !== 'function') return invalidValue(call.type, ['function'], `${callParam}.type`);
    const fn = isRecord(call.function) ? call.function : undefined;
    if (fn === undefined || typeof fn.name !== 'string' || typeof fn.arguments !== 'string') {
      return {
        message: `Missing required parameter: '${callParam}.function'.`,
        param: `${callParam}.function`,
        code: 'missing_required_parameter',
      };
    }
    ids.push(call.id);
  }
  return ids;
}

function unansweredCalls(assistantIndex: number, ids: readonly string[]): OpenAIRequestProblem {
  return {
    message: `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${ids.join(', ')}`,
    param: `messages.[${assistantIndex}].role`,
    code: null,
  };
}

/**
 * The messages, as OpenAI checks them: known roles and part types per role, and the tool loop's pairing — every
 * tool message answers a call of the assistant message just before the tool messages, and every call is answered
 * before the next message that is not a tool message (or the end).
 */
function checkMessages(messages: readonly unknown[]): OpenAIRequestProblem | undefined {
  /** The assistant turn whose calls still await answers. */
  let open: { index: number; ids: string[]; unanswered: Set<string> } | undefined;
  for (const [index, message] of messages.entries()) {
    const param = `messages[${index}]`;
    if (!isRecord(message)) {
      return {
        message: `Invalid type for '${param}': expected an object, but got a string instead.`,
        param,
        code: 'invalid_type',
      };
    }
    const role = message.role;
    if (!ROLES.includes(String(role))) return invalidValue(role, ROLES, `${param}.role`);
    if (role !== 'tool' && open !== undefined && open.unanswered.size > 0) {
      return unansweredCalls(open.index, [...open.unanswered]);
    }
    const contentProblem = checkContent(message, String(role), param);
    if (contentProblem) return contentProblem;
    if (role === 'tool') {
      if (open === undefined) {
        return {
          message:
            "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          param: `messages.[${index}].role`,
          code: null,
        };
      }
      const callId = message.tool_call_id;
      if (typeof callId !== 'string') {
        return {
          message: `Missing required parameter: '${param}.tool_call_id'.`,
          param: `${param}.tool_call_id`,
          code: 'missing_required_parameter',
        };
      }
      if (!open.ids.includes(callId)) {
        return {
          message: `Invalid parameter: 'tool_call_id' of '${callId}' not found in 'tool_calls' of previous message.`,
          param: `messages.[${index}].tool_call_id`,
          code: null,
        };
      }
      open.unanswered.delete(callId);
      continue;
    }
    open = undefined;
    if (role === 'assistant') {
      const ids = toolCallIds(message, param);
      if (!Array.isArray(ids)) return ids;
      if (ids.length > 0) open = { index, ids, unanswered: new Set(ids) };
    }
  }
  if (open !== undefined && open.unanswered.size > 0)
    return unansweredCalls(open.index, [...open.unanswered]);
  return undefined;
}

function toolNames(tools: unknown): string[] {
  if (!Array.isArray(tools)) return [];
  return tools.flatMap((tool: unknown) =>
    isRecord(tool) && isRecord(tool.function) && typeof tool.function.name === 'string'
      ? [tool.function.name]
      : [],
  );
}

/** Request parameters beside the messages, as OpenAI checks them. */
function checkParameters(body: Record<string, unknown>): OpenAIRequestProblem | undefined {
  if (Array.isArray(body.stop) && body.stop.length > MAX_STOP_SEQUENCES) {
    return {
      message: `Invalid 'stop': array too long. Expected an array with maximum length ${MAX_STOP_SEQUENCES}, but got an array with length ${body.stop.length} instead.`,
      param: 'stop',
      code: 'array_above_max_length',
    };
  }
  const hasTools = Array.isArray(body.tools) && body.tools.length > 0;
  for (const field of ['tool_choice', 'parallel_tool_calls'] as const) {
    if (body[field] !== undefined && body[field] !== null && !hasTools) {
      return {
        message: `Invalid value for '${field}': '${field}' is only allowed when 'tools' are specified.`,
        param: field,
        code: null,
      };
    }
  }
  const choice = body.tool_choice;
  if (typeof choice === 'string' && !['none', 'auto', 'required'].includes(choice)) {
    return invalidValue(choice, ['none', 'auto', 'required'], 'tool_choice');
  }
  if (isRecord(choice) && isRecord(choice.function) && typeof choice.function.name === 'string') {
    if (!toolNames(body.tools).includes(choice.function.name)) {
      return {
        message: `Invalid value for 'tool_choice': function '${choice.function.name}' not found in 'tools'.`,
        param: 'tool_choice',
        code: null,
      };
    }
  }
  if (body.reasoning_effort !== undefined && body.reasoning_effort !== null) {
    if (!REASONING_EFFORTS.includes(String(body.reasoning_effort))) {
      return invalidValue(body.reasoning_effort, REASONING_EFFORTS, 'reasoning_effort');
    }
  }
  // OpenAI refuses `top_k` ("Unrecognized request argument supplied: top_k"), but compatible servers (vLLM)
  // take it, and the fake serves both kinds on the one path with nothing in the request telling them apart:
  // it accepts `top_k`, so the openai-compatible adapter can be tested; the openai adapter refuses topK itself.
  return undefined;
}

/** The first thing the real API would refuse in `body` (model and non-empty messages already checked). */
export function validateOpenAIRequest(body: Record<string, unknown>): OpenAIRequestProblem | undefined {
  return checkParameters(body) ?? checkMessages(Array.isArray(body.messages) ? body.messages : []);
}

/**
 * The fake's wire contract carries a 400 as one message string; the param and code travel in front of it behind
 * a unit separator (a character no OpenAI message holds), and `decodeProblem` takes them apart again.
 */
const SEPARATOR = '\u001f';

export function encodeProblem(problem: OpenAIRequestProblem): string {
  return `${JSON.stringify({ param: problem.param, code: problem.code })}${SEPARATOR}${problem.message}`;
}

/** The problem behind a 400 message; a plain message (no separator) names no param or code. */
export function decodeProblem(text: string): OpenAIRequestProblem {
  const at = text.indexOf(SEPARATOR);
  if (at < 0) return { message: text, param: null, code: null };
  const fields = JSON.parse(text.slice(0, at)) as { param: string | null; code: string | null };
  return { message: text.slice(at + 1), param: fields.param, code: fields.code };
}

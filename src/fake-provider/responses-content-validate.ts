// The fake's Responses wire: checks on message content parts (text, images, files), as the real API makes them.
// Pure; test/bench side.
import { isRecord } from './content-text';
import { decodeBase64, isSupportedImage } from './openai-validate';
import {
  invalidType,
  invalidValue,
  missingParameter,
  unknownKey,
  type ResponsesProblem,
} from './responses-problem';

/** Content part types per message role, in the order OpenAI lists them in its "Supported values" message. */
export const PART_TYPES_BY_ROLE: Readonly<Record<string, readonly string[]>> = {
  user: ['input_text', 'input_image', 'input_file'],
  system: ['input_text', 'input_image', 'input_file'],
  developer: ['input_text', 'input_image', 'input_file'],
  assistant: ['output_text', 'refusal'],
};

/** The fields each part type may carry; any other is an unknown parameter. */
const PART_FIELDS: Readonly<Record<string, ReadonlySet<string>>> = {
  input_text: new Set(['type', 'text']),
  input_image: new Set(['type', 'image_url', 'file_id', 'detail']),
  input_file: new Set(['type', 'file_data', 'file_id', 'file_url', 'filename']),
  output_text: new Set(['type', 'text', 'annotations', 'logprobs']),
  refusal: new Set(['type', 'refusal']),
};

const IMAGE_DETAILS = ['low', 'high', 'auto', 'original'];

const DATA_URL_EXAMPLE = "(e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU=')";

function invalidImageURL(param: string, got: string): ResponsesProblem {
  return {
    message: `Invalid '${param}'. Expected a base64-encoded data URL with an image MIME type ${DATA_URL_EXAMPLE}, but got ${got}.`,
    param,
    code: 'invalid_value',
  };
}

function checkImage(part: Record<string, unknown>, param: string): ResponsesProblem | undefined {
  if (part.detail !== undefined && part.detail !== null && !IMAGE_DETAILS.includes(String(part.detail))) {
    return invalidValue(part.detail, IMAGE_DETAILS, `${param}.detail`);
  }
  if (typeof part.file_id === 'string') return undefined;
  if (typeof part.image_url !== 'string') return missingParameter(`${param}.image_url`);
  const url = part.image_url;
  const urlParam = `${param}.image_url`;
  if (/^https?:\/\//i.test(url)) return undefined;
  const dataURL = /^data:([^;,]*);base64,(.*)$/s.exec(url);
  if (dataURL === null) return invalidImageURL(urlParam, "a value without the 'data:' prefix");
  const [, mediaType = '', data = ''] = dataURL;
  if (!mediaType.startsWith('image/'))
    return invalidImageURL(urlParam, `unsupported MIME type '${mediaType}'`);
  const bytes = decodeBase64(data);
  if (bytes === undefined) return invalidImageURL(urlParam, 'invalid base64 data');
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

function checkFile(part: Record<string, unknown>, param: string): ResponsesProblem | undefined {
  if (typeof part.file_id === 'string' || typeof part.file_url === 'string') return undefined;
  if (typeof part.file_data !== 'string') return missingParameter(`${param}.file_data`);
  const dataParam = `${param}.file_data`;
  const dataURL = /^data:([^;,]+);base64,(.*)$/s.exec(part.file_data);
  if (dataURL === null || decodeBase64(dataURL[2] ?? '') === undefined) {
    return {
      message: `Invalid '${dataParam}'. Expected a base64-encoded data URL (e.g. 'data:application/pdf;base64,SGVsbG8sIFdvcmxkIQ=='), but got a value that is not one.`,
      param: dataParam,
      code: 'invalid_value',
    };
  }
  if (typeof part.filename !== 'string' || part.filename === '') return missingParameter(`${param}.filename`);
  return undefined;
}

/** One content part of a message with `role`, or of a function call's output (`role` undefined: input parts). */
export function checkPart(part: unknown, role: string, param: string): ResponsesProblem | undefined {
  if (!isRecord(part)) return invalidType(part, 'object', param);
  const allowed = PART_TYPES_BY_ROLE[role] ?? [];
  if (typeof part.type !== 'string') return missingParameter(`${param}.type`);
  // The real API names the part, not its type field, when the type does not fit the role.
  if (!allowed.includes(part.type)) return invalidValue(part.type, allowed, param);
  const unknown = unknownKey(part, PART_FIELDS[part.type] ?? new Set(), param);
  if (unknown) return unknown;
  switch (part.type) {
    case 'input_text':
    case 'output_text':
      return typeof part.text === 'string' ? undefined : missingParameter(`${param}.text`);
    case 'refusal':
      return typeof part.refusal === 'string' ? undefined : missingParameter(`${param}.refusal`);
    case 'input_image':
      return checkImage(part, param);
    case 'input_file':
      return checkFile(part, param);
    default:
      return undefined;
  }
}

/** A message's `content` (or a function output's `output`): a string, or a list of parts fit for `role`. */
export function checkContent(content: unknown, role: string, param: string): ResponsesProblem | undefined {
  if (typeof content === 'string') return undefined;
  if (content === undefined || content === null) return missingParameter(param);
  if (!Array.isArray(content)) {
    return {
      message: `Invalid type for '${param}': expected one of a string or array of objects, but got ${isRecord(content) ? 'an object' : typeof content} instead.`,
      param,
      code: 'invalid_type',
    };
  }
  for (const [index, part] of content.entries()) {
    const problem = checkPart(part, role, `${param}[${index}]`);
    if (problem) return problem;
  }
  return undefined;
}

// The fake's Responses wire: checks on the `input` items and on the conversation they make, as the real API
// makes them. Pure apart from the reasoning check (node:crypto); test/bench side.
import { isRecord } from './content-text';
import { decryptReasoning } from './reasoning-encryption';
import { checkContent, PART_TYPES_BY_ROLE } from './responses-content-validate';
import {
  invalidType,
  invalidValue,
  missingParameter,
  unknownKey,
  type ResponsesProblem,
} from './responses-problem';

/** The input item types the fake models (OpenAI's built-in tools' items are out of its scope). */
const ITEM_TYPES = ['message', 'function_call', 'function_call_output', 'reasoning', 'item_reference'];
const ROLES = ['user', 'assistant', 'system', 'developer'];

/** The fields each item type may carry. A reasoning item's `status` is output-only: the real API refuses it. */
const ITEM_FIELDS: Readonly<Record<string, ReadonlySet<string>>> = {
  message: new Set(['type', 'role', 'content', 'id', 'status', 'phase']),
  function_call: new Set(['type', 'id', 'call_id', 'name', 'arguments', 'status', 'namespace']),
  function_call_output: new Set(['type', 'id', 'call_id', 'output', 'status']),
  reasoning: new Set(['type', 'id', 'summary', 'encrypted_content', 'content']),
  item_reference: new Set(['type', 'id']),
};

/** The item id prefix the real API demands for each item type that carries an id of OpenAI's own. */
const ID_PREFIXES: Readonly<Record<string, string>> = {
  message: 'msg',
  function_call: 'fc',
  reasoning: 'rs',
};

function itemTypeOf(item: Record<string, unknown>): string | undefined {
  if (item.type === undefined && item.role !== undefined) return 'message';
  return typeof item.type === 'string' ? item.type : undefined;
}

function requireString(
  item: Record<string, unknown>,
  field: string,
  param: string,
): ResponsesProblem | undefined {
  if (item[field] === undefined || item[field] === null) return missingParameter(`${param}.${field}`);
  return typeof item[field] === 'string'
    ? undefined
    : invalidType(item[field], 'string', `${param}.${field}`);
}

function checkId(item: Record<string, unknown>, type: string, param: string): ResponsesProblem | undefined {
  const prefix = ID_PREFIXES[type];
  if (prefix === undefined || item.id === undefined || item.id === null) return undefined;
  if (typeof item.id === 'string' && item.id.startsWith(prefix)) return undefined;
  return {
    message: `Invalid '${param}.id': '${String(item.id)}'. Expected an ID that begins with '${prefix}'.`,
    param: `${param}.id`,
    code: 'invalid_value',
  };
}

function checkMessage(item: Record<string, unknown>, param: string): ResponsesProblem | undefined {
  if (item.role === undefined) return missingParameter(`${param}.role`);
  if (!ROLES.includes(String(item.role))) return invalidValue(item.role, ROLES, `${param}.role`);
  const role = String(item.role);
  // Only an assistant message can be one of OpenAI's own output messages, with a `msg_` id.
  if (item.id !== undefined && role !== 'assistant') return unknownKey({ id: item.id }, new Set(), param);
  return checkContent(item.content, role in PART_TYPES_BY_ROLE ? role : 'user', `${param}.content`);
}

function checkReasoningShape(item: Record<string, unknown>, param: string): ResponsesProblem | undefined {
  if (typeof item.id !== 'string') return missingParameter(`${param}.id`);
  if (item.summary === undefined) return missingParameter(`${param}.summary`);
  if (!Array.isArray(item.summary)) return invalidType(item.summary, 'array', `${param}.summary`);
  for (const [index, part] of item.summary.entries()) {
    const partParam = `${param}.summary[${index}]`;
    if (!isRecord(part)) return invalidType(part, 'object', partParam);
    const unknown = unknownKey(part, new Set(['type', 'text']), partParam);
    if (unknown) return unknown;
    if (part.type !== 'summary_text') return invalidValue(part.type, ['summary_text'], `${partParam}.type`);
    if (typeof part.text !== 'string') return missingParameter(`${partParam}.text`);
  }
  const content = item.encrypted_content;
  if (content !== undefined && content !== null && typeof content !== 'string') {
    return invalidType(content, 'string', `${param}.encrypted_content`);
  }
  return undefined;
}

/** The shape of one item: its type, its fields and their values. */
function checkItem(item: unknown, param: string): ResponsesProblem | undefined {
  if (!isRecord(item)) return invalidType(item, 'object', param);
  const type = itemTypeOf(item);
  if (type === undefined) return missingParameter(`${param}.type`);
  if (!ITEM_TYPES.includes(type)) return invalidValue(type, ITEM_TYPES, `${param}.type`);
  const unknown = unknownKey(item, ITEM_FIELDS[type] ?? new Set(), param);
  if (unknown) return unknown;
  const badId = checkId(item, type, param);
  if (badId) return badId;
  switch (type) {
    case 'message':
      return checkMessage(item, param);
    case 'function_call':
      return (
        requireString(item, 'call_id', param) ??
        requireString(item, 'name', param) ??
        requireString(item, 'arguments', param)
      );
    case 'function_call_output':
      return requireString(item, 'call_id', param) ?? checkContent(item.output, 'user', `${param}.output`);
    case 'reasoning':
      return checkReasoningShape(item, param);
    case 'item_reference':
      return requireString(item, 'id', param);
    default:
      return undefined;
  }
}

function notFound(id: string, store: boolean): ResponsesProblem {
  // The fake keeps nothing, so every item it is asked to look up is one it cannot find.
  const hint = store
    ? ''
    : ' Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.';
  return { message: `Item with id '${id}' not found.${hint}`, param: 'input', code: null, status: 404 };
}

/** Reasoning sent back must be this fake's own, unchanged (OpenAI decrypts it; anything else fails there). */
function checkReasoningContent(item: Record<string, unknown>, store: boolean): ResponsesProblem | undefined {
  const id = String(item.id);
  if (typeof item.encrypted_content !== 'string') return notFound(id, store);
  if (decryptReasoning(item.encrypted_content) !== undefined) return undefined;
  return {
    message: `The encrypted content for item ${id} could not be verified. Reason: Encrypted content could not be decrypted or parsed.`,
    param: null,
    code: 'invalid_encrypted_content',
  };
}

/** The item that answers a reasoning item: the call or the assistant message the reasoning led to. */
function followsReasoning(item: unknown): boolean {
  if (!isRecord(item)) return false;
  const type = itemTypeOf(item);
  return type === 'function_call' || (type === 'message' && item.role === 'assistant');
}

/**
 * The conversation, as OpenAI checks it once every item is well formed: stored items looked up, reasoning
 * decrypted and followed by what it led to, every function call answered by an output and every output
 * answering an earlier call.
 */
function checkConversation(
  items: readonly Record<string, unknown>[],
  store: boolean,
): ResponsesProblem | undefined {
  for (const [index, item] of items.entries()) {
    const type = itemTypeOf(item);
    if (type === 'item_reference') return notFound(String(item.id), store);
    if (type !== 'reasoning') continue;
    const content = checkReasoningContent(item, store);
    if (content) return content;
    if (!followsReasoning(items[index + 1])) {
      return {
        message: `Item '${String(item.id)}' of type 'reasoning' was provided without its required following item.`,
        param: 'input',
        code: null,
      };
    }
  }
  const called = new Set<string>();
  for (const item of items) {
    const type = itemTypeOf(item);
    if (type === 'function_call') called.add(String(item.call_id));
    if (type === 'function_call_output' && !called.has(String(item.call_id))) {
      return {
        message: `No tool call found for function call output with call_id ${String(item.call_id)}.`,
        param: 'input',
        code: null,
      };
    }
  }
  const answered = new Set(
    items.filter((item) => itemTypeOf(item) === 'function_call_output').map((item) => String(item.call_id)),
  );
  const unanswered = items.find(
    (item) => itemTypeOf(item) === 'function_call' && !answered.has(String(item.call_id)),
  );
  if (unanswered !== undefined) {
    return {
      message: `No tool output found for function call ${String(unanswered.call_id)}.`,
      param: 'input',
      code: null,
    };
  }
  return undefined;
}

/** The first thing the real API would refuse in `input` (a string, or a list of items). */
export function checkInput(input: unknown, store: boolean): ResponsesProblem | undefined {
  if (input === undefined || input === null) return missingParameter('input');
  if (typeof input === 'string') return undefined;
  if (!Array.isArray(input)) {
    return {
      message: `Invalid type for 'input': expected one of a string or array of input items, but got ${isRecord(input) ? 'an object' : typeof input} instead.`,
      param: 'input',
      code: 'invalid_type',
    };
  }
  for (const [index, item] of input.entries()) {
    const problem = checkItem(item, `input[${index}]`);
    if (problem) return problem;
  }
  return checkConversation(input as Record<string, unknown>[], store);
}

// Checking a surface's request body field by field: a mismatch is a 400 naming the wire field at fault. Node side.
import { z } from 'zod';
import { GatewayError, GatewayErrorKind } from './gateway-error';

/** The 400 for one wire field (`param`), in every surface's error shape. */
export function invalidField(param: string, message: string): GatewayError {
  return new GatewayError(`${param}: ${message}`, GatewayErrorKind.invalidRequest, 'invalid_request', {
    param,
  });
}

/** `a.b` joined, skipping empty parts (the body's own fields have no prefix). */
export function fieldPath(...parts: readonly (string | number)[]): string {
  return parts.filter((part) => part !== '').join('.');
}

/**
 * `value` as `schema` says, or a {@link invalidField} error whose param is the full wire path of the first
 * issue (`messages.2.content.0.source.media_type`), an unknown key included: a field the gateway does not
 * know could change what the call means or costs, so it is refused rather than dropped.
 */
export function checkField<Schema extends z.ZodType>(
  schema: Schema,
  value: unknown,
  path: string,
): z.infer<Schema> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  if (issue.code === 'unrecognized_keys') {
    throw invalidField(
      fieldPath(path, ...issue.path.map(String), issue.keys[0]!),
      'this field is not supported by the gateway',
    );
  }
  throw invalidField(fieldPath(path, ...issue.path.map(String)), issue.message);
}

/** The block's `type`, checked to be a string before the block's own schema is chosen by it. */
export function blockType(block: unknown, path: string): string {
  return checkField(z.looseObject({ type: z.string() }), block, path).type;
}

/**
 * The body's fields the surface handles, once every other field is refused with a 400 naming it: an unknown one,
 * or one in `refused` (fields the gateway knows but cannot honour) set to anything but null, with its reason.
 */
export function handledFields(
  raw: unknown,
  handled: ReadonlySet<string>,
  refused: Readonly<Record<string, string>> = {},
): Record<string, unknown> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new GatewayError(
      'the request body must be a JSON object',
      GatewayErrorKind.invalidRequest,
      'invalid_request',
    );
  }
  for (const [field, value] of Object.entries(raw)) {
    if (handled.has(field)) continue;
    const why = Object.hasOwn(refused, field) ? refused[field] : undefined;
    if (why === undefined) throw invalidField(field, 'this field is not supported by the gateway');
    if (value !== null) throw invalidField(field, why);
  }
  return Object.fromEntries(Object.entries(raw).filter(([field]) => handled.has(field)));
}

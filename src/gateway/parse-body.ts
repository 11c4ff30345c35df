// Checks a surface request body against its schema; a bad field becomes a 400 naming it. Node side.
import { z } from 'zod';
import { GatewayError, GatewayErrorKind } from './gateway-error';

export function invalidField(param: string, message: string): GatewayError {
  return new GatewayError(`${param}: ${message}`, GatewayErrorKind.invalidRequest, 'invalid_request', {
    param,
  });
}

export function parseBody<Schema extends z.ZodType>(schema: Schema, body: unknown): z.infer<Schema> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new GatewayError(
      'the request body must be a JSON object',
      GatewayErrorKind.invalidRequest,
      'invalid_request',
    );
  }
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const param = issue?.path.join('.') ?? '';
  throw new GatewayError(
    `invalid request:\n${z.prettifyError(parsed.error)}`,
    GatewayErrorKind.invalidRequest,
    'invalid_request',
    param ? { param } : {},
  );
}

/** Text of a content that is a string or a list of text parts; undefined when some part is not text. */
export function textOfParts(
  content: string | readonly { readonly type: string; readonly text?: unknown }[],
): { text: string } | { unsupported: string; index: number } {
  if (typeof content === 'string') return { text: content };
  let text = '';
  for (const [index, part] of content.entries()) {
    if (part.type !== 'text' || typeof part.text !== 'string') return { unsupported: part.type, index };
    text += part.text;
  }
  return { text };
}

// A Responses id names its routed call: `resp_` and the workflow id, so state is read back from Temporal. Node side, pure.
import { createHash } from 'node:crypto';

/** Stored responses: `resp_s` and the workflow id in base64url. */
const STORED_PREFIX = 'resp_s';
/** Unstored responses: `resp_x` and a digest, which is never decoded. */
const UNSTORED_PREFIX = 'resp_x';

/**
 * The id of the response a routed call answers with. A stored response's id carries its workflow id (base64url,
 * so any workflow id fits an id's character set); an unstored one (`store: false`) is a digest that names nothing,
 * so no id the caller holds leads back to its conversation.
 */
export function responseIdOf(workflowId: string, stored: boolean): string {
  if (!stored) {
    return `${UNSTORED_PREFIX}${createHash('sha256').update(workflowId).digest('hex').slice(0, 40)}`;
  }
  return `${STORED_PREFIX}${Buffer.from(workflowId, 'utf8').toString('base64url')}`;
}

/** The workflow id a response id names, or undefined when it names none (malformed, or an unstored response). */
export function workflowIdOfResponse(responseId: string): string | undefined {
  if (!responseId.startsWith(STORED_PREFIX)) return undefined;
  const encoded = responseId.slice(STORED_PREFIX.length);
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(encoded)) return undefined;
  const workflowId = Buffer.from(encoded, 'base64url').toString('utf8');
  // Only what responseIdOf writes decodes back to itself (no stray padding bits, no invalid UTF-8).
  return responseIdOf(workflowId, true) === responseId ? workflowId : undefined;
}

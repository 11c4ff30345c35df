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

/** The kinds of output item a response holds, by their id prefix. */
export type OutputItemPrefix = 'msg' | 'fc' | 'rs';

/**
 * An output item's id. A stored response's items name it (`msg_s<ordinal>_<encoded workflow id>`), so a client that
 * sends an item back by reference (`item_reference`) can have it read back from the workflow; an unstored one's
 * are a digest that names nothing. Either way the same answer always has the same ids (a stream and the response
 * it completes, a stored response read back).
 */
export function outputItemId(responseId: string, prefix: OutputItemPrefix, ordinal: number): string {
  if (responseId.startsWith(STORED_PREFIX)) {
    return `${prefix}_s${ordinal}_${responseId.slice(STORED_PREFIX.length)}`;
  }
  const digest = createHash('sha256').update(`${responseId}\u0000${prefix}\u0000${ordinal}`).digest('hex');
  return `${prefix}_${digest.slice(0, 48)}`;
}

/** The stored response whose output item `itemId` is, or undefined when the id names none. */
export function responseOfItem(itemId: string): string | undefined {
  const match = /^(msg|fc|rs)_s(\d{1,4})_([A-Za-z0-9_-]{1,400})$/.exec(itemId);
  if (match === null) return undefined;
  const responseId = `${STORED_PREFIX}${match[3]}`;
  return workflowIdOfResponse(responseId) !== undefined ? responseId : undefined;
}

// Item references on the Responses surface: an input item that names an output item of a stored response is
// replaced by that item, read back from its routed call's workflow. Node side.
import type { SwitchyardClient } from '../client/switchyard-client';
import type { StoredKey } from './gateway-key';
import { responseOfItem } from './response-id';
import { storedResponseBody } from './responses-routes';
import { readStoredResponse } from './responses-state';

interface ItemReference {
  readonly position: number;
  readonly id: string;
}

function referencesIn(input: readonly unknown[]): ItemReference[] {
  return input.flatMap((item, position) => {
    if (typeof item !== 'object' || item === null) return [];
    const { type, id } = item as { type?: unknown; id?: unknown };
    return type === 'item_reference' && typeof id === 'string' ? [{ position, id }] : [];
  });
}

function idOf(item: unknown): string | undefined {
  const id = (item as { id?: unknown } | null)?.id;
  return typeof id === 'string' ? id : undefined;
}

/**
 * `body` with each `item_reference` in its `input` replaced by the output item it names. Clients that leave `store`
 * on (the Vercel AI SDK's default) send an earlier step's items back as references. An item id of a stored response
 * names that response (see response-id.ts), read back once per response with the key's ownership checked as for
 * `previous_response_id`; an id that names none (OpenAI's own reasoning item id, which such an item keeps) is looked
 * up among the responses the other references named. A reference still unresolved is left for the parser, which
 * refuses it by name.
 */
export async function withItemReferences(
  switchyard: SwitchyardClient,
  body: unknown,
  key: StoredKey,
): Promise<unknown> {
  const input = (body as { input?: unknown } | null)?.input;
  if (!Array.isArray(input)) return body;
  const references = referencesIn(input);
  if (references.length === 0) return body;
  const items = new Map<string, unknown>();
  const read = new Set<string>();
  for (const reference of references) {
    const responseId = responseOfItem(reference.id);
    if (responseId === undefined || read.has(responseId)) continue;
    read.add(responseId);
    const stored = await readStoredResponse(switchyard, responseId, key, `input.${reference.position}.id`);
    const output = storedResponseBody(stored, true).output;
    for (const item of Array.isArray(output) ? output : []) {
      const id = idOf(item);
      if (id !== undefined) items.set(id, item);
    }
  }
  const resolved = input.map((item, position) => {
    const reference = references.find((candidate) => candidate.position === position);
    return reference !== undefined && items.has(reference.id) ? items.get(reference.id) : item;
  });
  return { ...(body as Record<string, unknown>), input: resolved };
}

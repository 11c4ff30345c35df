// Reads everything a workflow left on the server (history, payloads, memo, search attributes) as text, and
// searches texts for strings that must not be there. Test side.
import { inspect } from 'node:util';
import type { Client } from '@temporalio/client';
import type { Payload, PayloadCodec } from '@temporalio/common';

/** Every nested field and every string in full, for errors and other objects with cause chains. */
export const FULL_INSPECT = {
  depth: Infinity,
  maxArrayLength: Infinity,
  maxStringLength: Infinity,
  breakLength: Infinity,
} as const;

/** Payload encodings whose bytes are readable text (or empty) without a codec. */
const READABLE_ENCODINGS = new Set(['json/plain', 'binary/null', 'json/protobuf', 'binary/plain']);

function isBytes(value: unknown): value is Uint8Array {
  return value instanceof Uint8Array;
}

function isPayload(value: unknown): value is Payload {
  return typeof value === 'object' && value !== null && 'metadata' in value && 'data' in value;
}

function encodingOf(payload: Payload): string {
  const encoding = payload.metadata?.encoding;
  return encoding ? Buffer.from(encoding).toString('utf8') : '';
}

/** Every Payload object anywhere inside `root` (history events, describe output). */
function collectPayloads(root: unknown, found: Payload[] = [], seen = new Set<unknown>()): Payload[] {
  if (typeof root !== 'object' || root === null || isBytes(root) || seen.has(root)) return found;
  seen.add(root);
  if (isPayload(root)) found.push(root);
  for (const value of Object.values(root)) collectPayloads(value, found, seen);
  return found;
}

/** The UTF-8 text of every byte field anywhere inside `root` (payload data and metadata, raw protobuf bytes). */
function bytesText(root: unknown, parts: string[] = [], seen = new Set<unknown>()): string[] {
  if (isBytes(root)) {
    parts.push(Buffer.from(root).toString('utf8'));
    return parts;
  }
  if (typeof root !== 'object' || root === null || seen.has(root)) return parts;
  seen.add(root);
  for (const value of Object.values(root)) bytesText(value, parts, seen);
  return parts;
}

export interface ReadableText {
  readonly text: string;
  /** Payloads whose encoding no codec of the client could turn into text: the scan cannot see inside. */
  readonly opaquePayloads: number;
}

/**
 * `root` as searchable text: its JSON (where protobuf bytes are base64), the UTF-8 text of every byte field,
 * and every payload decoded through the client's codecs (if it has any), so an encoded payload is read as
 * the worker wrote it.
 */
export async function readableText(client: Client, root: unknown): Promise<ReadableText> {
  const codecs = (client.options as { loadedDataConverter?: { payloadCodecs?: PayloadCodec[] } })
    .loadedDataConverter?.payloadCodecs;
  // Protobuf messages serialize their bytes as base64 in JSON, so the JSON holds the string fields (failure
  // messages, stack traces, ids) and the bytes are added as text beside it.
  const parts = [JSON.stringify(root), ...bytesText(root)];
  let opaquePayloads = 0;
  for (const payload of collectPayloads(root)) {
    let decoded = [payload];
    for (const codec of [...(codecs ?? [])].reverse()) decoded = await codec.decode(decoded);
    const [plain] = decoded;
    if (!plain || !READABLE_ENCODINGS.has(encodingOf(plain))) {
      opaquePayloads += 1;
      continue;
    }
    if (plain !== payload) parts.push(Buffer.from(plain.data ?? []).toString('utf8'));
  }
  return { text: parts.join('\n'), opaquePayloads };
}

export interface WorkflowText extends ReadableText {
  readonly events: number;
}

/** One run's full history and its description (memo, search attributes, pending activities) as text. */
export async function workflowText(client: Client, workflowId: string, runId: string): Promise<WorkflowText> {
  const handle = client.workflow.getHandle(workflowId, runId);
  const [history, description] = await Promise.all([handle.fetchHistory(), handle.describe()]);
  const historyText = await readableText(client, history);
  const describeText = await readableText(client, description.raw);
  const decoded = inspect(
    { memo: description.memo, searchAttributes: description.typedSearchAttributes },
    FULL_INSPECT,
  );
  return {
    events: history.events?.length ?? 0,
    text: [historyText.text, describeText.text, decoded].join('\n'),
    opaquePayloads: historyText.opaquePayloads + describeText.opaquePayloads,
  };
}

export interface Leak {
  readonly where: string;
  readonly what: string;
  /** Text around the hit, to find the field that leaked. */
  readonly context: string;
}

/** Collects every occurrence of any needle in the texts it is shown. */
export class LeakScanner {
  readonly leaks: Leak[] = [];

  constructor(private readonly needles: Readonly<Record<string, string>>) {}

  scan(where: string, text: string, only?: readonly string[]): void {
    for (const [what, needle] of Object.entries(this.needles)) {
      if (only && !only.includes(what)) continue;
      let index = text.indexOf(needle);
      while (index !== -1) {
        this.leaks.push({ where, what, context: text.slice(Math.max(0, index - 200), index + 200) });
        index = text.indexOf(needle, index + needle.length);
      }
    }
  }
}

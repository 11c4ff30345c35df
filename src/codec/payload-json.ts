// Payloads as the remote codec protocol carries them: proto3 JSON, every bytes field base64. Node side.
import type { Payload } from '@temporalio/common';
import { z } from 'zod';

/** Proto3 JSON writes `bytes` as base64 (standard or URL-safe alphabet, padding optional). */
const Base64Schema = z.string().regex(/^[A-Za-z0-9+/_-]*={0,2}$/, 'expected base64');

export const JsonPayloadSchema = z.object({
  metadata: z.record(z.string(), Base64Schema).nullish(),
  data: Base64Schema.nullish(),
});

/** The body of `/encode` and `/decode`, both ways: `{ payloads: [{ metadata: {key: base64}, data: base64 }] }`. */
export const JsonPayloadsSchema = z.object({ payloads: z.array(JsonPayloadSchema) });

export type JsonPayload = z.infer<typeof JsonPayloadSchema>;
export type JsonPayloads = z.infer<typeof JsonPayloadsSchema>;

export function payloadFromJson(json: JsonPayload): Payload {
  return {
    metadata: Object.fromEntries(
      Object.entries(json.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value, 'base64')]),
    ),
    data: Buffer.from(json.data ?? '', 'base64'),
  };
}

export function payloadToJson(payload: Payload): JsonPayload {
  return {
    metadata: Object.fromEntries(
      Object.entries(payload.metadata ?? {}).map(([key, value]) => [
        key,
        Buffer.from(value).toString('base64'),
      ]),
    ),
    data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64'),
  };
}

// Refuses, before anything starts, a routed call whose input Temporal would refuse for its size. Node side.
import type { PayloadCodec } from '@temporalio/common';
import type { RoutedCallInput } from '../config/routed-call-input';
import { PayloadLimitCodec } from '../codec/payload-limit-codec';
import {
  payloadLimitFromEnvironment,
  PayloadTooLargeError,
  STORE_REMEDY,
  STORE_SETTING,
  TEMPORAL_LIMITS,
} from '../codec/payload-limits';
import { PayloadStoreCodec } from '../codec/payload-store-codec';
import { PAYLOAD_STORE_VARIABLES } from '../codec/payload-store-settings';

/**
 * Of the per-event limit, what a call's input leaves free, in bytes: the workflow sends the request again as each
 * attempt's input beside the resolved target, and its result and failure carry the routing record, so an input
 * that only just fits would fail later, inside the workflow, instead of here.
 */
export const CALL_INPUT_HEADROOM_BYTES = 64 * 1024;
/** The JSON payload's own metadata, and encryption's IV, tag and key id, in bytes (generous). */
const ENVELOPE_BYTES = 512;

export interface CallInputSizeRules {
  /** The most one event's payloads may take on the server, in bytes. */
  readonly limitBytes: number;
  /** A payload store takes large payloads out of history, so the size is no longer bounded by the limit. */
  readonly storeConfigured: boolean;
}

/** The rules a client with these payload codecs works under; a client without Switchyard's codecs gets the defaults. */
export function callInputSizeRules(codecs: readonly PayloadCodec[]): CallInputSizeRules {
  const limit = codecs.find((codec): codec is PayloadLimitCodec => codec instanceof PayloadLimitCodec);
  return {
    limitBytes: limit?.limitBytes ?? TEMPORAL_LIMITS.blobSizeErrorBytes,
    storeConfigured: codecs.some((codec) => codec instanceof PayloadStoreCodec),
  };
}

/** The rules the environment sets (for the CLI, which checks before it connects). */
export function callInputSizeRulesFromEnvironment(
  environment: NodeJS.ProcessEnv = process.env,
): CallInputSizeRules {
  return {
    limitBytes: payloadLimitFromEnvironment(environment),
    storeConfigured: Boolean(environment[PAYLOAD_STORE_VARIABLES.directory]?.trim()),
  };
}

/** Bytes of base64 the request's inline images and documents hold (tool results' images too). */
export function inlineMediaBytes(request: RoutedCallInput['request']): number {
  let bytes = 0;
  for (const message of request.messages) {
    if (typeof message.content === 'string') continue;
    for (const part of message.content) {
      if ((part.type === 'image' || part.type === 'document') && part.data !== undefined)
        bytes += part.data.length;
      if (part.type === 'tool_result' && typeof part.content !== 'string') {
        for (const inner of part.content) if (inner.type === 'image') bytes += inner.data?.length ?? 0;
      }
    }
  }
  return bytes;
}

/**
 * Throws {@link PayloadTooLargeError} for a call whose input cannot go through Temporal: without a payload store,
 * its JSON must fit the per-event limit less {@link CALL_INPUT_HEADROOM_BYTES}. `sizeBytes` is the input's JSON
 * size, `limitBytes` the most it may be. With a store nothing is refused here: large inputs become references.
 */
export function checkCallInputSize(input: RoutedCallInput, rules: CallInputSizeRules): void {
  if (rules.storeConfigured) return;
  const limitBytes = rules.limitBytes - CALL_INPUT_HEADROOM_BYTES - ENVELOPE_BYTES;
  const sizeBytes = Buffer.byteLength(JSON.stringify(input), 'utf8');
  if (sizeBytes <= limitBytes) return;
  // "Shorten it" means little for a picture: say how much of the input its media are, and what else to do.
  const mediaBytes = inlineMediaBytes(input.request);
  const remedy =
    mediaBytes > 0
      ? `Its inline images and documents are ${mediaBytes.toLocaleString('en-US')} bytes of it (base64): ` +
        `send images by https url instead, or ${STORE_SETTING}`
      : STORE_REMEDY;
  throw new PayloadTooLargeError(
    "the routed call's input",
    sizeBytes,
    limitBytes,
    `Temporal refuses more than ${rules.limitBytes.toLocaleString('en-US')} bytes in one event ` +
      `(limit.blobSize.error), and a call keeps ${CALL_INPUT_HEADROOM_BYTES / 1024} KiB of it for what its ` +
      'attempts and record add',
    remedy,
  );
}

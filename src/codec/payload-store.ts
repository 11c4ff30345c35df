// Where payloads too large for history are kept: the store interface and its content addresses. Node side.
import { SwitchyardError } from '../config/branded-error';
import { createHash } from 'node:crypto';

/**
 * Keeps payload bytes outside Temporal's history, addressed by their content. Implementations must be safe to
 * share between processes (workers, clients, the codec server): `put` of the same bytes from two processes at
 * once leaves one complete copy, and a reader never sees a partial one.
 */
export interface PayloadStore {
  /** Where the store keeps things, for messages, e.g. `directory /srv/switchyard/payloads`. */
  readonly description: string;
  /** Stores `bytes` and returns their content address ({@link contentKey}); storing the same bytes again is a no-op. */
  put(bytes: Uint8Array): Promise<string>;
  /** The bytes stored under `key`; rejects with {@link PayloadStoreError} when they are missing or do not match it. */
  get(key: string): Promise<Uint8Array>;
}

/** A payload that cannot be stored or read back. Names the key and the store, never payload contents. */
export class PayloadStoreError extends SwitchyardError {
  static override readonly brand: string = 'switchyard.PayloadStoreError';

  override readonly name = 'PayloadStoreError';
  constructor(
    readonly key: string,
    readonly reason: string,
  ) {
    super(`payload ${key}: ${reason}`);
  }
}

const KEY_PATTERN = /^sha256-([0-9a-f]{64})$/;

/** `sha256-<64 hex digits>`: the content address of `bytes`. */
export function contentKey(bytes: Uint8Array): string {
  return `sha256-${createHash('sha256').update(bytes).digest('hex')}`;
}

/**
 * The hex digest of a well-formed key, else undefined. Keys arrive from history, so a store checks them before
 * turning one into a path or a URL: nothing but a digest gets through.
 */
export function digestOfKey(key: string): string | undefined {
  return KEY_PATTERN.exec(key)?.[1];
}

// A payload store in a directory shared by workers and clients: content-addressed files, written atomically. Node side.
import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, unlink, utimes } from 'node:fs/promises';
import path from 'node:path';
import { contentKey, digestOfKey, PayloadStoreError, type PayloadStore } from './payload-store';

/**
 * Folders and files the store creates are its owner's alone: without a codec key they hold plaintext prompts and
 * answers. A umask can only take bits away, so these hold even under a permissive one (`umask 000`).
 */
export const PAYLOAD_STORE_DIRECTORY_MODE = 0o700;
export const PAYLOAD_STORE_FILE_MODE = 0o600;

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/**
 * Files named by the SHA-256 of their bytes, `<directory>/<first two hex digits>/sha256-<hex>`. A write goes to a
 * temporary file in the same folder, is flushed, then renamed into place, so a reader (or a crash) never meets a
 * partial file, and two writers of the same bytes both end with the one complete copy. Nothing is ever deleted:
 * history may refer to a file for as long as the namespace retains it (docs/operations.md, "Large payloads", on retention). Storing
 * bytes that are already there refreshes the file's modification time, so age-based clean-up sees the latest use.
 */
export class FilesystemPayloadStore implements PayloadStore {
  readonly description: string;

  constructor(
    /** An absolute path, the same on every worker and client (a shared volume). */
    readonly directory: string,
  ) {
    this.description = `directory ${directory}`;
  }

  /** The file of a well-formed key. */
  pathOf(key: string): string {
    const digest = digestOfKey(key);
    if (digest === undefined) throw new PayloadStoreError(key, 'is not a sha256-<hex> content address');
    return path.join(this.directory, digest.slice(0, 2), key);
  }

  async put(bytes: Uint8Array): Promise<string> {
    const key = contentKey(bytes);
    const file = this.pathOf(key);
    const now = new Date();
    try {
      await utimes(file, now, now);
      return key;
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') throw this.failure(key, 'cannot be stored', error);
    }
    const temporary = `${file}.${randomUUID()}.partial`;
    try {
      await mkdir(path.dirname(file), { recursive: true, mode: PAYLOAD_STORE_DIRECTORY_MODE });
      const handle = await open(temporary, 'wx', PAYLOAD_STORE_FILE_MODE);
      try {
        await handle.writeFile(bytes);
        // On disk before the rename: a reference in history must never point at a file lost to a crash.
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, file);
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      throw this.failure(key, 'cannot be stored', error);
    }
    return key;
  }

  async get(key: string): Promise<Uint8Array> {
    const file = this.pathOf(key);
    let bytes: Buffer;
    try {
      bytes = await readFile(file);
    } catch (error) {
      if (errorCode(error) === 'ENOENT')
        throw new PayloadStoreError(
          key,
          `is not in ${this.description}: does this process use the same SWITCHYARD_PAYLOAD_STORE_DIR as the workers, and was the file deleted?`,
        );
      throw this.failure(key, 'cannot be read', error);
    }
    if (contentKey(bytes) !== key)
      throw new PayloadStoreError(
        key,
        `the file in ${this.description} does not match its content address (altered or damaged)`,
      );
    return bytes;
  }

  private failure(key: string, what: string, error: unknown): PayloadStoreError {
    const code = errorCode(error);
    return new PayloadStoreError(key, `${what} in ${this.description}: ${code ?? (error as Error).message}`);
  }
}

// Changing the gateway keys file: under its lock, written whole by rename, read back and verified. Node side.
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fchmodSync,
  fchownSync,
  fsyncSync,
  mkdirSync,
  openSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { acquireKeysFileLock, KeyChangeError, type KeysFileLockOptions } from './keys-file-lock';
import { KeyFileError, readKeyFile, type KeyFile } from './keys-file';

/** Mode of a new keys file and of every temporary file: the owner reads and writes, no one else. */
const OWNER_ONLY = 0o600;

/**
 * The mode and owner a rewrite keeps. An operator may have made the file group-readable for a gateway running
 * as another user, and a command run as root must not leave a root-owned file that gateway cannot read; access
 * for others is never kept.
 */
function keptAttributes(file: string): { mode: number; uid?: number; gid?: number } {
  try {
    const { mode, uid, gid } = statSync(file);
    return { mode: mode & 0o770, uid, gid };
  } catch {
    return { mode: OWNER_ONLY };
  }
}

/** fsync of the directory, so the rename itself survives a crash; not every platform can open one. */
function syncDirectory(directory: string): void {
  let descriptor: number | undefined;
  try {
    descriptor = openSync(directory, 'r');
    fsyncSync(descriptor);
  } catch {
    // Windows and some network file systems refuse; the rename is still atomic for readers.
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
}

/**
 * Writes `content` as the whole file: to a temporary file of a random name beside it (processes in different
 * containers share no pid space, so `<file>.<pid>.tmp` could collide), fsynced, then renamed over it. A
 * gateway reading meanwhile sees the old file or the new one, never half of either.
 */
export function writeKeyFileAtomically(file: string, content: KeyFile): void {
  const directory = path.dirname(file);
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const kept = keptAttributes(file);
  const temporary = `${file}.${randomBytes(8).toString('hex')}.tmp`;
  const descriptor = openSync(temporary, 'wx', OWNER_ONLY);
  try {
    try {
      writeFileSync(descriptor, `${JSON.stringify(content, null, 2)}\n`);
      // The mode given to open is narrowed by the umask; set it outright.
      fchmodSync(descriptor, kept.mode);
      if (kept.uid !== undefined && kept.gid !== undefined && process.getuid?.() === 0) {
        fchownSync(descriptor, kept.uid, kept.gid);
      }
      fsyncSync(descriptor);
    } finally {
      closeSync(descriptor);
    }
    renameSync(temporary, file);
  } catch (error) {
    try {
      unlinkSync(temporary);
    } catch {
      // Renamed already, or never made.
    }
    throw error;
  }
  syncDirectory(directory);
}

export interface KeyFileChange<Result> {
  /** The new content given the content read under the lock (`next` absent: leave the file as it is). */
  readonly change: (current: KeyFile) => { readonly next?: KeyFile; readonly result: Result };
  /** Whether the file, read back after the write, holds the change. */
  readonly holds: (written: KeyFile) => boolean;
  /** Says, for an error, what was being changed ("key 3f9a1c2b44d0 revoked"). */
  readonly what: string;
}

/**
 * Applies a change to the keys file so that it is either stored and verified or reported as failed: takes
 * the lock, reads the file under it (a change made by another process a moment ago is kept), writes the
 * whole file atomically, reads it back and checks the change is there, and only then releases the lock.
 * Throws {@link KeyChangeError} when the change could not be made or did not hold, {@link KeyFileError} when
 * the file on disk is unreadable (it is left as it is).
 */
export function changeKeyFile<Result>(
  file: string,
  { change, holds, what }: KeyFileChange<Result>,
  lockOptions: KeysFileLockOptions = {},
): Result {
  const lock = acquireKeysFileLock(file, lockOptions);
  try {
    const { next, result } = change(readKeyFile(file));
    if (next === undefined) return result;
    lock.assertHeld();
    try {
      writeKeyFileAtomically(file, next);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      throw new KeyChangeError(`cannot write ${file} (${code}): ${what} was not stored`, file);
    }
    let written: KeyFile;
    try {
      written = readKeyFile(file);
    } catch (error) {
      const reason = error instanceof KeyFileError ? error.reason : (error as Error).message;
      throw new KeyChangeError(`${file} could not be read back (${reason}): ${what} is not confirmed`, file);
    }
    if (!holds(written)) {
      throw new KeyChangeError(
        `${file}, read back, does not hold the change (another writer replaced it): ${what} was not stored`,
        file,
      );
    }
    return result;
  } finally {
    lock.release();
  }
}

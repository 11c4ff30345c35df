// The keys file's lock: one writer at a time across processes and containers sharing its directory. Node side.
import { SwitchyardError } from '../config/branded-error';
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';

export interface KeysFileLockOptions {
  /**
   * How long to wait for a lock another process holds, in milliseconds, before giving up with nothing changed.
   * Longer than `staleMs`, so a lock left by a crashed process is broken while a command is still waiting.
   * @default 20000
   */
  readonly waitMs?: number;
  /**
   * Age of a lock file after which its holder is taken to have died, in milliseconds, and the lock is broken.
   * A holder needs it for a read, a write and an fsync: milliseconds, far below this. Ages are compared on
   * the lock file's mtime, so every host sharing the volume needs a clock within this of the others.
   * @default 10000
   */
  readonly staleMs?: number;
}

const DEFAULT_WAIT_MS = 20_000;
const DEFAULT_STALE_MS = 10_000;
const FIRST_PAUSE_MS = 5;
const LONGEST_PAUSE_MS = 250;

/** The keys file could not be changed: locked too long, lost its lock, or the change did not hold. Nothing claims success. */
export class KeyChangeError extends SwitchyardError {
  static override readonly brand: string = 'switchyard.KeyChangeError';

  override readonly name = 'KeyChangeError';
  constructor(
    message: string,
    readonly file: string,
  ) {
    super(message);
  }
}

/** The lock file of `file`: beside it, so every process that can write the keys file can take it. */
export function lockPathOf(file: string): string {
  return `${file}.lock`;
}

/**
 * Blocks the thread for `ms`. The keys are changed by one-shot CLI commands (and tests) whose store API is
 * synchronous; the wait is spent only when another process holds the lock.
 */
function pauseSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Math.max(0, ms));
}

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
}

interface LockIdentity {
  readonly content: string;
  readonly inode: number;
  readonly mtimeMs: number;
}

function identityOf(lockPath: string): LockIdentity | undefined {
  try {
    const { ino, mtimeMs } = statSync(lockPath);
    return { content: readFileSync(lockPath, 'utf8'), inode: ino, mtimeMs };
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw error;
  }
}

function sameLock(a: LockIdentity, b: LockIdentity): boolean {
  return a.content === b.content && a.inode === b.inode && a.mtimeMs === b.mtimeMs;
}

/**
 * Removes the lock file only if it is still the one `expected` accepts. Unlinking by name could remove a lock
 * another process took a moment ago, so the file is first renamed aside (atomic), checked there, and put back
 * (a hard link, which fails rather than replace a newer lock) when it turns out to be someone else's.
 */
function removeLockIf(lockPath: string, expected: (moved: LockIdentity) => boolean): boolean {
  const aside = `${lockPath}.${randomBytes(8).toString('hex')}.removing`;
  try {
    renameSync(lockPath, aside);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return false;
    throw error;
  }
  try {
    const moved = identityOf(aside);
    if (moved && expected(moved)) return true;
    try {
      linkSync(aside, lockPath);
    } catch {
      // A third process took the lock meanwhile; the one moved aside is lost to its holder, who finds out
      // when it checks its token before writing.
    }
    return false;
  } finally {
    try {
      unlinkSync(aside);
    } catch {
      // Already gone: nothing to clean.
    }
  }
}

/** Breaks the lock if it is older than `staleMs`; true when the caller should try to take it again at once. */
function breakIfStale(lockPath: string, staleMs: number): boolean {
  const seen = identityOf(lockPath);
  if (!seen) return true;
  if (Date.now() - seen.mtimeMs < staleMs) return false;
  removeLockIf(lockPath, (moved) => sameLock(moved, seen));
  return true;
}

/** A lock this process holds on a keys file; `assertHeld` before writing, `release` when done. */
export interface KeysFileLock {
  /** Throws {@link KeyChangeError} when the lock was broken as stale and another process may be writing. */
  assertHeld(): void;
  release(): void;
}

/**
 * Takes the keys file's lock: a file created with O_EXCL beside it, holding a random owner token. O_EXCL
 * creation is atomic on local file systems and on NFSv3+, so it works across containers sharing the volume,
 * where process ids mean nothing. Waits with growing pauses up to `waitMs`; breaks a lock older than `staleMs`.
 */
export function acquireKeysFileLock(file: string, options: KeysFileLockOptions = {}): KeysFileLock {
  const lockPath = lockPathOf(file);
  const waitMs = options.waitMs ?? DEFAULT_WAIT_MS;
  const staleMs = options.staleMs ?? DEFAULT_STALE_MS;
  const token = randomBytes(16).toString('hex');
  const content = `${JSON.stringify({ token, pid: process.pid, host: hostname(), at: new Date().toISOString() })}\n`;
  const deadline = Date.now() + waitMs;
  let pause = FIRST_PAUSE_MS;
  for (;;) {
    let descriptor: number | undefined;
    try {
      descriptor = openSync(lockPath, 'wx', 0o600);
    } catch (error) {
      if (errorCode(error) !== 'EEXIST') {
        throw new KeyChangeError(
          `cannot create the lock file ${lockPath} (${errorCode(error) ?? (error as Error).message}); nothing was changed`,
          file,
        );
      }
    }
    if (descriptor !== undefined) {
      try {
        writeFileSync(descriptor, content);
      } finally {
        closeSync(descriptor);
      }
      break;
    }
    if (breakIfStale(lockPath, staleMs)) continue;
    const left = deadline - Date.now();
    if (left <= 0) {
      throw new KeyChangeError(
        `the key file ${file} stayed locked by another process for ${(waitMs / 1000).toFixed(1)} s; nothing was ` +
          `changed. Try again; if no "switchyard keys" command is running anywhere, remove ${lockPath}`,
        file,
      );
    }
    // Jittered, so processes that collided do not retry in step.
    pauseSync(Math.min(left, pause / 2 + Math.random() * pause));
    pause = Math.min(LONGEST_PAUSE_MS, pause * 2);
  }
  const ours = (identity: LockIdentity) => identity.content === content;
  return {
    assertHeld() {
      const current = identityOf(lockPath);
      if (!current || !ours(current)) {
        throw new KeyChangeError(
          `the lock on ${file} was broken as stale while this process held it; nothing was changed, try again`,
          file,
        );
      }
    },
    release() {
      removeLockIf(lockPath, ours);
    },
  };
}
